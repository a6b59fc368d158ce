"""Each team's readiness kept current: stored per team and day, recomputed when its inputs move.

A team's stored row (`StoredReadiness`) names the readiness revision, the
catalog stamp and the day it was computed from. Every change that can move a
team's readiness bumps its revision in the writing transaction
(tracker.readiness.models), a catalog write changes the stamp, and the passing
day lapses certifications and moves the 90-day window: a row that differs from
the team's current three is stale. The database marks each new revision
(tracker.readiness.ddl), so asking whether anything is stale reads the marks
left and two stored rows, not every team. Readers call `up_to_date` first, which
recomputes only the stale teams (in batches, the members of TEAMS_PER_BATCH
teams a query) and stores them, so a page costs what changed plus its reads,
and shows nothing stale. The daily pass and a job at midnight run
`day_boundary`, a unit of work per TEAMS_PER_COMMIT teams. Each refresh also
writes the day's snapshot of the teams it recomputed and the organisation's
sum (the history the trend charts draw).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Date,
    Select,
    bindparam,
    delete,
    exists,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from tracker.catalog.services.snapshot import (
    STAMP_QUERY,
    TemplateInfo,
    catalog_snapshot,
    keep_catalog_stamp,
)
from tracker.db import WRITE_INTENT, plain_rows, sql_literal, writing
from tracker.people.models import Team
from tracker.readiness.models import (
    OrganisationSnapshot,
    ReadinessMark,
    ReadinessSnapshot,
    StoredReadiness,
)
from tracker.readiness.rules import PERCENT_TENTHS, TEAMS_PER_BATCH, TEAMS_PER_COMMIT, TREND_DAYS
from tracker.readiness.services.matching import (
    choose_template,
    filled_percent,
    judge,
    kuhn,
    seat_candidates,
    template_seats,
)
from tracker.readiness.services.members import Member, load_members
from tracker.readiness.services.organisation import lapsing_count


def percent_tenths(filled: int, total: int) -> int:
    """Return the share of seats filled in whole tenths of a percent (1000 for no seats)."""
    return round(filled_percent(filled, total) * PERCENT_TENTHS)


def seats_filled(
    members: Sequence[Member], templates: Sequence[TemplateInfo], gpus: int, on: dt.date
) -> tuple[TemplateInfo, int, int]:
    """Return the fleet's template, the seats a maximum matching fills on `on`, and its seats.

    What `readiness` counts, without the gaps' nearest candidates.
    """
    template = choose_template(templates, gpus)
    seats = template_seats(template)
    matching = kuhn(seat_candidates(template, seats, judge(members, on)))
    return template, len(matching), len(seats)


def _current_stamp() -> ColumnElement[Any]:
    return func.coalesce(STAMP_QUERY.scalar_subquery(), "")


def _stale(
    stamp: ColumnElement[Any] | str, today: dt.date | ColumnElement[dt.date]
) -> ColumnElement[bool]:
    """The condition "the team's stored readiness is missing or not of its current inputs"."""
    r = StoredReadiness
    return or_(
        r.team_id.is_(None),
        r.revision != Team.readiness_revision,
        r.catalog_stamp != stamp,
        r.computed_on != today,
    )


def _stale_teams(
    stamp: str, today: dt.date, every: bool, team_ids: Sequence[int] | None
) -> Select[tuple[int, int, int]]:
    query = select(Team.id, Team.readiness_revision, Team.gpus).order_by(Team.id)
    if team_ids is not None:
        query = query.where(Team.id.in_(team_ids))
    if every:
        return query
    return query.outerjoin(StoredReadiness, StoredReadiness.team_id == Team.id).where(
        _stale(stamp, today)
    )


def _end_row(column: Any, last: bool) -> Any:
    """The stored rows' first (or last) `column` by day and catalog stamp (an index probe)."""
    r = StoredReadiness
    order = (r.computed_on, r.catalog_stamp)
    return (
        select(column)
        .order_by(*(c.desc() if last else c for c in order))
        .limit(sql_literal(1))
        .scalar_subquery()
    )


def _any_stale_statement() -> Select[Any]:
    """The marks outstanding, the stored rows' first and last day and stamp, the stamp.

    Every row is of today and the catalog's stamp when the first and the last are
    (in that order): a few index probes, whatever the organisation's size.
    """
    r = StoredReadiness
    # The catalog's stamp rides along: the page reads the catalog next.
    return select(
        exists(select(ReadinessMark.team_id)),
        *(_end_row(c, last) for last in (False, True) for c in (r.computed_on, r.catalog_stamp)),
        STAMP_QUERY.scalar_subquery(),
    )


def _any_of_stale_statement() -> Select[Any]:
    r = StoredReadiness
    teams: BindParameter[list[int]] = bindparam("team_ids", expanding=True)
    stale = exists(select(ReadinessMark.team_id).where(ReadinessMark.team_id.in_(teams))) | exists(
        select(r.team_id).where(
            r.team_id.in_(teams),
            or_(
                r.catalog_stamp != _current_stamp(),
                r.computed_on != bindparam("today", type_=Date),
            ),
        )
    )
    return select(stale, STAMP_QUERY.scalar_subquery())


# Kept statements (see tracker.db.plain_rows).
_ANY_STALE = _any_stale_statement()
_ANY_OF_STALE = _any_of_stale_statement()


def any_stale(session: Session, today: dt.date, team_ids: Sequence[int] | None = None) -> bool:
    """Return whether some team's (of `team_ids`) stored readiness is not current (one query).

    A team is stale while a mark of its revision is left (tracker.readiness.ddl: a
    new team has one until its row is stored), or its row is of another day or
    catalog.
    """
    if team_ids is None:
        marked, *ends, stamp = plain_rows(session).execute(_ANY_STALE).one()
        keep_catalog_stamp(session, stamp)
        days, stamps = ends[0::2], ends[1::2]
        current = stamp or ""
        return bool(marked) or any(
            day not in (None, today) or end not in (None, current)
            for day, end in zip(days, stamps, strict=True)
        )
    found, stamp = (
        plain_rows(session)
        .execute(_ANY_OF_STALE, {"today": today, "team_ids": list(team_ids)})
        .one()
    )
    keep_catalog_stamp(session, stamp)
    return bool(found)


def refresh(
    session: Session,
    today: dt.date,
    *,
    every: bool = False,
    team_ids: Sequence[int] | None = None,
) -> int:
    """Recompute and store the readiness of each team not current on `today`; return how many.

    `every` recomputes every team; `team_ids` looks at those teams only (a
    team's page). The organisation's sum of the day moves by what the
    recomputed teams changed (see `_update_organisation_day`). The
    revisions are read before the members: a change committed in between
    leaves the row of an older revision, which the next reader recomputes
    (never a newer revision over older members).
    Flushes; the caller commits.
    """
    catalog = catalog_snapshot(session)
    if not catalog.templates:
        return 0
    stamp = catalog.stamp or ""
    stale = session.execute(_stale_teams(stamp, today, every, team_ids)).tuples().all()
    # What the recomputed teams add to the organisation's sum of the day, from their
    # snapshots of the day before and after; None once a team had none today.
    change: list[int] | None = [0, 0, 0]
    for start in range(0, len(stale), TEAMS_PER_BATCH):
        batch = stale[start : start + TEAMS_PER_BATCH]
        ids = [team_id for team_id, _, _ in batch]
        members = load_members(session, ids, catalog.credentials)
        previous = _previous_percents(session, ids, today)
        before = _snapshots_of_day(session, ids, today) if change is not None else {}
        rows = []
        counts: dict[int, tuple[int, int, int]] = {}
        for team_id, revision, gpus in batch:
            team_members = members.get(team_id, [])
            template, filled, total = seats_filled(team_members, catalog.templates, gpus, today)
            lapsing = lapsing_count(team_members, today)
            counts[team_id] = (filled, total, lapsing)
            rows.append(
                {
                    "team_id": team_id,
                    "revision": revision,
                    "catalog_stamp": stamp,
                    "computed_on": today,
                    "template_id": template.id,
                    "band_gpus": template.min_gpus,
                    "filled": filled,
                    "total": total,
                    "percent_tenths": percent_tenths(filled, total),
                    "lapsing": lapsing,
                    "previous_tenths": previous.get(team_id),
                }
            )
        # Never over a row of a newer revision (a racing refresh that read later): the
        # teams it kept are left out of the day's snapshots and the sum as well.
        written = _upsert(
            session,
            StoredReadiness,
            rows,
            ("team_id",),
            where=lambda excluded: StoredReadiness.revision <= excluded.revision,
        )
        session.execute(_covered_marks(ids))
        if len(written) < len(rows):
            rows = [row for row in rows if row["team_id"] in written]
            counts = {team_id: counts[team_id] for team_id in written}
        history = [
            {k: row[k] for k in ("team_id", "filled", "total", "percent_tenths", "lapsing")}
            | {"day": today}
            for row in rows
        ]
        _upsert(session, ReadinessSnapshot, history, ("team_id", "day"))
        if change is not None and counts.keys() <= before.keys():
            for team_id, now in counts.items():
                for i, (value, was) in enumerate(zip(now, before[team_id], strict=True)):
                    change[i] += value - was
        else:
            change = None
    if stale:
        _update_organisation_day(session, today, change, every_team=team_ids is None)
    return len(stale)


def _snapshots_of_day(
    session: Session, team_ids: Sequence[int], day: dt.date
) -> dict[int, tuple[int, int, int]]:
    """Return the teams' (filled, total, lapsing) of `day` that are stored, locked to the commit.

    Locked, a refresh racing this one for the same team waits, then reads what
    this one wrote: each adds its own change to the organisation's sum once.
    """
    h = ReadinessSnapshot
    return {
        team_id: (filled, total, lapsing)
        for team_id, filled, total, lapsing in session.execute(
            select(h.team_id, h.filled, h.total, h.lapsing)
            .where(h.team_id.in_(list(team_ids)), h.day == day)
            .order_by(h.team_id)
            .with_for_update()
        ).tuples()
    }


def _update_organisation_day(
    session: Session, day: dt.date, change: list[int] | None, *, every_team: bool
) -> None:
    """Bring the organisation's sum of `day` up to date after some teams were recomputed.

    By the teams' change when each had a snapshot that day already (a few
    rows, at any organisation size); else summed again from every team's
    snapshot. A refresh of some teams leaves a day without a sum yet to the
    refresh of every team (the others are stale on a new day).
    """
    o = OrganisationSnapshot
    stored = session.execute(
        select(o.filled, o.total, o.lapsing).where(o.day == day).with_for_update()
    ).one_or_none()
    if stored is None:
        if every_team:
            store_organisation_day(session, day)
        return
    if change is None:
        store_organisation_day(session, day)
        return
    filled, total, lapsing = (value + delta for value, delta in zip(stored, change, strict=True))
    session.execute(
        update(o)
        .where(o.day == day)
        .values(
            filled=filled,
            total=total,
            lapsing=lapsing,
            percent_tenths=percent_tenths(filled, total),
        )
    )


def store_organisation_day(session: Session, day: dt.date) -> None:
    """Write the organisation's snapshot of `day`: the sum of its teams' snapshots that day."""
    h = ReadinessSnapshot
    teams, filled, total, lapsing = session.execute(
        select(
            func.count(),
            func.coalesce(func.sum(h.filled), 0),
            func.coalesce(func.sum(h.total), 0),
            func.coalesce(func.sum(h.lapsing), 0),
        ).where(h.day == day)
    ).one()
    if not teams:
        return
    _upsert(
        session,
        OrganisationSnapshot,
        [
            {
                "day": day,
                "teams": teams,
                "filled": filled,
                "total": total,
                "percent_tenths": percent_tenths(filled, total),
                "lapsing": lapsing,
            }
        ],
        ("day",),
    )


def _previous_percents(session: Session, team_ids: Iterable[int], today: dt.date) -> dict[int, int]:
    """Return each team's percent in its latest snapshot TREND_DAYS or more before `today`.

    No older than twice TREND_DAYS: a team without a snapshot that recent has no trend.
    """
    h = ReadinessSnapshot
    latest = (
        select(h.team_id, func.max(h.day).label("day"))
        .where(
            h.team_id.in_(list(team_ids)),
            h.day <= today - dt.timedelta(days=TREND_DAYS),
            h.day >= today - dt.timedelta(days=2 * TREND_DAYS),
        )
        .group_by(h.team_id)
        .subquery()
    )
    return dict(
        session.execute(
            select(h.team_id, h.percent_tenths).join(
                latest, (latest.c.team_id == h.team_id) & (latest.c.day == h.day)
            )
        )
        .tuples()
        .all()
    )


def _covered_marks(team_ids: Sequence[int]) -> Any:
    """Delete the teams' marks their stored rows cover: those of their revision or older.

    A mark of a revision committed after the refresh read the team's stays:
    the team is stale until the next refresh stores that revision.
    """
    m, r = ReadinessMark, StoredReadiness
    covered = select(r.revision).where(r.team_id == m.team_id).scalar_subquery()
    return delete(m).where(m.team_id.in_(list(team_ids)), m.revision <= covered)


def _upsert(
    session: Session,
    entity: type[Any],
    rows: list[dict[str, Any]],
    keys: tuple[str, ...],
    where: Callable[[Any], ColumnElement[bool]] | None = None,
) -> set[Any]:
    """Insert `rows`, replacing those whose `keys` are already stored (safe against a racer).

    `where`, given the rows offered (`excluded`), says which stored rows they replace.
    Return the first key of each row written.
    """
    if not rows:
        return set()
    insert = (
        postgresql.insert(entity)
        if session.get_bind().dialect.name == "postgresql"
        else sqlite.insert(entity)
    )
    statement = insert.values(rows)
    statement = statement.on_conflict_do_update(
        index_elements=list(keys),
        set_={name: statement.excluded[name] for name in rows[0] if name not in keys},
        where=None if where is None else where(statement.excluded),
    )
    key = getattr(entity, keys[0])
    return set(session.execute(statement.returning(key)).scalars())


def up_to_date(
    session: Session,
    factory: sessionmaker[Session],
    today: dt.date,
    team_ids: Sequence[int] | None = None,
) -> int:
    """Bring the stored readiness up to date before a request reads it; return how many changed.

    Every team's, or those of `team_ids` (a team's page). When nothing
    moved, one query. Otherwise the stale teams are recomputed in a unit of
    work of their own, committed at once (its row locks held briefly, and no
    read-only request turned into a writer), then the
    request's read transaction ends so that its next read sees them (SQLite
    reads from the snapshot its transaction began with). A request that
    already writes (an API call: on SQLite it holds the write lock) refreshes
    in its own transaction, which its boundary commits.
    """
    if not any_stale(session, today, team_ids):
        return 0
    if WRITE_INTENT.get():
        changed = refresh(session, today, team_ids=team_ids)
        session.flush()
        return changed
    with writing(), factory() as writer, writer.begin():
        changed = refresh(writer, today, team_ids=team_ids)
    session.commit()
    return changed


def stale_team_ids(session: Session, today: dt.date) -> list[int]:
    """Return the ids of the teams whose stored readiness is not current on `today`, in order."""
    catalog = catalog_snapshot(session)
    if not catalog.templates:
        return []
    query = _stale_teams(catalog.stamp or "", today, False, None)
    return [team_id for team_id, _, _ in session.execute(query).tuples()]


def day_boundary(factory: sessionmaker[Session], today: dt.date) -> int:
    """Bring every team to `today` (the day's lapses) and close the organisation's sums.

    The daily pass and the midnight job run it; return how many teams were
    recomputed. The teams stale when it starts are recomputed TEAMS_PER_COMMIT
    at a time, each unit of work committed at once: a page read meanwhile
    waits for one unit's row locks at most, and finds the teams done so far
    current. Then today's and yesterday's organisation snapshots are summed
    again from their teams' snapshots: the units leave a new day without a sum
    (as a team's page does), and a refresh that raced another yesterday leaves
    no sum short of one of them.
    """
    with factory() as session:
        stale = stale_team_ids(session, today)
    changed = 0
    for start in range(0, len(stale), TEAMS_PER_COMMIT):
        with writing(), factory() as session, session.begin():
            changed += refresh(session, today, team_ids=stale[start : start + TEAMS_PER_COMMIT])
    with writing(), factory() as session, session.begin():
        store_organisation_day(session, today)
        store_organisation_day(session, today - dt.timedelta(days=1))
    return changed
