"""The organisation at a glance: one row per team, read from the stored readiness.

The rows are `team_readiness` joined to the team and its manager, filtered by
band, manager and team name, in the order of a column; the page shows them a
page at a time, the API a keyset page at a time, the CSV all of them. Callers
bring the stored readiness up to date first (services.current.up_to_date).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Row,
    Select,
    SQLColumnExpression,
    and_,
    case,
    func,
    select,
    true,
)
from sqlalchemy.orm import Session, aliased

from tracker.db import Paging, page_count, plain_rows
from tracker.people.models import Engineer, Team
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.readiness.models import StoredReadiness
from tracker.readiness.rules import ORGANISATION_PAGE_ROWS, PERCENT_TENTHS
from tracker.readiness.services.members import Member

# The columns the table sorts by, as the page's ?sort= and the API's name them.
SORTS = ("team", "manager", "band", "seats", "ready", "lapsing", "trend")
DEFAULT_SORT = "team"

_Manager = aliased(Engineer, name="manager")
_r = StoredReadiness
# Points of percent gained since the snapshot the trend compares with (0 without one).
_TREND = _r.percent_tenths - func.coalesce(_r.previous_tenths, _r.percent_tenths)
_MANAGER = func.coalesce(_Manager.name, "")

# Kept statements, one per shape of the table's query (see tracker.db.plain_rows).
STATEMENTS_KEPT = 128


def lapsing_count(
    members: Iterable[Member], on: dt.date, within: int = EXPIRING_WITHIN_DAYS
) -> int:
    """Count the members' credentials held valid on `on` whose cover ends within `within` days."""
    last = on + dt.timedelta(days=within)
    return sum([member.lapsing(on, last) for member in members])


@dataclass(frozen=True)
class SummaryRow:
    """A team's row of the organisation table."""

    team_id: int
    team_name: str
    gpus: int
    manager_id: int | None
    manager_name: str | None
    template_id: int
    band_gpus: int
    filled: int
    total: int
    percent_tenths: int
    lapsing: int
    previous_tenths: int | None

    @classmethod
    def of(cls, row: Row[Any]) -> SummaryRow:
        return cls(*row[:12])

    @property
    def percent(self) -> float:
        return self.percent_tenths / PERCENT_TENTHS

    @property
    def open_seats(self) -> int:
        return self.total - self.filled

    @property
    def trend(self) -> float | None:
        """Points of percent gained since the compared snapshot; None without one."""
        if self.previous_tenths is None:
            return None
        return (self.percent_tenths - self.previous_tenths) / PERCENT_TENTHS


@dataclass(frozen=True)
class SummaryFilters:
    """Which teams the table shows: a band (template id), a manager's name, a team's name.

    Names match anywhere, in any case, as plain text; `manager_id` keeps one
    manager's teams (their own list of teams).
    """

    band: int | None = None
    manager: str = ""
    name: str = ""
    manager_id: int | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        found: list[ColumnElement[bool]] = []
        if self.band is not None:
            found.append(_r.template_id == self.band)
        if self.manager.strip():
            found.append(_Manager.name.icontains(self.manager.strip(), autoescape=True))
        if self.name.strip():
            found.append(Team.name.icontains(self.name.strip(), autoescape=True))
        if self.manager_id is not None:
            found.append(Team.manager_id == self.manager_id)
        return found

    @property
    def any(self) -> bool:
        return bool(self.conditions())


@dataclass(frozen=True)
class SortKey:
    """One column of the table's order: its SQL, the row's field holding it, its kind."""

    column: SQLColumnExpression[Any]
    field: str
    # "id" (the team's id), "whole" (a count, a share, a trend, any sign) or "text".
    kind: str
    descending: bool = False


def order_keys(sort: str, descending: bool = False) -> list[SortKey]:
    """Return the order of `sort` (one of SORTS), then team name and id: a total order.

    Descending turns the column's order, not the team names' of equal rows
    (but sorting by team turns both).
    """
    main = {
        "team": [],
        "manager": [SortKey(_MANAGER, "manager_sort", "text", descending)],
        "band": [SortKey(_r.band_gpus, "band_gpus", "whole", descending)],
        "seats": [
            SortKey(_r.filled, "filled", "whole", descending),
            SortKey(_r.total, "total", "whole", descending),
        ],
        "ready": [SortKey(_r.percent_tenths, "percent_tenths", "whole", descending)],
        "lapsing": [SortKey(_r.lapsing, "lapsing", "whole", descending)],
        "trend": [SortKey(_TREND, "trend_tenths", "whole", descending)],
    }[sort]
    names = descending if sort == "team" else False
    return [
        *main,
        SortKey(Team.name, "team_name", "text", names),
        SortKey(Team.id, "team_id", "id", names),
    ]


def summary_statement(filters: SummaryFilters = SummaryFilters()) -> Select[Any]:
    """Return the query of the table's rows (unordered), with the columns its order reads."""
    return (
        select(
            Team.id.label("team_id"),
            Team.name.label("team_name"),
            Team.gpus,
            Team.manager_id,
            _Manager.name.label("manager_name"),
            _r.template_id,
            _r.band_gpus,
            _r.filled,
            _r.total,
            _r.percent_tenths,
            _r.lapsing,
            _r.previous_tenths,
            _MANAGER.label("manager_sort"),
            _TREND.label("trend_tenths"),
        )
        .select_from(Team)
        .join(_r, _r.team_id == Team.id)
        .outerjoin(_Manager, _Manager.id == Team.manager_id)
        .where(*filters.conditions())
    )


def ordered(statement: Select[Any], keys: list[SortKey]) -> Select[Any]:
    return statement.order_by(*(k.column.desc() if k.descending else k.column for k in keys))


def summary_rows(
    session: Session,
    filters: SummaryFilters = SummaryFilters(),
    sort: str = DEFAULT_SORT,
    descending: bool = False,
) -> list[SummaryRow]:
    """Return every row the filters keep, in the order of `sort` (the CSV; a manager's teams)."""
    statement = ordered(summary_statement(filters), order_keys(sort, descending))
    return [SummaryRow.of(row) for row in session.execute(statement)]


@dataclass(frozen=True)
class Totals:
    """The whole organisation's seats, and how many teams the filters keep."""

    teams: int
    matching: int
    filled: int
    total: int
    lapsing: int

    @property
    def percent_tenths(self) -> int:
        return round(self.filled * 100 * PERCENT_TENTHS / self.total) if self.total else 1000

    @property
    def percent(self) -> float:
        return self.percent_tenths / PERCENT_TENTHS


# Totals' fields, the columns of its query.
TOTALS = ("teams", "matching", "filled", "total", "lapsing")


@lru_cache(maxsize=STATEMENTS_KEPT)
def _totals_statement(filters: SummaryFilters) -> Select[Any]:
    """Return the query of `Totals`, in its fields' order (TOTALS)."""
    conditions = filters.conditions()
    sums = (
        func.coalesce(func.sum(_r.filled), 0),
        func.coalesce(func.sum(_r.total), 0),
        func.coalesce(func.sum(_r.lapsing), 0),
    )
    if not conditions:
        # A stored row is one team's (keyed by a foreign key to it): counted without a join.
        return select(func.count(), func.count(), *sums).select_from(_r)
    return (
        select(
            func.count(), func.coalesce(func.sum(case((and_(*conditions), 1), else_=0)), 0), *sums
        )
        .select_from(Team)
        .join(_r, _r.team_id == Team.id)
        .outerjoin(_Manager, _Manager.id == Team.manager_id)
    )


def totals(session: Session, filters: SummaryFilters = SummaryFilters()) -> Totals:
    """Return the organisation's totals and the teams the filters keep, in one query."""
    teams, matching, filled, total, lapsing = (
        plain_rows(session).execute(_totals_statement(filters)).one()
    )
    return Totals(teams, matching, filled, total, lapsing)


@dataclass(frozen=True)
class SummaryPage(Paging):
    """One page of the table, where it sits among the pages, and the organisation's totals."""

    rows: list[SummaryRow]
    totals: Totals
    page: int
    per_page: int

    def _count(self) -> int:
        return self.totals.matching


def summary_page(
    session: Session,
    filters: SummaryFilters = SummaryFilters(),
    sort: str = DEFAULT_SORT,
    descending: bool = False,
    page: int = 1,
    per_page: int = ORGANISATION_PAGE_ROWS,
) -> SummaryPage:
    """Return a page of the table (a page past the end shows the last) and the totals.

    One query when the page holds rows: its rows carry the totals. A page past
    the end (or a table without rows) reads the totals first, then the last page.
    """
    page = max(page, 1)
    connection = plain_rows(session)
    statement = _page_statement(filters, sort, descending, per_page, (page - 1) * per_page)
    found = connection.execute(statement).all()
    if found:
        counted = Totals(*found[0][-len(TOTALS) :])
    else:
        counted = totals(session, filters)
        last = page_count(counted.matching, per_page)
        if page > last:
            page = last
            statement = _page_statement(filters, sort, descending, per_page, (page - 1) * per_page)
            found = connection.execute(statement).all()
    return SummaryPage([SummaryRow.of(row) for row in found], counted, page, per_page)


@lru_cache(maxsize=STATEMENTS_KEPT)
def _page_statement(
    filters: SummaryFilters, sort: str, descending: bool, limit: int, offset: int
) -> Select[Any]:
    # The totals ride along on each row: a one-row subquery, computed once.
    counted = _totals_statement(filters).subquery("totals")
    statement = ordered(summary_statement(filters), order_keys(sort, descending))
    statement = statement.add_columns(*counted.c).join(counted, true())
    return statement.limit(limit).offset(offset)


def rows_of_managers(session: Session, manager_ids: Iterable[int]) -> dict[int, list[SummaryRow]]:
    """Return each manager's teams' rows, by team name (one query)."""
    ids = list(manager_ids)
    found: dict[int, list[SummaryRow]] = {}
    if not ids:
        return found
    statement = ordered(summary_statement(), order_keys(DEFAULT_SORT))
    for row in session.execute(statement.where(Team.manager_id.in_(ids))):
        found.setdefault(row.manager_id, []).append(SummaryRow.of(row))
    return found
