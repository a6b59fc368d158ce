"""Who calls the API: the owner of a live bearer token, found with one Core statement.

Every API request looks its token up (nothing is cached, so a revoked token or
a deactivated account stops working at once); the lookup reads only the
columns the API needs, without loading ORM objects. The views that need the
caller's full account load it on first use (views.caller()).

POST /api/v1/hours, for an engineer logging their own hours, goes further:
the token lookup, the engineer's lock and the course lookup are one statement
(caller_locked_for_hours).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from tracker.people.models import ApiToken, Engineer
from tracker.people.services import TOKEN_USE_PRECISION, _token_hash
from tracker.progress.services import CourseFound, lock_engineer_find_course

_tokens = ApiToken.__table__
_engineers = Engineer.__table__

_LIVE_TOKEN = (
    select(
        _tokens.c.id,
        _tokens.c.last_used_at,
        _engineers.c.id,
        _engineers.c.name,
        _engineers.c.access_role,
        _engineers.c.hired_on,
    )
    .select_from(_tokens.join(_engineers, _engineers.c.id == _tokens.c.engineer_id))
    .where(
        _tokens.c.token_hash == bindparam("token_hash"),
        _tokens.c.revoked_at.is_(None),
        _engineers.c.active.is_(True),
    )
)
_RECORD_USE = (
    update(_tokens)
    .where(_tokens.c.id == bindparam("token_id"))
    .values(last_used_at=bindparam("now"))
)
# The live token, its engineer locked for logging hours, and the course the
# body names (services.lock_engineer_find_course): one statement.
_LIVE_TOKEN_LOCKED_FOR_HOURS = lock_engineer_find_course(_LIVE_TOKEN)
# Recording a use after the engineer's lock: a token row another transaction
# holds is skipped rather than waited for (that one is recording a use, or
# revoking the token). Other requests lock the token row before the engineer
# (caller_for_token, then services._lock_engineer), so waiting here, with
# the engineer locked, could deadlock. SQLite has no row locks (its writers
# take turns at BEGIN IMMEDIATE) and ignores FOR UPDATE.
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


@dataclass(frozen=True)
class Caller:
    """The active engineer a live token belongs to: what permission checks read."""

    id: int
    name: str
    access_role: str
    hired_on: dt.date | None
    active: bool = True


def caller_for_token(session: Session, secret: str, now: dt.datetime) -> Caller | None:
    """Return the active engineer a live token belongs to, recording its use to the minute.

    The same answer as people.services.engineer_for_token, in one statement
    (two when the token's last use is more than a minute old).
    """
    connection = session.connection()
    row = connection.execute(_LIVE_TOKEN, {"token_hash": _token_hash(secret)}).first()
    if row is None:
        return None
    return _caller(connection, row, now, _RECORD_USE)


def caller_locked_for_hours(
    session: Session,
    secret: str,
    now: dt.datetime,
    course_code: str | None,
    course_id: int | None,
) -> tuple[Caller, CourseFound] | None:
    """caller_for_token, with the caller locked and the course found for logging their hours.

    One statement (two when the token's last use is more than a minute old)
    does what caller_for_token and services.add_hours' lock would do in two;
    pass the course found to add_hours as `locked`. The course is given by
    code (any case) or by id.
    """
    session.flush()  # Core statements do not flush what the session holds
    connection = session.connection()
    row = connection.execute(
        _LIVE_TOKEN_LOCKED_FOR_HOURS,
        {
            "token_hash": _token_hash(secret),
            "course_code": course_code and course_code.upper(),
            "course_id": course_id,
        },
    ).first()
    if row is None:
        return None
    return _caller(connection, row, now, _RECORD_USE_NOWAIT), CourseFound(*row[-3:])


def _caller(connection: Connection, row, now: dt.datetime, record_use) -> Caller:
    token_id, last_used_at, engineer_id, name, access_role, hired_on = row[:6]
    if last_used_at is None or not (now - TOKEN_USE_PRECISION < last_used_at <= now):
        connection.execute(record_use, {"token_id": token_id, "now": now})
    return Caller(engineer_id, name, access_role, hired_on)
