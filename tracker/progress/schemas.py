"""Progress's JSON shapes: hour logs, exam attempts, certifications, an engineer's overview."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from tracker.catalog.rules import DECIMAL_PLACES
from tracker.catalog.schemas import Code, CourseRef, CredentialRef, ExamRef
from tracker.db import MAX_ID
from tracker.i18n import DEFAULT_LOCALE, N_, msg, translate
from tracker.people.schemas import Named, PersonRef, person_ref
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.progress.rules import (
    EXPIRING_WITHIN_DAYS,
    HOURS_PER_DAY,
    HOURS_RANGE_TEXT,
    MAX_ATTEMPT_COST,
    MAX_CREDENTIAL_NAME_LENGTH,
    MAX_EVIDENCE_LENGTH,
    MAX_EXPIRING_WITHIN_DAYS,
    MAX_ISSUER_LENGTH,
    MAX_NOTE_LENGTH,
    MAX_PROCTORING_LENGTH,
    MAX_SCORE,
    MAX_VOUCHER_CODE_LENGTH,
    MIN_SCORE,
    SCORE_TEXT,
)
from tracker.progress.services.hours import LoggedHours
from tracker.progress.services.overview import CertificationState, Overview
from tracker.progress.services.paths import PathProgress, Readiness
from tracker.progress.services.validity import days_left, status_on
from tracker.schemas import (
    JSON_NUMBER,
    NUMBER_ONLY,
    VALID_THROUGH,
    Amount,
    Answer,
    Body,
    Date,
    Id,
    Page,
    PageQuery,
    Query,
    Timestamp,
    TrueFalse,
    query_int,
    text,
    worded,
)

STATUSES = ("valid", "expiring", "expired", "revoked")
EXPIRING_WITHIN_RULE = msg(
    "must be a whole number of days, 0 to %(most)s", most=MAX_EXPIRING_WITHIN_DAYS
)

Note = Annotated[str, text(MAX_NOTE_LENGTH)]


# --- request bodies ---------------------------------------------------------------------


class HoursBody(Body):
    """An hour log entry: a course (by code or by id), a date, hours and a note."""

    course: Code | None = Field(None, description="the course's code (or give course_id)")
    course_id: Id | None = None
    date: Date
    hours: Annotated[
        Decimal,
        Field(gt=0, le=HOURS_PER_DAY, decimal_places=DECIMAL_PLACES),
        JSON_NUMBER,
        NUMBER_ONLY,
        worded(HOURS_RANGE_TEXT),
    ]
    note: Note = ""

    @classmethod
    def cross_errors(cls, data: dict[str, Any]) -> dict[str, str]:
        if "course" in data and "course_id" in data:
            return {"course": N_("give the course by code or by course_id, not both")}
        if "course" not in data and "course_id" not in data:
            return {"course": N_("this field is required (a course code, or give course_id)")}
        return {}


class LogHoursBody(HoursBody):
    """Hours to log; an admin may name the `engineer` they are for."""

    engineer: Id | None = None


class AttemptBody(Body):
    """An exam attempt: the exam's code, the date, the score and whether it passed."""

    exam: Code
    date: Date
    score: Annotated[
        int,
        Field(ge=MIN_SCORE, le=MAX_SCORE, strict=True),
        worded(SCORE_TEXT),
    ]
    passed: TrueFalse
    engineer: Id | None = None
    cost: (
        Annotated[
            Decimal,
            Field(ge=0, le=MAX_ATTEMPT_COST, decimal_places=DECIMAL_PLACES),
            JSON_NUMBER,
            NUMBER_ONLY,
            worded(msg("must be from 0 to %(most)s", most=MAX_ATTEMPT_COST)),
        ]
        | None
    ) = None
    voucher_code: Annotated[str, text(MAX_VOUCHER_CODE_LENGTH)] = ""
    proctoring: Annotated[str, text(MAX_PROCTORING_LENGTH)] = ""
    note: Note = ""

    def details(self) -> dict[str, str]:
        """Return the free-text details an attempt keeps."""
        return {"voucher_code": self.voucher_code, "proctoring": self.proctoring, "note": self.note}


class CredentialBody(Body):
    """A credential earned elsewhere: a catalog `code`, or `name` and `issuer`; its evidence."""

    code: Code | None = None
    name: Annotated[str, text(MAX_CREDENTIAL_NAME_LENGTH, required=True)] | None = None
    issuer: Annotated[str, text(MAX_ISSUER_LENGTH, required=True)] | None = None
    issued_on: Date
    expires_on: Date | None = Field(None, description=VALID_THROUGH)
    evidence: Annotated[str, text(MAX_EVIDENCE_LENGTH)] = ""
    engineer: Id | None = None

    @classmethod
    def cross_errors(cls, data: dict[str, Any]) -> dict[str, str]:
        by_name = "name" in data or "issuer" in data
        if "code" in data and by_name:
            return {
                "code": N_(
                    "give either the code of a catalog credential, or name and issuer, not both"
                )
            }
        if by_name:
            return {
                name: N_("this field is required")
                for name in ("name", "issuer")
                if name not in data
            }
        if "code" not in data:
            return {
                "code": N_(
                    "this field is required"
                    " (or name and issuer for a credential outside the catalog)"
                )
            }
        return {}


# --- query strings ---------------------------------------------------------------------

ENGINEER_ID_RULE = N_("must be a whole number (an engineer's id)")
EngineerId = Annotated[
    int,
    Field(ge=1, le=MAX_ID),
    query_int(ENGINEER_ID_RULE),
    worded(ENGINEER_ID_RULE),
]


class EngineerQuery(Query):
    """?engineer=ID: whose records (the caller's when absent)."""

    engineer: EngineerId | None = Field(
        None, description="whose records, by id (the caller's when absent)"
    )


class HoursQuery(PageQuery, EngineerQuery):
    """Filters of the hour log list, and its page."""


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


class CertificationsQuery(PageQuery, EngineerQuery):
    """Filters of the certifications list, and its page."""

    status: (
        Annotated[
            Literal["valid", "expiring", "expired", "revoked"],
            BeforeValidator(_lower),
            worded(
                msg("must be one of %(statuses)s", statuses=", ".join(STATUSES)), "literal_error"
            ),
        ]
        | None
    ) = Field(None, description="only those whose status today is exactly this (any case)")
    expiring_within: Annotated[
        int,
        Field(
            ge=0,
            le=MAX_EXPIRING_WITHIN_DAYS,
            description="days ahead in which a valid certification counts as expiring",
        ),
        query_int(EXPIRING_WITHIN_RULE),
        worded(EXPIRING_WITHIN_RULE),
    ] = EXPIRING_WITHIN_DAYS


# --- answers ------------------------------------------------------------------------------


class HourLogOut(Answer):
    """An hour log entry."""

    id: int
    engineer: PersonRef | None
    course: CourseRef
    date: dt.date
    hours: Amount
    note: str
    created_at: Timestamp | None
    updated_at: Timestamp | None

    @classmethod
    def of(cls, entry: HourLog) -> HourLogOut:
        return cls(
            id=entry.id,
            engineer=person_ref(entry.engineer),
            course=CourseRef.of(entry.course),
            date=entry.logged_on,
            hours=entry.hours,
            note=entry.note,
            created_at=entry.created_at,
            updated_at=entry.updated_at,
        )

    @classmethod
    def logged(cls, entry: LoggedHours, engineer: Named) -> HourLogOut:
        """Return an entry add_hours wrote, as of() would; `engineer` is its owner."""
        return cls(
            id=entry.id,
            engineer=PersonRef.of(engineer),
            course=CourseRef(id=entry.course_id, code=entry.course_code, title=entry.course_title),
            date=entry.logged_on,
            hours=entry.hours,
            note=entry.note,
            created_at=entry.created_at,
            updated_at=entry.created_at,
        )


class HourLogsOut(Page[HourLogOut]):
    """A page of an engineer's hour log, newest first (by date, then the newest entry)."""


class CertificationOut(Answer):
    """A certification with its status and days left on a date."""

    id: int
    engineer: PersonRef | None
    credential: CredentialRef
    earned_on: dt.date
    expires_on: dt.date | None = Field(description=VALID_THROUGH)
    status: str
    days_left: int | None
    evidence: str
    attempt_id: int | None
    renews_id: int | None
    recorded_by_id: int | None
    verified: bool = Field(description="Proved by its issuer's badge (Open Badges), verified.")
    verified_at: dt.datetime | None
    revoked_on: dt.date | None = Field(
        description="The day its issuer was found to have revoked it; it then counts for nothing."
    )

    @classmethod
    def of(
        cls, cert: Certification, on: dt.date, expiring_within: int = EXPIRING_WITHIN_DAYS
    ) -> CertificationOut:
        return cls(
            id=cert.id,
            engineer=person_ref(cert.engineer),
            credential=CredentialRef.of(cert.credential),
            earned_on=cert.earned_on,
            expires_on=cert.expires_on,
            status=str(status_on(cert, on, expiring_within)),
            days_left=days_left(cert, on),
            evidence=cert.evidence,
            attempt_id=cert.attempt_id,
            renews_id=cert.renews_id,
            recorded_by_id=cert.recorded_by_id,
            verified=cert.verified_at is not None and cert.revoked_on is None,
            verified_at=cert.verified_at,
            revoked_on=cert.revoked_on,
        )


class CertificationsOut(Page[CertificationOut]):
    """A page of the newest certification per credential, the soonest expiry first."""


class AttemptOut(Answer):
    """An exam attempt, with the certification a pass earned."""

    id: int
    engineer: PersonRef | None
    exam: ExamRef
    date: dt.date
    score: int
    passed: bool
    cost: Amount | None
    voucher_code: str
    proctoring: str
    note: str
    recorded_by_id: int | None
    certification: CertificationOut | None

    @classmethod
    def of(cls, attempt: ExamAttempt, cert: Certification | None, on: dt.date) -> AttemptOut:
        return cls(
            id=attempt.id,
            engineer=person_ref(attempt.engineer),
            exam=ExamRef.of(attempt.exam),
            date=attempt.attempted_on,
            score=attempt.score,
            passed=attempt.passed,
            cost=attempt.cost,
            voucher_code=attempt.voucher_code,
            proctoring=attempt.proctoring,
            note=attempt.note,
            recorded_by_id=attempt.recorded_by_id,
            certification=None if cert is None else CertificationOut.of(cert, on),
        )


class PathCourseOut(CourseRef):
    """A course of a path, with the hours logged and counted."""

    logged_hours: Amount
    required_hours: Amount
    counted_hours: Amount
    percent: float
    complete: bool


class ExamReadinessOut(Answer):
    """Whether an engineer may sit a path's exam, and why not."""

    code: str
    name: str
    ready: bool
    reasons: list[str]


class PathOut(Answer):
    """An engineer's progress on a learning path."""

    code: str
    name: str
    target_months: int | None
    percent: float
    required_hours: Amount
    counted_hours: Amount
    remaining_hours: Amount
    complete: bool
    courses: list[PathCourseOut]
    exam: ExamReadinessOut | None
    certification: CertificationOut | None = Field(
        description="the exam's certification when valid on the day, else null"
    )

    @classmethod
    def of(
        cls,
        progress: PathProgress,
        readiness: Readiness,
        certified: Certification | None,
        on: dt.date,
        locale: str = DEFAULT_LOCALE,
    ) -> PathOut:
        """Answer with the progress on a path; why its exam is not open is said in `locale`."""
        exam = progress.path.exam
        return cls(
            code=progress.path.code,
            name=progress.path.name,
            target_months=progress.path.target_months,
            percent=round(progress.percent, 1),
            required_hours=progress.required,
            counted_hours=progress.counted,
            remaining_hours=progress.remaining,
            complete=progress.complete,
            courses=[
                PathCourseOut(
                    id=c.course.id,
                    code=c.course.code,
                    title=c.course.title,
                    logged_hours=c.logged,
                    required_hours=c.required,
                    counted_hours=c.counted,
                    percent=round(c.percent, 1),
                    complete=c.complete,
                )
                for c in progress.courses
            ],
            exam=None
            if exam is None
            else ExamReadinessOut(
                code=exam.code,
                name=exam.name,
                ready=readiness.ready,
                reasons=[translate(reason, locale) for reason in readiness.reasons],
            ),
            certification=None if certified is None else CertificationOut.of(certified, on),
        )


class OverviewOut(Answer):
    """An engineer's paths, certifications and next steps on a date."""

    engineer: PersonRef | None
    on: dt.date
    experience_months: int
    paths: list[PathOut]
    certifications: list[CertificationOut]
    next_steps: list[str]

    @classmethod
    def of(cls, view: Overview, locale: str = DEFAULT_LOCALE) -> OverviewOut:
        """Answer with the overview; its reasons and next steps are said in `locale`."""
        return cls(
            engineer=person_ref(view.engineer),
            on=view.on,
            experience_months=view.experience_months,
            paths=[
                PathOut.of(
                    progress, readiness, view.certified.get(progress.path.code), view.on, locale
                )
                for progress, readiness in view.paths
            ],
            certifications=[state_out(s, view.on) for s in view.certifications],
            next_steps=[translate(step, locale) for step in view.next_steps],
        )


def state_out(state: CertificationState, on: dt.date) -> CertificationOut:
    return CertificationOut.of(state.certification, on)
