"""Readiness over time: each team's and the organisation's daily snapshots, read and back-filled.

The snapshots are written as readiness is brought up to date (services.current:
a team's last state each day, the organisation's sum); the pages draw the last
HISTORY_MONTHS of them and the API answers them a page at a time. `backfill`
writes the days before today from what the records say (who was hired by then,
which certifications were valid), for an organisation made in one go (`tracker
demo`): a day already kept is left as it is.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from sqlalchemy import Select, bindparam, func, null, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter

from tracker.catalog.services.snapshot import TemplateInfo, catalog_snapshot
from tracker.db import plain_rows
from tracker.people.models import Team
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.progress.services.validity import add_months
from tracker.readiness.models import OrganisationSnapshot, ReadinessSnapshot
from tracker.readiness.rules import HISTORY_MONTHS, PERCENT_TENTHS, TEAMS_PER_BATCH
from tracker.readiness.services.current import percent_tenths, seats_filled
from tracker.readiness.services.members import Member, load_members
from tracker.readiness.services.organisation import lapsing_count

# A day, or the parameter a kept statement binds it to at each call.
Day = dt.date | BindParameter[dt.date]

# Snapshot rows written per statement while back-filling.
BACKFILL_ROWS = 5000


class HistoryPoint(NamedTuple):
    """Readiness on a day: seats filled of total, the percent, certifications lapsing soon.

    A named tuple: a year of them is read for each page, and a tuple is made,
    hashed and compared at C speed (the year's chart is remembered by its points).
    """

    day: dt.date
    filled: int
    total: int
    percent_tenths: int
    lapsing: int
    # How many teams the organisation's point sums (None for a team's).
    teams: int | None = None

    @property
    def percent(self) -> float:
        return self.percent_tenths / PERCENT_TENTHS


def history_since(today: dt.date, months: int = HISTORY_MONTHS) -> dt.date:
    """Return the first day of the `months` months that end today."""
    return add_months(today, -months) + dt.timedelta(days=1)


def team_history_statement(
    team_id: int | BindParameter[int], since: Day, until: Day
) -> Select[Any]:
    """Return the query of a team's snapshots from `since` to `until`, unordered.

    Its rows are `HistoryPoint`s' fields, a team's count of teams empty (NULL).
    """
    h = ReadinessSnapshot
    teams = null().label("teams")
    return select(h.day, h.filled, h.total, h.percent_tenths, h.lapsing, teams).where(
        h.team_id == team_id, h.day >= since, h.day <= until
    )


def organisation_history_statement(since: Day, until: Day) -> Select[Any]:
    """Return the query of the organisation's snapshots from `since` to `until`, unordered."""
    o = OrganisationSnapshot
    return select(o.day, o.filled, o.total, o.percent_tenths, o.lapsing, o.teams).where(
        o.day >= since, o.day <= until
    )


def point(row: Any) -> HistoryPoint:
    return HistoryPoint._make(row)


def team_history(
    session: Session, team_id: int, today: dt.date, months: int = HISTORY_MONTHS
) -> list[HistoryPoint]:
    """Return a team's snapshots of the `months` months that end today, oldest first."""
    since = history_since(today, months)
    return _points(session, _TEAM_YEAR, {"team_id": team_id, "since": since, "until": today})


def organisation_history(
    session: Session, today: dt.date, months: int = HISTORY_MONTHS
) -> list[HistoryPoint]:
    """Return the organisation's snapshots of the `months` months that end today, oldest first."""
    since = history_since(today, months)
    return _points(session, _ORGANISATION_YEAR, {"since": since, "until": today})


# Kept statements (see tracker.db.plain_rows).
_TEAM_YEAR = team_history_statement(
    bindparam("team_id"), bindparam("since"), bindparam("until")
).order_by(ReadinessSnapshot.day)
_ORGANISATION_YEAR = organisation_history_statement(
    bindparam("since"), bindparam("until")
).order_by(OrganisationSnapshot.day)


def _points(session: Session, statement: Select[Any], values: dict[str, Any]) -> list[HistoryPoint]:
    # Columns, not entities: a third of the ORM's cost for a year of rows.
    rows = plain_rows(session).execute(statement, values).all()
    return list(map(HistoryPoint._make, rows))


def by_month(points: Sequence[HistoryPoint]) -> list[HistoryPoint]:
    """Return each month's last point, oldest month first (the chart's table)."""
    last: dict[tuple[int, int], HistoryPoint] = {}
    for p in points:
        last[(p.day.year, p.day.month)] = p
    return list(last.values())


# --- back-filling --------------------------------------------------------------------


def _change_days(members: Iterable[Member]) -> set[dt.date]:
    """Return the days on which a team's readiness or lapsing count may change.

    A member counts from their hire date; a certification from the day it is
    earned to its expiry, and it is lapsing from EXPIRING_WITHIN_DAYS before.
    """
    window = dt.timedelta(days=EXPIRING_WITHIN_DAYS)
    days: set[dt.date] = set()
    for member in members:
        hired = _hired_on(member)
        if hired is not None:
            days.add(hired)
        for _, earned, expires in member.held:
            days.add(earned)
            if expires is not None:
                days.add(expires + dt.timedelta(days=1))
                days.add(expires - window)
    return days


def _hired_on(member: Member) -> dt.date | None:
    return member.engineer.hired_on


def team_days(
    members: Sequence[Member],
    templates: Sequence[TemplateInfo],
    gpus: int,
    first: dt.date,
    last: dt.date,
) -> list[tuple[dt.date, int, int, int]]:
    """Return (day, filled, total, lapsing) of each day from `first` to `last`.

    The team as its members' records say it was: a member counts from their
    hire date. The matching runs once per stretch of days in which nothing
    changes, not once per day.
    """
    changes = sorted(d for d in _change_days(members) if first < d <= last)
    starts = [first, *changes]
    rows = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else last + dt.timedelta(days=1)
        present = [m for m in members if (_hired_on(m) or start) <= start]
        _, filled, total = seats_filled(present, templates, gpus, start)
        lapsing = lapsing_count(present, start)
        day = start
        while day < end:
            rows.append((day, filled, total, lapsing))
            day += dt.timedelta(days=1)
    return rows


def backfill(session: Session, today: dt.date, months: int = HISTORY_MONTHS) -> int:
    """Write the snapshots of the `months` months before today that are missing; return how many.

    From the teams' current members, job roles, levels and fleets (the records
    keep no history of those) and every certification's dates. Flushes.
    """
    catalog = catalog_snapshot(session)
    if not catalog.templates:
        return 0
    first, last = history_since(today, months), today - dt.timedelta(days=1)
    if last < first:
        return 0
    teams = session.execute(select(Team.id, Team.gpus).order_by(Team.id)).tuples().all()
    written = 0
    pending: list[dict[str, Any]] = []
    for start in range(0, len(teams), TEAMS_PER_BATCH):
        batch = teams[start : start + TEAMS_PER_BATCH]
        members = load_members(session, [team_id for team_id, _ in batch], catalog.credentials)
        for team_id, gpus in batch:
            for day, filled, total, lapsing in team_days(
                members.get(team_id, []), catalog.templates, gpus, first, last
            ):
                pending.append(
                    {
                        "team_id": team_id,
                        "day": day,
                        "filled": filled,
                        "total": total,
                        "percent_tenths": percent_tenths(filled, total),
                        "lapsing": lapsing,
                    }
                )
            if len(pending) >= BACKFILL_ROWS:
                written += _insert_missing(session, ReadinessSnapshot, pending)
                pending = []
    written += _insert_missing(session, ReadinessSnapshot, pending)
    _sum_organisation_days(session, first, last)
    return written


def _sum_organisation_days(session: Session, first: dt.date, last: dt.date) -> None:
    """Write the organisation's snapshot of each day from `first` to `last` its teams have."""
    h = ReadinessSnapshot
    rows = [
        {
            "day": day,
            "teams": teams,
            "filled": filled,
            "total": total,
            "percent_tenths": percent_tenths(filled, total),
            "lapsing": lapsing,
        }
        for day, teams, filled, total, lapsing in session.execute(
            select(h.day, func.count(), func.sum(h.filled), func.sum(h.total), func.sum(h.lapsing))
            .where(h.day >= first, h.day <= last)
            .group_by(h.day)
        )
    ]
    for start in range(0, len(rows), BACKFILL_ROWS):
        _insert_missing(session, OrganisationSnapshot, rows[start : start + BACKFILL_ROWS])


def _insert_missing(session: Session, entity: type[Any], rows: list[dict[str, Any]]) -> int:
    """Insert the rows whose key is not stored yet; return how many were given."""
    if not rows:
        return 0
    insert = (
        postgresql.insert(entity)
        if session.get_bind().dialect.name == "postgresql"
        else sqlite.insert(entity)
    )
    session.execute(insert.on_conflict_do_nothing(), rows)
    return len(rows)
