"""`tracker badge map|mappings|import|recheck`: badge-class mappings and imported badges."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup
from sqlalchemy.orm import Session

from tracker.badges.jobs import recheck_badges
from tracker.badges.services.imports import check_badge, record_badge
from tracker.badges.services.mapping import map_badge_class, mappings
from tracker.badges.views import badge_fetch
from tracker.clock import today
from tracker.db import release
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.people.models import Engineer
from tracker.people.services.reads import find_engineer

badge_cli = AppGroup("badge", help="Map badge classes to catalog credentials; import badges.")


def _fail(exc: ValidationError) -> click.ClickException:
    return click.ClickException("; ".join(f"{k}: {v}" for k, v in exc.errors.items()))


@badge_cli.command("map")
@click.argument("badge_class_url")
@click.argument("code")
def badge_map(badge_class_url: str, code: str) -> None:
    """Record badges of BADGE_CLASS_URL as the catalog credential CODE."""
    session = db_session()
    try:
        mapping = map_badge_class(session, badge_class_url, code)
    except ValidationError as exc:
        raise _fail(exc) from None
    session.commit()
    click.echo(f"{mapping.badge_class_id} -> {mapping.credential.code}")


@badge_cli.command("mappings")
def badge_mappings() -> None:
    """List the mapped badge classes: URL and credential code (tab-separated)."""
    for mapping in mappings(db_session()):
        click.echo(f"{mapping.badge_class_id}\t{mapping.credential.code}")


def _person(session: Session, email: str, held: bool = False) -> Engineer:
    found = find_engineer(session, email, for_change=held)
    if found is None:
        raise click.ClickException(f"no person with e-mail {email}")
    return found


@badge_cli.command("import")
@click.argument("email")
@click.argument("badge_url")
def badge_import(email: str, badge_url: str) -> None:
    """Verify the badge at BADGE_URL and record it for the person with EMAIL."""
    session = db_session()
    address = _person(session, email).email
    release(session)  # nothing held while the issuer answers
    try:
        checked = check_badge("url", badge_url, address, today(), badge_fetch())
        # Held only now, as the CSV import holds the person whose records it changes.
        recorded = record_badge(session, _person(session, email, held=True), checked, today())
    except ValidationError as exc:
        raise _fail(exc) from None
    session.commit()
    cert = recorded.certification
    until = f", valid through {cert.expires_on}" if cert.expires_on else ""
    # Said first, so that a script reading the line knows nothing new was recorded.
    done = "verified the certification already recorded" if recorded.existing else "verified"
    click.echo(
        f"{done}: {cert.credential.code} ({cert.credential.name}) from {cert.earned_on}{until}"
    )


@badge_cli.command("recheck")
def badge_recheck() -> None:
    """Verify every imported badge again now, as the daily pass does; record revocations."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a proxy, typed as Flask
    outcomes = recheck_badges(app, today())
    click.echo(", ".join(f"{count} {outcome}" for outcome, count in outcomes.items()))
