"""Privacy commands: `tracker user erase EMAIL` (the user group is the people package's)."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from tracker.clock import utcnow
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.people.services.reads import find_engineer
from tracker.privacy.services.erasure import erase_person


@click.command("erase")
@click.argument("email")
@with_appcontext
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def user_erase(email: str, yes: bool) -> None:
    """Erase a deactivated person's personal data for good, keeping their records nameless."""
    session = db_session()
    person = find_engineer(session, email, for_change=True)
    if person is None:
        raise click.ClickException(f"no engineer with email {email}")
    if not yes:
        click.confirm(f"Erase the personal data of {person.email} for good?", abort=True)
    person_id = person.id
    try:
        erased = erase_person(session, person, None, utcnow(), via="cli")
    except ValidationError as exc:
        raise click.ClickException("; ".join(f"{k}: {v}" for k, v in exc.errors.items())) from None
    if not erased:
        click.echo(f"person #{person_id} was erased before; nothing to do")
        return
    session.commit()
    click.echo(f"personal data of person #{person_id} erased")
