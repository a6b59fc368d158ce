"""Gather what a team's page shows: readiness, heat map, progress, expiries and forecast."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from tracker.catalog.services.snapshot import catalog_snapshot
from tracker.db import plain_rows
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification, HourLog
from tracker.progress.services.paths import path_progress
from tracker.progress.services.validity import Status, days_left, newest_per_credential, status_on
from tracker.readiness.rules import FORECAST_MONTHS
from tracker.readiness.services.forecast import ForecastPoint, forecast
from tracker.readiness.services.heatmap import HeatRow, heat_cell, heat_columns
from tracker.readiness.services.members import (
    AnyCredential,
    HeldCertification,
    Member,
    load_members,
)
from tracker.readiness.services.team import TeamReadiness, readiness


@dataclass(frozen=True)
class TeamPage:
    readiness: TeamReadiness
    columns: list[AnyCredential]
    rows: list[HeatRow]
    expiring: list[tuple[Member, Certification | HeldCertification, Status, int | None]]
    forecast: list[ForecastPoint]


def team_page(
    session: Session,
    team: Team,
    on: dt.date,
    gpus: int | None = None,
    months: int = FORECAST_MONTHS,
) -> TeamPage:
    """Gather a team page's readiness, heat map, progress and forecast in a fixed set of queries."""
    catalog = catalog_snapshot(session)
    members = load_members(session, [team.id], catalog.credentials).get(team.id, [])
    templates = catalog.templates
    result = readiness(team, members, templates, on, gpus)
    paths = catalog.paths
    columns = heat_columns(result.template, [p.exam.credential for p in paths if p.exam])
    logged = _logged_hours_of_team(session, team.id)
    verified = _verified_of_team(session, team.id)
    no_hours: dict[int, Decimal] = {}
    rows = [
        HeatRow(
            m,
            [heat_cell(m, c, on, verified) for c in columns],
            # progress types the path as the mapped one; the snapshot's reads the same.
            [path_progress(p, logged.get(m.id, no_hours)) for p in paths],  # type: ignore[arg-type]
        )
        for m in members
    ]
    current = [
        (m, c)
        for m in members
        # progress types these as Certifications; HeldCertifications read the same fields.
        for c in newest_per_credential(m.certifications).values()  # type: ignore[arg-type]
        if c.expires_on is not None
    ]
    expiring: list[tuple[Member, Certification | HeldCertification, Status, int | None]] = sorted(
        ((m, c, status_on(c, on), days_left(c, on)) for m, c in current),
        key=lambda row: (row[1].expires_on, row[0].name),
    )
    points = forecast(team, members, templates, on, gpus, months)
    return TeamPage(result, columns, rows, expiring, points)


# Kept statements, the team bound at each call (see tracker.db.plain_rows).
_HOURS_OF_TEAM = (
    select(HourLog.engineer_id, HourLog.course_id, func.sum(HourLog.hours))
    .join(Engineer, Engineer.id == HourLog.engineer_id)
    .where(Engineer.team_id == bindparam("team_id"), Engineer.active.is_(True))
    .group_by(HourLog.engineer_id, HourLog.course_id)
)
_VERIFIED_OF_TEAM = (
    select(Certification.id)
    .join(Engineer, Engineer.id == Certification.engineer_id)
    .where(
        Engineer.team_id == bindparam("team_id"),
        Certification.verified_at.is_not(None),
        Certification.revoked_on.is_(None),
    )
)


def _logged_hours_of_team(session: Session, team_id: int) -> dict[int, dict[int, Decimal]]:
    """Return engineer id -> course id -> hours logged, for a team's active members (one query)."""
    result: dict[int, dict[int, Decimal]] = {}
    rows = plain_rows(session).execute(_HOURS_OF_TEAM, {"team_id": team_id}).all()
    for engineer_id, course_id, total in rows:
        result.setdefault(engineer_id, {})[course_id] = total
    return result


def _verified_of_team(session: Session, team_id: int) -> frozenset[int]:
    """Return the ids of the team's certifications proved by their issuers' badges."""
    return frozenset(
        plain_rows(session).execute(_VERIFIED_OF_TEAM, {"team_id": team_id}).scalars().all()
    )
