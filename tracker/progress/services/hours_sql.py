"""Hours' SQL: the Core statements that write an entry and read a day's total, built once.

Built at import, on the tables: the API logs hours on its hot path, where ORM
loading, flushing and statement building cost more than the database work.
log_hours (tracker.progress.services.hours) runs them; the API's
one-statement path for an engineer's own hours is built from the same insert
(hours_logged_by).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

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
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.selectable import CTE

from tracker.audit import services as audit
from tracker.catalog.models.credentials import Course
from tracker.db import Base, sql_literal
from tracker.progress.models import HourDay, HourLog
from tracker.progress.rules import HOURS_PER_DAY
from tracker.schemas import json_number
from tracker.webhooks.services import events as webhooks

HOURS_LOGGED = "hours.logged"

# A day holds at most HOURS_PER_DAY whatever writes it: hour_days keeps every
# engineer's total per day (triggers on hour_logs) and its check refuses one
# hour more. Writers racing for one day take turns on the day's row, so the
# second sees the first's hours and is refused; nothing locks the engineer.
# The writers check the total in the statement that inserts the entry for the
# usual message, and turn the database's refusal, which only a racing writer
# meets, into the same message.
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
FIND_COURSE = select(_courses.c.id, _courses.c.code, _courses.c.title).where(COURSE_NAMED)
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


INSERT_WITHIN_DAY = _entry_insert(
    bindparam("engineer_id", type_=Integer), bindparam("course_id", type_=Integer)
)
# PostgreSQL inserts the entry and its audit event in one statement; SQLite
# (no INSERT inside WITH) takes two.
INSERT_WITHIN_DAY_AUDITED = audit.insert_for_returned(
    INSERT_WITHIN_DAY.cte("entry"), "hour_logs", "create", columns=("engineer_id", "course_id")
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
    """The hours.logged payload, in SQL: HoursLoggedData's shape (see hours._hours_logged)."""
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
        "after": entry_after(logged_on, hours, note, now),
    }


def entry_after(logged_on: dt.date, hours: Decimal, note: str, now: dt.datetime) -> dict[str, Any]:
    """Return what the audit trail records of a new entry, but its id, engineer_id and course_id."""
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
