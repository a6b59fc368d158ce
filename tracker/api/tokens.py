"""Who calls the API: the owner of a live bearer token, found with one Core statement.

A live token is neither revoked nor past its expiry day (it works through
that day, by tracker.clock.today()), and its owner is active; a read token
is live too, and auth refuses its writes.

Every API request looks its token up (nothing is cached, so a revoked token or
a deactivated account stops working at once); the lookup reads only the
columns the API needs, without loading ORM objects. The views that need the
caller's full account load it on first use (auth.caller()).

POST /api/v1/hours, for an engineer logging their own hours, goes further:
on PostgreSQL the token lookup, the course lookup, the entry and its audit
event are one statement (log_own_hours).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tracker.api.errors import read_only_token
from tracker.catalog.models.credentials import Course
from tracker.db import connected, sql_literal
from tracker.driver import DriverStatement
from tracker.people.models import ApiToken, Engineer
from tracker.people.rules import WRITE_SCOPE
from tracker.people.services.accounts import TOKEN_USE_PRECISION, UNEXPIRED, token_hash
from tracker.progress.services.hours import CourseFound, LoggedHours, log_hours
from tracker.progress.services.hours_checks import (
    check_hours,
    day_full,
    overfills_a_day,
    refuse_course,
)
from tracker.progress.services.hours_sql import (
    COURSE_NAMED,
    HOURS_LOGGED,
    day_total,
    entry_binds,
    hours_logged_by,
    webhook_binds,
)
from tracker.webhooks.services import events as webhooks

# Mapped classes' tables, typed as the Tables they are.
_tokens = cast(Table, ApiToken.__table__)
_engineers = cast(Table, Engineer.__table__)
_courses = cast(Table, Course.__table__)

_LIVE_TOKEN = (
    select(
        _tokens.c.id.label("token_id"),
        _tokens.c.last_used_at,
        _engineers.c.id.label("engineer_id"),
        _engineers.c.name,
        _engineers.c.access_role,
        _engineers.c.hired_on,
        _tokens.c.scope,
    )
    .select_from(_tokens.join(_engineers, _engineers.c.id == _tokens.c.engineer_id))
    .where(
        _tokens.c.token_hash == bindparam("token_hash"),
        _tokens.c.revoked_at.is_(None),
        UNEXPIRED,
        _engineers.c.active.is_(True),
    )
)
_RECORD_USE = (
    update(_tokens)
    .where(_tokens.c.id == bindparam("token_id"))
    .values(last_used_at=bindparam("now"))
)
# Recording a use after an engineer's hours are written: a token row another
# transaction holds is skipped rather than waited for (that one is recording a
# use, or revoking the token). Logging hours must not wait: on SQLite the
# day's write is held meanwhile, and other requests lock the token row first
# and may then write the same day (caller_for_token, then an update of an
# entry); on PostgreSQL the entry is committed, but a request has no reason
# to wait for bookkeeping. SQLite has no row locks (its writers take turns at
# BEGIN IMMEDIATE) and ignores FOR UPDATE.
_RECORD_USE_NOWAIT = (
    update(_tokens)
    .where(
        _tokens.c.id
        == select(_tokens.c.id)
        .where(_tokens.c.id == bindparam("token_id"))
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    .values(last_used_at=bindparam("now"))
)
# The live token and the course the body names, for an engineer logging their
# own hours: on SQLite the first of log_own_hours' statements (with the
# endpoints taking hours.logged, so that none costs no statement more)...
_LIVE_TOKEN_AND_COURSE = _LIVE_TOKEN.add_columns(
    _courses.c.id.label("course_id"), _courses.c.code, _courses.c.title
).outerjoin(_courses, COURSE_NAMED)
_LIVE_TOKEN_COURSE_AND_HOOKS = _LIVE_TOKEN_AND_COURSE.add_columns(
    webhooks.subscribers_sql(HOURS_LOGGED).label("hooks")
)
# ...and on PostgreSQL the whole of it: token, course, entry and audit event
# in one statement, which writes nothing for a read token (and returns its scope).
# It runs on the driver's cursor: SQLAlchemy's execution of its twenty binds cost
# the server more than the rest of the request's own work.
_CALLER = _LIVE_TOKEN_AND_COURSE.cte("caller")
_LOG_OWN_HOURS = DriverStatement(
    hours_logged_by(_CALLER, _CALLER.c.scope == sql_literal(WRITE_SCOPE))
)


@dataclass(frozen=True)
class Caller:
    """The active engineer a live token belongs to: what permission checks read."""

    id: int
    name: str
    access_role: str
    hired_on: dt.date | None
    scope: str  # the token's, read or write: no default, so none writes unless told
    active: bool = True

    @property
    def may_write(self) -> bool:
        """Whether the token the caller came with may write."""
        return self.scope == WRITE_SCOPE


def caller_for_token(
    session: Session, secret: str, now: dt.datetime, today: dt.date
) -> Caller | None:
    """Return the active engineer a live token belongs to, recording its use to the minute.

    One statement (two when the token's last use is more than a minute old).
    """
    connection = session.connection()
    binds = {"token_hash": token_hash(secret), "today": today}
    row = connection.execute(_LIVE_TOKEN, binds).first()
    if row is None:
        return None
    return _caller(connection, row, now, _RECORD_USE)


def log_own_hours(
    session: Callable[[], Session],
    statements: Engine | Connection | None,
    secret: str,
    now: dt.datetime,
    course_code: str | None,
    course_id: int | None,
    logged_on: dt.date,
    hours: Decimal,
    note: str,
    today: dt.date,
) -> tuple[Caller, LoggedHours] | None:
    """Log hours for the owner of a live token; None when the token is not live.

    A read token writes nothing and is refused with the API's 403.

    The rules are services.add_hours', and so are the errors. The caller
    checks the entry first (check_hours without a hire date): what
    is left is the course, the hire date and the day's room. On PostgreSQL
    one statement finds the token and the course and writes the entry, its
    audit event and its webhook deliveries, and commits on its own (run on `statements`, as
    extensions.single_statements gives them). SQLite (no `statements`)
    takes three statements in the session's transaction, which must hold no
    other write (log_hours, alone). `session` returns the request's session, asked
    for only when needed. Recording the token's use costs one more
    statement once a minute.
    """
    binds: dict[str, object] = {
        "token_hash": token_hash(secret),
        "course_code": course_code and course_code.upper(),
        "course_id": course_id,
        "today": today,
    }
    note = note.strip()
    if statements is None:
        unit = session()
        unit.flush()  # Core statements do not flush what the session holds
        connection = unit.connection()
        row = connection.execute(_LIVE_TOKEN_COURSE_AND_HOOKS, binds).first()
        if row is None:
            return None
        webhooks.remember_subscribers(unit, HOURS_LOGGED, row.hooks)
        caller = _caller(connection, row, now, _RECORD_USE_NOWAIT)
        if not caller.may_write:
            raise read_only_token()
        course = CourseFound(row.course_id, row.code, row.title)
        if course.id is None:
            raise refuse_course(course_code, course_id)
        return caller, log_hours(
            unit, caller, course, logged_on, hours, today, note, caller, alone=True
        )
    # The entry is written at the request's time, the time its token is used.
    binds.update(entry_binds(logged_on, hours, note, now))
    binds.update(webhook_binds(logged_on, hours, note, now))
    # One statement is its own transaction: no BEGIN, no COMMIT.
    with connected(statements) as connection:
        try:
            logged = _LOG_OWN_HOURS.first(connection, binds)
        except IntegrityError as exc:
            if not overfills_a_day(exc):
                raise
            # A racing request filled the day first: nothing was written.
            found = caller_for_token(session(), secret, now, today)
            if found is None:
                return None
            total = day_total(session(), found.id, logged_on)
            raise day_full(logged_on, total) from None
        if logged is None:
            return None
        *_, found_course_id, code, title, entry_id = logged
        caller = _caller(connection, logged, now, _RECORD_USE_NOWAIT)
    if not caller.may_write:
        raise read_only_token()
    if found_course_id is None:
        raise refuse_course(course_code, course_id)
    if entry_id is None:
        # Before the hire date, or no room left in the day.
        check_hours(caller.hired_on, logged_on, hours, today, note)
        raise day_full(logged_on, day_total(session(), caller.id, logged_on))
    entry = LoggedHours(
        entry_id, caller.id, found_course_id, code, title, logged_on, hours, note, now
    )
    return caller, entry


def _caller(connection: Connection, row, now: dt.datetime, record_use) -> Caller:
    """Return the caller a row of _LIVE_TOKEN's columns (first, in order) names; record its use."""
    token_id, last_used_at, engineer_id, name, access_role, hired_on, scope = row[:7]
    if last_used_at is None or not (now - TOKEN_USE_PRECISION < last_used_at <= now):
        connection.execute(record_use, {"token_id": token_id, "now": now})
    return Caller(engineer_id, name, access_role, hired_on, scope)
