"""Hours: logging, changing and deleting hour log entries, and each day's total.

log_hours is the one way an entry is written, whoever logs it (the hours page,
the API, the CSV import, the demo); the API's one-statement path for an
engineer's own hours is built from the same insert (hours_logged_by).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import (
    JSON,
    ColumnElement,
    Date,
    DateTime,
    Integer,
    Select,
    String,
    bindparam,
    func,
    insert,
    literal_column,
    or_,
    select,
    true,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.selectable import CTE

from tracker.audit import services as audit
from tracker.catalog.models import Course
from tracker.catalog.rules import DECIMAL_PLACES, HUNDREDTH
from tracker.clock import utcnow
from tracker.db import Base, sql_literal
from tracker.errors import ValidationError
from tracker.i18n import N_, amount, day, msg
from tracker.people.models import Engineer
from tracker.people.schemas import PersonRef
from tracker.progress.ddl import DAY_CHECK
from tracker.progress.models import HourDay, HourLog
from tracker.progress.rules import (
    HOURS_PER_DAY,
    HOURS_PER_DAY_TEXT,
    HOURS_RANGE_TEXT,
    MAX_NOTE_LENGTH,
)
from tracker.schemas import json_number
from tracker.webhooks.schemas import CourseRef, HoursLoggedData
from tracker.webhooks.services import events as webhooks

HOURS_LOGGED = "hours.logged"


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


def check_hours(
    hired_on: dt.date | None, logged_on: dt.date, hours: Decimal, today: dt.date, note: str
) -> None:
    """Refuse an entry's hours, date (not in the future, nor before the hire date) or note."""
    errors: dict[str, str] = {}
    if not isinstance(hours, Decimal) or not hours.is_finite():
        errors["hours"] = N_("hours must be a number")
    elif hours <= 0 or hours > HOURS_PER_DAY:
        errors["hours"] = HOURS_RANGE_TEXT
    elif hours != hours.quantize(HUNDREDTH):
        errors["hours"] = msg("hours must have at most %(places)s decimals", places=DECIMAL_PLACES)
    if logged_on > today:
        errors["logged_on"] = N_("date must not be in the future")
    elif hired_on and logged_on < hired_on:
        errors["logged_on"] = msg(
            "date must not be before the hire date %(date)s", date=day(hired_on)
        )
    if len(note.strip()) > MAX_NOTE_LENGTH:
        errors["note"] = msg("note must be at most %(most)s characters", most=MAX_NOTE_LENGTH)
    if errors:
        raise ValidationError(errors)


# A day holds at most HOURS_PER_DAY whatever writes it: hour_days keeps every
# engineer's total per day (triggers on hour_logs) and its check refuses one
# hour more. Writers racing for one day take turns on the day's row, so the
# second sees the first's hours and is refused; nothing locks the engineer.
# The writers check the total in the statement that inserts the entry for the
# usual message, and turn the database's refusal, which only a racing writer
# meets, into the same message.
#
# The hour-logging statements are Core statements on the tables, built once:
# the API logs hours on its hot path, where ORM loading, flushing and
# statement building cost more than the database work.
_courses = Base.metadata.tables[Course.__tablename__]
_hour_logs = Base.metadata.tables[HourLog.__tablename__]
_hour_days = Base.metadata.tables[HourDay.__tablename__]


def _day_total_of(engineer_id: ColumnElement[Any]) -> ColumnElement[Any]:
    """The hours logged on :logged_on by an engineer: the total hour_days keeps."""
    return func.coalesce(
        select(_hour_days.c.hours)
        .where(
            _hour_days.c.engineer_id == engineer_id,
            _hour_days.c.logged_on == bindparam("logged_on", type_=Date),
        )
        .scalar_subquery(),
        sql_literal(0),
    )


_DAY_TOTAL = select(_day_total_of(bindparam("engineer_id", type_=Integer)))
# The course an entry names, by code (any case) or by id.
COURSE_NAMED = or_(
    func.upper(_courses.c.code) == bindparam("course_code", type_=String),
    _courses.c.id == bindparam("course_id", type_=Integer),
)
_FIND_COURSE = select(_courses.c.id, _courses.c.code, _courses.c.title).where(COURSE_NAMED)
_ENTRY_COLUMNS = [c.name for c in _hour_logs.c if c.name != "id"]


def _entry_insert(
    engineer_id: ColumnElement[Any], course_id: ColumnElement[Any], *conditions: Any
) -> ReturningInsert[Any]:
    """The insert of a new entry, when the day has room for it and `conditions` hold.

    The day's total and the insert are one statement, so the check costs no
    round trip; hour_days' check still refuses the entry if a racing writer
    fills the day first. It binds entry_binds()' names but `after`, and
    returns the entry's id, engineer_id and course_id.
    """
    hours_type = _hour_logs.c.hours.type
    rows: Select[Any] = select(
        engineer_id,
        course_id,
        bindparam("logged_on", type_=Date),
        bindparam("hours", type_=hours_type),
        bindparam("note", type_=String),
        bindparam("now", type_=DateTime),
        bindparam("now", type_=DateTime),
    ).where(_day_total_of(engineer_id) <= bindparam("room_below", type_=hours_type), *conditions)
    return (
        insert(_hour_logs)
        .from_select(_ENTRY_COLUMNS, rows)
        .returning(_hour_logs.c.id, _hour_logs.c.engineer_id, _hour_logs.c.course_id)
    )


_INSERT_WITHIN_DAY = _entry_insert(
    bindparam("engineer_id", type_=Integer), bindparam("course_id", type_=Integer)
)
# PostgreSQL inserts the entry and its audit event in one statement; SQLite
# (no INSERT inside WITH) takes two.
_INSERT_WITHIN_DAY_AUDITED = audit.insert_for_returned(
    _INSERT_WITHIN_DAY.cte("entry"), "hour_logs", "create", columns=("engineer_id", "course_id")
)


def hours_logged_by(finder: CTE, *conditions: ColumnElement[bool]) -> Select[Any]:
    """Return one statement that logs hours for the engineer a CTE finds (PostgreSQL).

    `finder` returns at most one row, with the columns engineer_id, name,
    hired_on, course_id (null when no course matches), code and title. The
    statement inserts the entry (log_hours' insert), its audit event with the
    engineer as actor and its hours.logged webhook deliveries, when the course
    exists, the date is not before the hire date, the day has room and
    `conditions` (on finder's columns) hold; it returns finder's columns and
    the entry's id (null when nothing was inserted). It binds what
    entry_binds() and webhook_binds() give. The API logs an engineer's own
    hours this way, finding them by their token.
    """
    entry = _entry_insert(
        finder.c.engineer_id,
        finder.c.course_id,
        finder.c.course_id.is_not(None),
        or_(finder.c.hired_on.is_(None), finder.c.hired_on <= bindparam("logged_on")),
        *conditions,
    ).cte("entry")
    event = audit.insert_for_returned(
        entry,
        "hour_logs",
        "create",
        columns=("engineer_id", "course_id"),
        actor=entry.c.engineer_id,
    ).cte("event")
    deliveries = webhooks.insert_for_returned(
        entry.join(finder, true()), HOURS_LOGGED, _hours_payload(entry, finder)
    ).cte("webhooks")
    return (
        select(finder, entry.c.id.label("entry_id"))
        .select_from(finder.outerjoin(entry, true()))
        .add_cte(event)
        .add_cte(deliveries)
    )


def _key(name: str) -> ColumnElement[str]:
    # Written into the SQL: a bound key would leave jsonb_build_object without its type.
    return literal_column(f"'{name}'")


def _hours_payload(entry: CTE, finder: CTE) -> ColumnElement[Any]:
    """The hours.logged payload, in SQL: HoursLoggedData's shape (see _hours_logged)."""
    read = func.jsonb_build_object(
        _key("id"),
        entry.c.id,
        _key("engineer"),
        func.jsonb_build_object(_key("id"), entry.c.engineer_id, _key("name"), finder.c.name),
        _key("course"),
        func.jsonb_build_object(
            _key("id"),
            entry.c.course_id,
            _key("code"),
            finder.c.code,
            _key("title"),
            finder.c.title,
        ),
    )
    data = sql_cast(bindparam("webhook_data", type_=JSON), JSONB).op("||")(read)
    return sql_cast(
        func.jsonb_build_object(
            _key("type"),
            _key(HOURS_LOGGED),
            _key("timestamp"),
            bindparam("webhook_timestamp", type_=String),
            _key("data"),
            data,
        ),
        JSON,
    )


def webhook_binds(
    logged_on: dt.date, hours: Decimal, note: str, now: dt.datetime
) -> dict[str, object]:
    """Return the binds of hours_logged_by's webhook deliveries: what the payload takes of them."""
    return {
        "webhook_id_prefix": webhooks.message_prefix(),
        "webhook_timestamp": webhooks.timestamp(now),
        "webhook_data": {
            "date": logged_on.isoformat(),
            "hours": json_number(hours),
            "note": note,
        },
    }


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


def entry_binds(
    logged_on: dt.date, hours: Decimal, note: str, now: dt.datetime
) -> dict[str, object]:
    """Return the binds, but the engineer's and the course's, of the statements writing an entry.

    `after` is what the audit trail records of the entry (snapshot()'s
    columns) but its id, engineer_id and course_id.
    """
    return {
        "logged_on": logged_on,
        "hours": hours,
        "note": note,
        "now": now,
        "room_below": HOURS_PER_DAY - hours,
        "after": _after(logged_on, hours, note, now),
    }


def _after(logged_on: dt.date, hours: Decimal, note: str, now: dt.datetime) -> dict[str, Any]:
    return audit.jsonable(
        {"logged_on": logged_on, "hours": hours, "note": note, "created_at": now, "updated_at": now}
    )


def day_total(session: Session, engineer_id: int, logged_on: dt.date) -> Decimal:
    """Return the hours an engineer has logged on a day."""
    total: Decimal = (
        session.connection()
        .execute(_DAY_TOTAL, {"engineer_id": engineer_id, "logged_on": logged_on})
        .scalar_one()
    )
    return total


def overfills_a_day(exc: IntegrityError) -> bool:
    """Return whether the database refused a write for passing the hours a day holds."""
    return DAY_CHECK in str(exc.orig)


def day_full(logged_on: dt.date, total: Decimal) -> ValidationError:
    """Return the error of an entry that does not fit in its day."""
    return ValidationError(
        {
            "hours": msg(
                "%(rule)s; %(total)s h are already logged on %(date)s",
                rule=HOURS_PER_DAY_TEXT,
                total=amount(total),
                date=day(logged_on),
            )
        }
    )


def refuse_course(course_code: str | None, course_id: int | None) -> ValidationError:
    """Return the error of an entry naming no known course."""
    if course_code is not None:
        return ValidationError({"course": msg("unknown course code %(code)r", code=course_code)})
    return ValidationError({"course_id": msg("no course with id %(id)s", id=course_id)})


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
            _FIND_COURSE,
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
            _INSERT_WITHIN_DAY_AUDITED, {**binds, "actor_id": actor_id}
        ).scalar()
        return entry_id
    entry_id = connection.execute(_INSERT_WITHIN_DAY, binds).scalar()
    if entry_id is not None:
        after = {
            "id": entry_id,
            "engineer_id": entry.engineer_id,
            "course_id": entry.course_id,
            **_after(entry.logged_on, entry.hours, entry.note, entry.created_at),
        }
        audit.record_row(session, actor_id, "hour_logs", entry_id, "create", after=after)
    return entry_id


def _check_day_total(
    session: Session,
    engineer: Engineer,
    logged_on: dt.date,
    hours: Decimal,
    replacing: HourLog | None = None,
) -> None:
    """Refuse hours that would overfill the day; `replacing` is the entry they replace."""
    session.flush()
    total = day_total(session, engineer.id, logged_on)
    if replacing is not None and replacing.logged_on == logged_on:
        total -= replacing.hours
    if total + hours > HOURS_PER_DAY:
        raise day_full(logged_on, total)


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
    _check_day_total(session, entry.engineer, logged_on, hours, replacing=entry)
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
