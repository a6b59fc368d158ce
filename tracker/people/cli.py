"""People commands: `tracker user ...`, `tracker token ...`, `tracker team ...`."""

from __future__ import annotations

import datetime as dt

import click
from flask.cli import AppGroup
from sqlalchemy import select

from tracker.catalog.rules import MIN_LEVEL
from tracker.clock import today
from tracker.db import get_for_change
from tracker.errors import ValidationError
from tracker.extensions import db_session, secret_keys
from tracker.people.models import ApiToken
from tracker.people.rules import ACCESS_ROLES, BROWSER_LOCALE, LOCALES, TOKEN_SCOPES, WRITE_SCOPE
from tracker.people.services.accounts import create_token, expired, revoke_token, set_password
from tracker.people.services.persons import create_person
from tracker.people.services.reads import find_engineer
from tracker.people.services.teams import create_team, find_team
from tracker.people.services.totp import Rewrite, rekey_secrets, reset, store_secrets_plain

user_cli = AppGroup(
    "user", help="Add people, set their passwords, reset, encrypt or decrypt their app secrets."
)
token_cli = AppGroup("token", help="Create, list and revoke API tokens.")
team_cli = AppGroup("team", help="Add teams.")


def _fail(exc: ValidationError) -> click.ClickException:
    return click.ClickException("; ".join(f"{k}: {v}" for k, v in exc.errors.items()))


def _rename(errors: dict[str, str], names: dict[str, str]) -> dict[str, str]:
    """Return a service's errors keyed by the command's option names."""
    return {names.get(key, key): message for key, message in errors.items()}


def _person(session, email: str, for_change: bool = False):
    # A command that changes the person holds them until it commits (db.FOR_CHANGE).
    engineer = find_engineer(session, email, for_change=for_change)
    if engineer is None:
        raise click.ClickException(f"no engineer with email {email}")
    return engineer


@user_cli.command("add")
@click.argument("email")
@click.option("--name", required=True)
@click.option(
    "--role",
    "access_role",
    type=click.Choice(ACCESS_ROLES),
    default="engineer",
    show_default=True,
    help="Access role.",
)
@click.option("--job", "jobs", multiple=True, help="Job role code (repeatable).")
@click.option("--level", type=int, default=MIN_LEVEL, show_default=True)
@click.option("--team", "team_name", help="Team name.")
@click.option("--manager", "manager_email", help="Manager's email.")
@click.option("--hired", type=click.DateTime(formats=["%Y-%m-%d"]), help="Hire date YYYY-MM-DD.")
@click.option(
    "--experience-months",
    type=int,
    default=0,
    show_default=True,
    help="Documented months of GPU-infrastructure experience before joining.",
)
@click.option(
    "--locale",
    default=BROWSER_LOCALE,
    help=f"Interface language: {', '.join(LOCALES)}; left out, the browser's choice.",
)
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True)
def user_add(
    email,
    name,
    access_role,
    jobs,
    level,
    team_name,
    manager_email,
    hired,
    experience_months,
    locale,
    password,
) -> None:
    """Add a person with a sign-in account."""
    session = db_session()
    team = None
    if team_name:
        team = find_team(session, team_name)
        if team is None:
            raise click.ClickException(f"no team named {team_name!r}")
    manager = _person(session, manager_email) if manager_email else None
    try:
        engineer = create_person(
            session,
            email=email,
            name=name,
            today=today(),
            access_role=access_role,
            job_roles=jobs,
            level=level,
            team_id=team.id if team else None,
            manager_id=manager.id if manager else None,
            hired_on=hired.date() if hired else None,
            experience_months=experience_months,
            password=password,
            locale=locale,
            via="cli",
        )
    except ValidationError as exc:
        raise _fail(exc) from None
    session.commit()
    click.echo(f"added {engineer.email} (id {engineer.id}, {engineer.access_role})")


@user_cli.command("set-password")
@click.argument("email")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True)
def user_set_password(email: str, password: str) -> None:
    """Set a person's password; their other sessions end."""
    session = db_session()
    engineer = _person(session, email, for_change=True)
    try:
        set_password(session, engineer, password)
    except ValidationError as exc:
        raise _fail(exc) from None
    session.commit()
    click.echo(f"password of {engineer.email} changed")


@user_cli.command("reset-totp")
@click.argument("email")
def user_reset_totp(email: str) -> None:
    """Clear a person's authenticator app and recovery codes (a lost phone).

    An admin sets up a new app at their next sign-in; anyone else signs in
    with their password alone until they set one up again.
    """
    session = db_session()
    engineer = _person(session, email, for_change=True)
    if not reset(session, engineer, via="cli"):
        click.echo(f"{engineer.email} has no two-step sign-in set up; nothing to clear")
        return
    session.commit()
    click.echo(f"two-step sign-in of {engineer.email} cleared")


@user_cli.command("encrypt-totp")
def user_encrypt_totp() -> None:
    """Encrypt under the current key every authenticator secret stored plain or under an old key.

    Each is also encrypted at its owner's next sign-in; this does them all now.
    Fails when some do not open with TRACKER_SECRET_KEY nor its fallbacks.
    """
    session = db_session()
    done = rekey_secrets(session, secret_keys())
    session.commit()
    click.echo(f"{done.rewritten} two-step sign-in secret(s) encrypted under the current key")
    _refuse_unreadable(done)


@user_cli.command("decrypt-totp")
def user_decrypt_totp() -> None:
    """Store every authenticator secret plain again, before a downgrade past their encryption.

    Run it with the servers stopped: a sign-in encrypts its secret again.
    Fails when some do not open with TRACKER_SECRET_KEY nor its fallbacks.
    """
    session = db_session()
    done = store_secrets_plain(session, secret_keys())
    session.commit()
    click.echo(f"{done.rewritten} two-step sign-in secret(s) stored plain")
    _refuse_unreadable(done)


def _refuse_unreadable(done: Rewrite) -> None:
    if done.unreadable:
        raise click.ClickException(
            f"{len(done.unreadable)} secret(s) do not decrypt with TRACKER_SECRET_KEY nor its"
            f" fallbacks (was it changed?): {', '.join(done.unreadable)};"
            " `tracker user reset-totp EMAIL` clears one, its owner sets up the app again"
        )


# The options' names, for the services' fields.
TOKEN_OPTIONS = {"scope": "--scope", "expires_on": "--expires"}


def _expiry(token: ApiToken) -> str:
    return f"expires {token.expires_on.isoformat()}" if token.expires_on else "never expires"


@token_cli.command("create")
@click.argument("email")
@click.option("--name", default="", help="What the token is for.")
@click.option(
    "--scope",
    type=click.Choice(TOKEN_SCOPES),
    default=WRITE_SCOPE,
    show_default=True,
    help="read: GET only; write: also POST, PUT, PATCH and DELETE.",
)
@click.option(
    "--expires",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="Last day the token works, YYYY-MM-DD (default: until revoked).",
)
def token_create(email: str, name: str, scope: str, expires: dt.datetime | None) -> None:
    """Create an API token; the token is printed once, as the last line."""
    session = db_session()
    engineer = _person(session, email)
    try:
        token, secret = create_token(
            session,
            engineer,
            name,
            scope=scope,
            expires_on=expires.date() if expires else None,
            today=today(),
        )
    except ValidationError as exc:
        raise _fail(ValidationError(_rename(exc.errors, TOKEN_OPTIONS))) from None
    session.commit()
    click.echo(
        f"token {token.id} for {email}, {token.scope}, {_expiry(token)}"
        " (store it now; it is not shown again):"
    )
    click.echo(secret)


@token_cli.command("list")
@click.argument("email")
def token_list(email: str) -> None:
    """List a person's tokens: id, state, scope, expiry, name (tab-separated)."""
    session = db_session()
    engineer = _person(session, email)
    on = today()
    for token in session.scalars(
        select(ApiToken).where(ApiToken.engineer_id == engineer.id).order_by(ApiToken.id)
    ):
        if token.revoked_at:
            state = f"revoked {token.revoked_at:%Y-%m-%d}"
        elif expired(token, on):
            state = "expired"
        else:
            state = "active"
        click.echo(f"{token.id}\t{state}\t{token.scope}\t{_expiry(token)}\t{token.name}")


@token_cli.command("revoke")
@click.argument("token_id", type=int)
def token_revoke(token_id: int) -> None:
    """Revoke a token by id; it stops working at once."""
    session = db_session()
    token = get_for_change(session, ApiToken, token_id)
    if token is None:
        raise click.ClickException(f"no token with id {token_id}")
    revoke_token(session, token, dt.datetime.now(dt.UTC).replace(tzinfo=None))
    session.commit()
    click.echo(f"token {token_id} revoked")


@team_cli.command("add")
@click.argument("name")
@click.option("--gpus", type=int, required=True, help="Fleet size in GPUs.")
@click.option("--manager", "manager_email", help="Manager's email.")
def team_add(name: str, gpus: int, manager_email: str | None) -> None:
    """Add a team responsible for a GPU fleet."""
    session = db_session()
    manager = _person(session, manager_email) if manager_email else None
    try:
        team = create_team(session, name, gpus, manager.id if manager else None)
    except ValidationError as exc:
        raise _fail(exc) from None
    session.commit()
    click.echo(f"added team {team.name} (id {team.id}, {team.gpus} GPUs)")
