"""`tracker readiness TEAM`: a team's readiness from the command line."""

from __future__ import annotations

import datetime as dt
import json

import click
from flask import current_app
from flask.cli import with_appcontext

from tracker.clock import today
from tracker.extensions import db_session
from tracker.i18n import translate
from tracker.people.rules import MAX_GPUS
from tracker.people.services.teams import find_team
from tracker.readiness.rules import CALENDAR_RULE, FIRST_DAY, LAST_DAY
from tracker.readiness.schemas import readiness_json
from tracker.readiness.services.team import team_readiness


def _within_calendar(
    ctx: click.Context, param: click.Parameter, value: dt.datetime | None
) -> dt.datetime | None:
    """Refuse a date the readiness page and the API refuse."""
    if value is not None and not FIRST_DAY <= value.date() <= LAST_DAY:
        raise click.BadParameter(CALENDAR_RULE)
    return value


@click.command("readiness")
@with_appcontext
@click.argument("team_name")
@click.option(
    "--gpus", type=click.IntRange(min=0, max=MAX_GPUS), help="Fleet size (default: the team's)."
)
@click.option(
    "--on",
    "on",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    callback=_within_calendar,
    help="Date YYYY-MM-DD.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON.")
def readiness_command(team_name: str, gpus: int | None, on, as_json: bool) -> None:
    """Show whether TEAM can run a fleet of --gpus on a date, and its gaps."""
    session = db_session()
    team = find_team(session, team_name)
    if team is None:
        raise click.ClickException(f"no team named {team_name!r}")
    result = team_readiness(session, team, on.date() if on else today(), gpus)
    # No command asks for a language: what a candidate lacks is in the organisation's.
    locale = current_app.config["DEFAULT_LOCALE"]
    if as_json:
        click.echo(json.dumps(readiness_json(result, locale), indent=2))
        return
    click.echo(
        f"{team.name}: {result.gpus} GPUs -> {result.template.name}; "
        f"{result.filled}/{result.total} seats ({result.percent} %) on {result.on.isoformat()}"
    )
    for seat in result.seats:
        who = seat.member.name if seat.member else "OPEN"
        click.echo(f"  {seat.seat.slot.title:<26} {who}")
        for candidate in seat.candidates:
            lacks = translate(candidate.lacking(), locale)
            click.echo(f"      nearest {candidate.member.name}: lacks {lacks}")
        if seat.member is None and not seat.candidates:
            click.echo("      hire")
    for item in result.team_credentials:
        click.echo(f"  team-wide {item.credential.code}: {'met' if item.met else 'missing'}")
