"""Importing the rows of the record files: hour logs, exam attempts, credentials, badges."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tracker.badges.services.imports import CheckedBadge, check_badge, record_badge
from tracker.badges.services.verified import Fetch
from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.errors import ValidationError
from tracker.i18n import msg
from tracker.imports.schemas import AttemptRow, BadgeRow, CredentialRow, HoursRow, Row, read_row
from tracker.imports.services.kinds import BadgeChecks, Handler, refuse_if
from tracker.imports.services.people import person_for
from tracker.people.models import Engineer
from tracker.progress.services.certifications import record_attempt, record_credential
from tracker.progress.services.hours import log_hours


def _course(session: Session, code: str) -> Course | None:
    return session.scalars(select(Course).where(func.lower(Course.code) == code.lower())).first()


def _exam(session: Session, code: str) -> Exam | None:
    return session.scalars(
        select(Exam).join(Exam.credential).where(func.lower(Credential.code) == code.lower())
    ).first()


def _credential(session: Session, code: str) -> Credential | None:
    return session.scalars(
        select(Credential).where(func.lower(Credential.code) == code.lower())
    ).first()


def import_hours(session: Session, row: Row, today: dt.date, actor: Engineer | None) -> object:
    """Log the hours a row describes."""
    problems: dict[str, str] = {}
    engineer = person_for(session, row.get("email", ""), problems)
    course = None
    if code := row.get("course", ""):
        course = _course(session, code)
        if course is None:
            problems["course"] = msg("unknown course code %(code)r", code=code)
    cells = read_row(HoursRow, row, problems)
    refuse_if(problems, tuple(HoursRow.model_fields))
    assert cells is not None and engineer is not None and course is not None
    return log_hours(
        session,
        engineer,
        course,
        cells.date,
        cells.hours,
        today,
        note=cells.note,
        actor=actor,
    )


def import_attempt(session: Session, row: Row, today: dt.date, actor: Engineer | None) -> object:
    """Record the exam attempt a row describes."""
    problems: dict[str, str] = {}
    engineer = person_for(session, row.get("email", ""), problems)
    exam = None
    if code := row.get("exam", ""):
        exam = _exam(session, code)
        if exam is None:
            problems["exam"] = msg("unknown exam code %(code)r", code=code)
    cells = read_row(AttemptRow, row, problems)
    refuse_if(problems, tuple(AttemptRow.model_fields))
    assert cells is not None and engineer is not None and exam is not None
    return record_attempt(
        session,
        engineer,
        exam,
        cells.date,
        cells.score,
        cells.passed,
        today,
        recorded_by=actor,
        cost=cells.cost,
        voucher_code=cells.voucher_code,
        proctoring=cells.proctoring,
    )


def import_credential(session: Session, row: Row, today: dt.date, actor: Engineer | None) -> object:
    """Record the external credential a row describes."""
    problems: dict[str, str] = {}
    engineer = person_for(session, row.get("email", ""), problems)
    credential = None
    if code := row.get("credential", ""):
        credential = _credential(session, code)
        if credential is None:
            problems["credential"] = msg("unknown credential code %(code)r", code=code)
    cells = read_row(CredentialRow, row, problems)
    refuse_if(problems, tuple(CredentialRow.model_fields))
    assert cells is not None and engineer is not None and credential is not None
    return record_credential(
        session,
        engineer,
        credential,
        cells.issued_on,
        today,
        cells.evidence,
        expires_on=cells.expires_on,
        recorded_by=actor,
    )


def _badge_key(row: Row, cells: BadgeRow) -> tuple[str, str]:
    return row.get("email", "").strip().lower(), cells.badge_url


def check_badge_rows(rows: Iterable[Row], today: dt.date, fetch: Fetch) -> BadgeChecks:
    """Verify each row's badge with its issuer for the row's address; no database work.

    Run before the import's transaction begins (db.release): an issuer may take
    seconds to answer, and nothing is held meanwhile. A row that reads badly
    is left for the import to report.
    """
    checks: dict[tuple[str, str], CheckedBadge | ValidationError] = {}
    for row in rows:
        cells = None if "_width" in row else read_row(BadgeRow, row, {})
        if cells is None:
            continue
        key = _badge_key(row, cells)
        if key not in checks:
            try:
                checks[key] = check_badge("url", cells.badge_url, key[0], today, fetch)
            except ValidationError as refused:
                checks[key] = refused
    return checks


def badge_importer(checks: BadgeChecks) -> Handler:
    """Return the handler of a badges file's rows: each badge as check_badge_rows found it."""

    def import_badge_row(
        session: Session, row: Row, today: dt.date, actor: Engineer | None
    ) -> object:
        problems: dict[str, str] = {}
        engineer = person_for(session, row.get("email", ""), problems)
        cells = read_row(BadgeRow, row, problems)
        refuse_if(problems, tuple(BadgeRow.model_fields))
        assert cells is not None and engineer is not None
        checked = checks[_badge_key(row, cells)]
        if isinstance(checked, ValidationError):
            raise checked
        return record_badge(session, engineer, checked, today, actor)

    return import_badge_row
