"""Readiness kept between requests and passes (judged lapses, each team's current readiness and
its daily history), and the revisions that invalidate them."""

from __future__ import annotations

import datetime as dt
from itertools import chain
from typing import cast

from sqlalchemy import (
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    event,
    inspect,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship
from sqlalchemy.orm import attributes as orm_attributes

from tracker.db import Base
from tracker.people.models import Engineer, JobRoleAssignment, Team
from tracker.progress.models import Certification


class LapseImpact(Base):
    """How a certification's lapse drops its team's readiness, as judged at the team's revision.

    Only lapses that drop it have a row. The reminder pass writes them when it
    judges a team whose readiness revision it has not judged, and escalates
    from them when the certification's reminders are due.
    """

    __tablename__ = "lapse_impacts"

    certification_id: Mapped[int] = mapped_column(
        ForeignKey("certifications.id", ondelete="CASCADE"), primary_key=True
    )
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    # The certification's expiry when judged (a change to it re-judges the team):
    # the pass finds the lapses in reach by it without reading certifications.
    expires_on: Mapped[dt.date] = mapped_column(Date, index=True)
    impact: Mapped[str] = mapped_column(Text)

    team: Mapped[Team] = relationship()


STAMP_INDEX = "ix_team_readiness_computed_on_catalog_stamp"
# Index name suffix -> the stored columns the organisation table sorts by (not the
# band: a handful of bands, each thousands of teams to sort by name, gain nothing).
SORT_INDEXES = {
    "filled_total": ("filled", "total"),
    "percent_tenths": ("percent_tenths",),
    "lapsing": ("lapsing",),
}


class StoredReadiness(Base):
    """A team's readiness for its own fleet, as computed on a day from its revision and catalog.

    Current while `revision` is the team's readiness revision, `catalog_stamp`
    the catalog's stamp and `computed_on` today: readers recompute the teams for
    which one of the three moved (tracker.readiness.services.current) before
    they read, so a stored row is never shown stale.
    """

    __tablename__ = "team_readiness"
    __table_args__ = (
        CheckConstraint("filled >= 0 AND filled <= total", name="filled_within_total"),
        CheckConstraint("percent_tenths BETWEEN 0 AND 1000", name="percent_in_range"),
        # The organisation table's columns, each a sort: the first page of thousands
        # of teams is read off the index (the team names of equal rows sorted
        # after), not every row sorted.
        *(Index(f"ix_team_readiness_{name}", *columns) for name, columns in SORT_INDEXES.items()),
        # The stale check reads the first and the last row by day and stamp off it: every
        # row is of today and the catalog's stamp when those two are.
        Index(STAMP_INDEX, "computed_on", "catalog_stamp"),
    )

    team_id: Mapped[int] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    revision: Mapped[int] = mapped_column(Integer)
    catalog_stamp: Mapped[str] = mapped_column(String(32))
    computed_on: Mapped[dt.date] = mapped_column(Date)
    # The template chosen for the fleet, and where its band starts (the band's order).
    template_id: Mapped[int] = mapped_column(Integer)
    band_gpus: Mapped[int] = mapped_column(Integer)
    filled: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    # Tenths of a percent: whole numbers sort and page exactly.
    percent_tenths: Mapped[int] = mapped_column(Integer)
    lapsing: Mapped[int] = mapped_column(Integer)
    # The percent of the snapshot the trend compares with (none: no history that far back).
    previous_tenths: Mapped[int | None] = mapped_column(Integer)


class ReadinessMark(Base):
    """A team's readiness revision that its stored row may not be of yet.

    Written by the database (tracker.readiness.ddl) for each new team and each
    new revision, in the writer's transaction; a refresh deletes those its stored
    row covers. The stale check asks whether any is left.
    """

    __tablename__ = "readiness_marks"

    team_id: Mapped[int] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    revision: Mapped[int] = mapped_column(Integer, primary_key=True)


class ReadinessSnapshot(Base):
    """A team's readiness on a day: its last state that day (the daily pass writes every team's)."""

    __tablename__ = "team_readiness_history"
    # The organisation's sum of a day reads that day's rows.
    __table_args__ = (Index("ix_team_readiness_history_day", "day"),)

    team_id: Mapped[int] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[dt.date] = mapped_column(Date, primary_key=True)
    filled: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    percent_tenths: Mapped[int] = mapped_column(Integer)
    lapsing: Mapped[int] = mapped_column(Integer)


class OrganisationSnapshot(Base):
    """The whole organisation's readiness on a day: the sum of its teams' that day."""

    __tablename__ = "organisation_readiness_history"

    day: Mapped[dt.date] = mapped_column(Date, primary_key=True)
    teams: Mapped[int] = mapped_column(Integer)
    filled: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    percent_tenths: Mapped[int] = mapped_column(Integer)
    lapsing: Mapped[int] = mapped_column(Integer)


# What a team's readiness reads of its members (the catalog has its own version).
_ENGINEER_FIELDS = ("team_id", "active", "level")


def _history_values(obj: object, name: str) -> set:
    history = orm_attributes.get_history(obj, name)
    return {v for v in chain(history.added, history.deleted, history.unchanged) if v is not None}


def touched_teams(session: Session) -> tuple[set[int], set[int]]:
    """Return (team ids, engineer ids) whose readiness the pending flush may change."""
    teams: set[int] = set()
    engineers: set[int] = set()
    for obj in chain(session.new, session.deleted, session.dirty):
        if isinstance(obj, Certification | JobRoleAssignment):
            if obj in session.dirty and not session.is_modified(obj):
                continue
            engineers |= _history_values(obj, "engineer_id")
        elif isinstance(obj, Engineer):
            state = inspect(obj)
            if obj in session.dirty and not any(
                state.attrs[name].history.has_changes() for name in _ENGINEER_FIELDS
            ):
                continue
            # Both teams when someone moves: the one they leave and the one they join.
            teams |= _history_values(obj, "team_id")
        elif (
            # A new team starts with a revision it has not been judged at.
            isinstance(obj, Team)
            and obj not in session.new
            and inspect(obj).attrs.gpus.history.has_changes()
        ):
            teams.add(obj.id)
    return teams, engineers


def bump_readiness_revisions(session: Session, teams: set[int], engineers: set[int]) -> None:
    """Give those teams (and the teams of those engineers) a new readiness revision."""
    if not teams and not engineers:
        return
    # The mapped class's __table__ is typed as any FromClause; teams' is a Table.
    table = cast(Table, Team.__table__)
    conditions = []
    if teams:
        conditions.append(table.c.id.in_(sorted(teams)))
    if engineers:
        conditions.append(
            table.c.id.in_(
                select(Engineer.__table__.c.team_id).where(
                    Engineer.__table__.c.id.in_(sorted(engineers))
                )
            )
        )
    session.connection().execute(
        update(table)
        .where(or_(*conditions))
        .values(readiness_revision=table.c.readiness_revision + 1)
    )


@event.listens_for(Session, "after_flush")
def _readiness_inputs_written(session: Session, flush_context) -> None:
    """Bump the readiness revision of the teams an ORM flush changed (new, dirty, deleted)."""
    bump_readiness_revisions(session, *touched_teams(session))
