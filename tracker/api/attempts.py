"""/exam-attempts: recording an exam attempt (a pass earns the certification)."""

from __future__ import annotations

from flask import Response
from sqlalchemy import func, select

from tracker.api.access import engineer_in_body
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError, rename
from tracker.api.openapi import Operation
from tracker.catalog.models.credentials import Credential, Exam
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.i18n import N_, msg
from tracker.people.services.access import can_record_results
from tracker.progress.models import Certification
from tracker.progress.schemas import AttemptBody, AttemptOut
from tracker.progress.services.certifications import record_attempt


def _exam(code: str) -> Exam:
    """Return the exam whose credential has `code` (any case); a 400 naming the known ones."""
    session = db_session()
    exam = session.scalars(
        select(Exam).join(Exam.credential).where(func.upper(Credential.code) == code.upper())
    ).one_or_none()
    if exam is None:
        known = ", ".join(
            session.scalars(select(Credential.code).join(Credential.exam).order_by(Credential.code))
        )
        raise ApiError(
            400,
            {"exam": msg("unknown exam code %(code)r (known: %(known)s)", code=code, known=known)},
        )
    return exam


RECORD_ATTEMPT = Operation(answers={201: AttemptOut}, body_model=AttemptBody, refusals=(403,))


@bp.post("/exam-attempts", endpoint="record_attempt")
@RECORD_ATTEMPT
def post_attempt() -> tuple[Response, int]:
    """Record an exam attempt; a pass answers with the certification and its expiry."""
    data = RECORD_ATTEMPT.json_body()
    engineer = engineer_in_body(data, can_record_results, N_("record exam attempts"))
    body = RECORD_ATTEMPT.validated(data)
    exam = _exam(body.exam)
    session = db_session()
    on = today()
    try:
        attempt = record_attempt(
            session,
            engineer,
            exam,
            body.date,
            body.score,
            body.passed,
            on,
            recorded_by=caller(),
            cost=body.cost,
            **body.details(),
        )
    except ValidationError as exc:
        raise ApiError(400, rename(exc.errors, {"attempted_on": "date"})) from None
    cert = session.scalars(
        select(Certification).where(Certification.attempt_id == attempt.id)
    ).one_or_none()
    return RECORD_ATTEMPT.answer(AttemptOut.of(attempt, cert, on), 201)
