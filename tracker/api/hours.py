"""/hours: an engineer's hour log; logging, changing and deleting entries."""

from __future__ import annotations

import datetime as dt

from flask import Response, g, url_for
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from tracker.api.access import NOT_YOURS, engineer_in_body, engineer_in_query, get_record
from tracker.api.auth import authenticate_deferred, caller, token_first
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError, invalid_token, rename
from tracker.api.inputs import NoQuery
from tracker.api.openapi import Operation
from tracker.api.pages import Key, page
from tracker.api.tokens import log_own_hours
from tracker.catalog.models.credentials import Course
from tracker.clock import today, utcnow
from tracker.errors import ValidationError
from tracker.extensions import db_session, single_statements
from tracker.i18n import N_, msg
from tracker.people.schemas import Named
from tracker.people.services.access import can_log_hours, can_view
from tracker.progress.models import HourLog
from tracker.progress.schemas import (
    HourLogOut,
    HourLogsOut,
    HoursBody,
    HoursQuery,
    LogHoursBody,
)
from tracker.progress.services.hours import delete_hours, update_hours
from tracker.progress.services.hours import log_hours as log_entry
from tracker.progress.services.hours_checks import check_hours

# The services name the date `logged_on`; the API calls it `date`.
HOURS_NAMES = {"logged_on": "date"}


class _HoursErrors:
    """Answer an entry the rules refuse with 400, naming the API's fields.

    A class, not a generator: POST /hours enters it twice.
    """

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: object
    ) -> None:
        if isinstance(exc, ValidationError):
            raise ApiError(400, rename(exc.errors, HOURS_NAMES)) from None


HOURS_ERRORS = _HoursErrors()


def _course(body: HoursBody) -> Course:
    """Return the course the body names, by id or by code; a 400 when there is none."""
    if body.course_id is not None:
        course = get_record(Course, body.course_id)
        if course is None:
            raise ApiError(400, {"course_id": msg("no course with id %(id)s", id=body.course_id)})
        return course
    code = body.course or ""
    found = (
        db_session()
        .scalars(select(Course).where(func.upper(Course.code) == code.upper()))
        .one_or_none()
    )
    if found is None:
        raise ApiError(400, {"course": msg("unknown course code %(code)r", code=code)})
    return found


def _entry(entry_id: int, write: bool) -> HourLog:
    entry = get_record(HourLog, entry_id, for_change=write)
    if entry is None:
        raise ApiError(404, {"entry": msg("no hour log entry with id %(id)s", id=entry_id)})
    if not can_view(caller(), entry.engineer):
        raise ApiError(403, {"entry": NOT_YOURS})
    if write and not can_log_hours(caller(), entry.engineer):
        raise ApiError(403, {"entry": N_("only the owner or an admin may change hour logs")})
    return entry


LIST_HOURS = Operation(
    answers={200: HourLogsOut},
    query_model=HoursQuery,
    refusals=(403, 404),
    gives={"entry_id": "/items/0/id"},
)
# Newest first: by date, then the entry logged last.
HOURS_ORDER = (
    Key(HourLog.logged_on, lambda e: e.logged_on, dt.date, descending=True),
    Key(HourLog.id, lambda e: e.id, int, descending=True),
)
LOG_HOURS = Operation(
    answers={201: HourLogOut},
    body_model=LogHoursBody,
    refusals=(403,),
    headers={"Location": "the new entry's URL"},
    gives={"entry_id": "/id"},
)
HOURS_ENTRY = Operation(
    answers={200: HourLogOut}, query_model=NoQuery, refusals=(403, 404), versioned=True
)
UPDATE_HOURS = Operation(
    answers={200: HourLogOut}, body_model=HoursBody, refusals=(403, 404), versioned=True
)
DELETE_HOURS = Operation(answers={204: None}, refusals=(403, 404), versioned=True)


@bp.get("/hours")
@LIST_HOURS
def list_hours() -> tuple[Response, int]:
    """The caller's hour log (or, with ?engineer=ID, a person the caller may see), a page."""
    params = LIST_HOURS.query()
    engineer = engineer_in_query(params.engineer)
    entries = (
        select(HourLog)
        .where(HourLog.engineer_id == engineer.id)
        .options(selectinload(HourLog.course), selectinload(HourLog.engineer))
    )
    return LIST_HOURS.answer(page(HourLogsOut, entries, HOURS_ORDER, params, HourLogOut.of))


@bp.post("/hours")
@LOG_HOURS
def log_hours() -> tuple[Response, int]:
    """Log hours on a course: course or course_id, date, hours, note; engineer for an admin."""
    with token_first():
        data = LOG_HOURS.json_body()
    for_someone = data.get("engineer") is not None
    if for_someone:
        # An admin may name someone else: the token first, then the engineer.
        authenticate_deferred()
        engineer = engineer_in_body(data, can_log_hours, N_("log hours"))
    day = today()
    with token_first(), HOURS_ERRORS:
        body = LOG_HOURS.validated(data)
        # All but the hire date, which comes with the token (log_own_hours).
        check_hours(None, body.date, body.hours, day, body.note)
    with HOURS_ERRORS:
        if for_someone:
            entry = log_entry(
                db_session(),
                engineer,
                None,
                body.date,
                body.hours,
                day,
                body.note,
                g.api_caller,
                course_code=body.course,
                course_id=body.course_id,
                alone=True,
            )
            owner: Named = engineer
        else:
            # Hours are mostly logged by their owner: on PostgreSQL one
            # statement finds the token and writes the entry.
            logged = log_own_hours(
                db_session,
                single_statements(),
                g.pop("api_secret"),
                utcnow(),
                body.course,
                body.course_id,
                body.date,
                body.hours,
                body.note,
                day,
            )
            if logged is None:
                raise invalid_token()
            g.api_caller, entry = logged
            owner = g.api_caller
    return LOG_HOURS.answer(
        HourLogOut.logged(entry, owner), 201, url_for("api.hours_entry", entry_id=entry.id)
    )


@bp.get("/hours/<int:entry_id>")
@HOURS_ENTRY
def hours_entry(entry_id: int) -> tuple[Response, int]:
    """One hour log entry."""
    HOURS_ENTRY.query()
    return HOURS_ENTRY.answer(HourLogOut.of(_entry(entry_id, write=False)))


@bp.put("/hours/<int:entry_id>", endpoint="update_hours")
@UPDATE_HOURS
def update_entry(entry_id: int) -> tuple[Response, int]:
    """Replace an entry's course, date, hours and note (the audit trail keeps the old ones)."""
    entry = _entry(entry_id, write=True)
    body = UPDATE_HOURS.body()
    UPDATE_HOURS.unchanged_since_read(HourLogOut.of(entry))
    course = _course(body)
    with HOURS_ERRORS:
        update_hours(
            db_session(),
            entry,
            course,
            body.date,
            body.hours,
            today(),
            body.note,
            actor=caller(),
        )
    return UPDATE_HOURS.answer(HourLogOut.of(entry))


@bp.delete("/hours/<int:entry_id>", endpoint="delete_hours")
@DELETE_HOURS
def delete_entry(entry_id: int) -> tuple[Response, int]:
    """Delete an entry (the audit trail keeps what it held)."""
    entry = _entry(entry_id, write=True)
    DELETE_HOURS.unchanged_since_read(HourLogOut.of(entry))
    delete_hours(db_session(), entry, actor=caller())
    return DELETE_HOURS.no_content()
