"""/teams: the teams a manager sees, their readiness and its forecast."""

from __future__ import annotations

import datetime as dt

from flask import Response

from tracker.api.access import managers_only, team_in_url
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.openapi import Operation
from tracker.api.pages import Key, page
from tracker.clock import today
from tracker.extensions import db_session, session_factory
from tracker.people.models import Team
from tracker.people.schemas import TeamOut, TeamsOut
from tracker.readiness.models import ReadinessSnapshot
from tracker.readiness.schemas import (
    ForecastOut,
    ForecastQuery,
    HistoryPointOut,
    HistoryQuery,
    ReadinessQuery,
    TeamHistoryOut,
    TeamReadinessOut,
)
from tracker.readiness.services.current import up_to_date
from tracker.readiness.services.forecast import forecast
from tracker.readiness.services.history import history_since, point, team_history_statement
from tracker.readiness.services.members import load_members, load_templates
from tracker.readiness.services.team import team_readiness, visible_teams_query
from tracker.schemas import PageQuery
from tracker.web.language import current_locale

TEAMS = Operation(
    answers={200: TeamsOut},
    query_model=PageQuery,
    refusals=(403,),
    gives={"team_id": "/items/0/id"},
)
# By name (unique), then id, so that the order stays total should that ever change.
TEAMS_ORDER = (Key(Team.name, lambda t: t.name, str), Key(Team.id, lambda t: t.id, int))
READINESS = Operation(
    answers={200: TeamReadinessOut}, query_model=ReadinessQuery, refusals=(403, 404)
)
FORECAST = Operation(answers={200: ForecastOut}, query_model=ForecastQuery, refusals=(403, 404))
HISTORY = Operation(answers={200: TeamHistoryOut}, query_model=HistoryQuery, refusals=(403, 404))
HISTORY_ORDER = (Key(ReadinessSnapshot.day, lambda row: row.day, dt.date),)


@bp.get("/teams")
@TEAMS
def teams() -> tuple[Response, int]:
    """The teams the caller manages (every team for an admin), a page."""
    managers_only()
    params = TEAMS.query()
    teams = visible_teams_query(caller())
    return TEAMS.answer(page(TeamsOut, teams, TEAMS_ORDER, params, TeamOut.of))


@bp.get("/teams/<int:team_id>/readiness", endpoint="team_readiness")
@READINESS
def get_readiness(team_id: int) -> tuple[Response, int]:
    """Readiness of a team for ?gpus=N (default its fleet) on ?on=YYYY-MM-DD (default today)."""
    managers_only()
    team = team_in_url(team_id)
    params = READINESS.query()
    gpus = team.gpus if params.gpus is None else params.gpus
    on = params.on or today()
    # What a candidate lacks is words: in the request's language, as the API's messages.
    result = team_readiness(db_session(), team, on, gpus)
    return READINESS.answer(TeamReadinessOut.of(result, current_locale()))


@bp.get("/teams/<int:team_id>/forecast")
@FORECAST
def team_forecast(team_id: int) -> tuple[Response, int]:
    """Readiness at the start of each of the next ?months=12 months, assuming no renewals."""
    managers_only()
    team = team_in_url(team_id)
    params = FORECAST.query()
    gpus = team.gpus if params.gpus is None else params.gpus
    session = db_session()
    members = load_members(session, [team.id]).get(team.id, [])
    points = forecast(team, members, load_templates(session), today(), gpus, params.months)
    return FORECAST.answer(ForecastOut.of(TeamOut.of(team), gpus, points))


@bp.get("/teams/<int:team_id>/history")
@HISTORY
def team_history(team_id: int) -> tuple[Response, int]:
    """The team's daily snapshots of the last ?months=12 months, oldest first, a page.

    Each day's last state of its own fleet: seats filled of total, percent,
    certifications lapsing within 90 days; today's is brought up to date first.
    """
    managers_only()
    team = team_in_url(team_id)
    params = HISTORY.query()
    session = db_session()
    day = today()
    up_to_date(session, session_factory(), day, team_ids=[team.id])
    statement = team_history_statement(team.id, history_since(day, params.months), day)
    return HISTORY.answer(
        page(
            TeamHistoryOut, statement, HISTORY_ORDER, params, lambda r: HistoryPointOut.of(point(r))
        )
    )
