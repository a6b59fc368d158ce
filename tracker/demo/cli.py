"""Demo commands."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from tracker.clock import today
from tracker.db import session_scope
from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD
from tracker.demo.services.curated import build_demo, language_of
from tracker.demo.services.generator import generate_organisation
from tracker.errors import ValidationError
from tracker.extensions import secret_key, session_factory

# Admins sign in with a password and a code: the demo admin's app secret.
_TOTP_LINE = (
    f"the admin also gives a code from an authenticator app set up with the key "
    f'{DEMO_ADMIN_TOTP_SECRET} (or: python -c "import pyotp; '
    f"print(pyotp.TOTP('{DEMO_ADMIN_TOTP_SECRET}').now())\")"
)


@click.command("demo")
@with_appcontext
@click.option(
    "--engineers",
    type=click.IntRange(1, 1_000_000),
    default=None,
    help="Generate a synthetic organisation of N engineers instead of the small demo.",
)
@click.option(
    "--seed", type=int, default=1, show_default=True, help="Same seed, same organisation."
)
@click.option(
    "--years",
    type=click.IntRange(1, 20),
    default=4,
    show_default=True,
    help="Years of history to generate.",
)
def demo_command(engineers: int | None, seed: int, years: int) -> None:
    """Add the demo organisation (or, with --engineers, a generated one) and print its logins."""
    if engineers is not None:
        try:
            with session_scope(session_factory()) as session:
                result = generate_organisation(
                    session,
                    engineers,
                    today(),
                    seed=seed,
                    years=years,
                    analyze=True,
                    secret_key=secret_key(),
                )
        except ValidationError as exc:
            raise click.ClickException("; ".join(exc.errors.values())) from None
        click.echo(result.summary())
        click.echo(
            f"admin login: {result.admin_email}; engineers and managers sign in as "
            f"<first>.<last>.<id>@{result.domain}; every password is {result.password!r}"
        )
        click.echo(_TOTP_LINE)
        return
    with session_scope(session_factory()) as session:
        logins = build_demo(session, today(), secret_key=secret_key())
    click.echo(f"demo organisation ready; every login's password is {DEMO_PASSWORD!r}:")
    for role, email, name in logins:
        language = {"es": "Spanish", "en": "English"}.get(language_of(name), "browser's language")
        click.echo(f"  {role:9} {email:32} {name:16} reads {language}")
    click.echo(_TOTP_LINE)
