"""Demo commands."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from tracker.cli import today
from tracker.db import session_scope
from tracker.demo.services import DEMO_PASSWORD, build_demo
from tracker.extensions import session_factory


@click.command("demo")
@with_appcontext
def demo_command() -> None:
    """Add the demo organisation to an initialised database and print its logins."""
    with session_scope(session_factory()) as session:
        logins = build_demo(session, today())
    click.echo(f"demo organisation ready; every login's password is {DEMO_PASSWORD!r}:")
    for role, email, name in logins:
        click.echo(f"  {role:9} {email:32} {name}")
