"""Hours: logging, changing and deleting hour log entries.

log_hours is the one way an entry is written, whoever logs it (the hours page,
the API, the CSV import, the demo); its statements are built once in
tracker.progress.services.hours_sql, its checks are in hours_checks.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tracker.audit import services as audit
from tracker.catalog.models.credentials import Course
from tracker.clock import utcnow
from tracker.errors import ValidationError
from tracker.people.models import Engineer
from tracker.people.schemas import PersonRef
from tracker.progress.models import HourLog
from tracker.progress.rules import HOURS_PER_DAY
from tracker.progress.services.hours_checks import (
    check_hours,
    day_full,
    overfills_a_day,
    refuse_course,
)
from tracker.progress.services.hours_sql import (
    FIND_COURSE,
    HOURS_LOGGED,
    INSERT_WITHIN_DAY,
    INSERT_WITHIN_DAY_AUDITED,
    day_total,
    entry_after,
    entry_binds,
)
from tracker.webhooks.schemas import CourseRef, HoursLoggedData
from tracker.webhooks.services import events as webhooks


class Identified(Protocol):
    """Who acts: anything with an engineer's id (an Engineer, the API's caller)."""

    @property
    def id(self) -> int: ...


class HoursOwner(Protocol):
    """The engineer whose hours are logged: their id, name and hire date."""

    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def hired_on(self) -> dt.date | None: ...


@dataclass(frozen=True)
class LoggedHours:
    """An hour log entry log_hours wrote: its columns and course, no ORM objects."""

    id: int
    engineer_id: int
    course_id: int
    course_code: str
    course_title: str
    logged_on: dt.date
    hours: Decimal
    note: str
    created_at: dt.datetime


@dataclass(frozen=True)
class CourseFound:
    """The course an hour log names: nulls when unknown."""

    id: int | None
    code: str | None
    title: str | None


def _hours_logged(session: Session, entry: LoggedHours, engineer_name: str) -> None:
    """Queue the entry's hours.logged event for the endpoints that take it."""
    if not webhooks.subscribers(session, HOURS_LOGGED):
        return
    data = HoursLoggedData(
        id=entry.id,
        engineer=PersonRef(id=entry.engineer_id, name=engineer_name),
        course=CourseRef(id=entry.course_id, code=entry.course_code, title=entry.course_title),
        date=entry.logged_on,
        hours=entry.hours,
        note=entry.note,
    )
    webhooks.queue_event(session, HOURS_LOGGED, data, entry.created_at)


def log_hours(
    session: Session,
    engineer: HoursOwner,
    course: Course | CourseFound | None,
    logged_on: dt.date,
    hours: Decimal,
    today: dt.date,
    note: str = "",
    actor: Identified | None = None,
    *,
    course_code: str | None = None,
    course_id: int | None = None,
    alone: bool = False,
) -> LoggedHours:
    """Log hours on a course; refused when the day's total would pass HOURS_PER_DAY.

    Without `course`, the course is found by `course_code` (any case) or
    `course_id`. The entry and its audit event take two statements (one on
    PostgreSQL when `alone`), and one more when the day is full (its total,
    for the message).

    The entry is written in a savepoint, so a day a racing writer filled is
    refused without undoing the rest of the transaction (an import's other
    rows). `alone` says the entry is the transaction's only write, as in an
    API request: no savepoint (it costs two round trips), and when a racing
    writer fills the day first the transaction is rolled back.
    """
    check_hours(engineer.hired_on, logged_on, hours, today, note)
    session.flush()  # Core statements do not flush what the session holds
    if course is None:
        course = _find_course(session, course_code, course_id)
    assert course.id is not None and course.code is not None and course.title is not None
    entry = LoggedHours(
        0,
        engineer.id,
        course.id,
        course.code,
        course.title,
        logged_on,
        hours,
        note.strip(),
        utcnow(),
    )
    actor_id = actor.id if actor is not None else None
    if alone:
        try:
            entry_id = _insert_entry(session, entry, actor_id)
        except IntegrityError as exc:
            if not overfills_a_day(exc):
                raise
            session.rollback()
            entry_id = None
    else:
        try:
            with session.begin_nested():
                entry_id = _insert_entry(session, entry, actor_id, in_one=False)
        except IntegrityError as exc:
            if not overfills_a_day(exc):
                raise
            entry_id = None
    if entry_id is None:
        raise day_full(logged_on, day_total(session, engineer.id, logged_on))
    logged = dataclasses.replace(entry, id=entry_id)
    _hours_logged(session, logged, engineer.name)
    return logged


def _find_course(session: Session, course_code: str | None, course_id: int | None) -> CourseFound:
    found = (
        session.connection()
        .execute(
            FIND_COURSE,
            {"course_code": course_code and course_code.upper(), "course_id": course_id},
        )
        .first()
    )
    if found is None:
        raise refuse_course(course_code, course_id)
    return CourseFound(*found)


def _insert_entry(
    session: Session, entry: LoggedHours, actor_id: int | None, in_one: bool = True
) -> int | None:
    """Insert the entry and its audit event unless its day is full; the entry's id, or None.

    On PostgreSQL, and `in_one`, the entry and its audit event are one statement.
    Otherwise the audit event is inserted after the savepoint that holds the entry.
    """
    binds = entry_binds(entry.logged_on, entry.hours, entry.note, entry.created_at)
    binds.update(engineer_id=entry.engineer_id, course_id=entry.course_id)
    connection = session.connection()
    entry_id: int | None
    if in_one and connection.dialect.name == "postgresql":
        entry_id = connection.execute(
            INSERT_WITHIN_DAY_AUDITED, {**binds, "actor_id": actor_id}
        ).scalar()
        return entry_id
    entry_id = connection.execute(INSERT_WITHIN_DAY, binds).scalar()
    if entry_id is not None:
        after = {
            "id": entry_id,
            "engineer_id": entry.engineer_id,
            "course_id": entry.course_id,
            **entry_after(entry.logged_on, entry.hours, entry.note, entry.created_at),
        }
        audit.record_row(session, actor_id, "hour_logs", entry_id, "create", after=after)
    return entry_id


def day_overfilled(
    session: Session,
    engineer_id: int,
    logged_on: dt.date,
    hours: Decimal,
    replacing: HourLog | None = None,
) -> ValidationError | None:
    """Return the error of hours that would overfill their day, if they would.

    `replacing` is the entry they replace (its own hours leave the day).
    """
    session.flush()
    total = day_total(session, engineer_id, logged_on)
    if replacing is not None and replacing.logged_on == logged_on:
        total -= replacing.hours
    return day_full(logged_on, total) if total + hours > HOURS_PER_DAY else None


@contextmanager
def _within_day(session: Session, engineer_id: int, logged_on: dt.date) -> Iterator[None]:
    """Write the block's changes in a savepoint; a day a racing writer filled is the usual error.

    The savepoint keeps the rest of the transaction (an import's other rows)
    when the database refuses the day.
    """
    session.flush()  # what came before is not the savepoint's to undo
    try:
        with session.begin_nested():
            yield
    except IntegrityError as exc:
        if not overfills_a_day(exc):
            raise
        raise day_full(logged_on, day_total(session, engineer_id, logged_on)) from None


def update_hours(
    session: Session,
    entry: HourLog,
    course: Course,
    logged_on: dt.date,
    hours: Decimal,
    today: dt.date,
    note: str = "",
    actor: Engineer | None = None,
) -> HourLog:
    """Change an hour log entry under the same rules; the audit trail keeps the old values."""
    check_hours(entry.engineer.hired_on, logged_on, hours, today, note)
    overfilled = day_overfilled(session, entry.engineer_id, logged_on, hours, replacing=entry)
    if overfilled is not None:
        raise overfilled
    before = audit.snapshot(entry)
    with _within_day(session, entry.engineer_id, logged_on):
        entry.course_id = course.id
        entry.logged_on = logged_on
        entry.hours = hours
        entry.note = note.strip()
    audit.record(session, actor.id if actor else None, entry, "update", before)
    return entry


def delete_hours(session: Session, entry: HourLog, actor: Engineer | None = None) -> None:
    """Delete an hour log entry; the audit trail keeps what it held."""
    before = audit.snapshot(entry)
    audit.record(session, actor.id if actor else None, entry, "delete", before)
    session.delete(entry)
    session.flush()
