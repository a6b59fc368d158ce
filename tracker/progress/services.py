"""Certification and progress rules (DOMAIN.md sections 2-3).

Plain functions: they take a session where they need data and the date they
reason about as a parameter; none reads the clock.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import secrets
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import (
    ColumnElement,
    Date,
    DateTime,
    Integer,
    Select,
    String,
    bindparam,
    func,
    insert,
    or_,
    select,
    true,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.sql.selectable import CTE

from tracker.audit import services as audit
from tracker.catalog.models import Course, Credential, Exam, LearningPath
from tracker.catalog.services.reads import paths_with_courses
from tracker.db import utcnow
from tracker.errors import ValidationError
from tracker.people.models import Engineer
from tracker.progress.models import Certification, ExamAttempt, ExamPlan, HourDay, HourLog

EXPIRING_WITHIN_DAYS = 90
MAX_NOTE_LENGTH = 500
MAX_EVIDENCE_LENGTH = 2000
ZERO = Decimal(0)


# --- dates ------------------------------------------------------------------


def add_months(start: dt.date, months: int) -> dt.date:
    """Return the same day `months` later, clamped to the end of a shorter month.

    2024-02-29 + 24 months = 2026-02-28; 2025-01-31 + 1 month = 2025-02-28.
    """
    index = start.year * 12 + (start.month - 1) + months
    year, month = divmod(index, 12)
    last_day = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(start.day, last_day))


def expiry_date(earned_on: dt.date, validity_months: int | None) -> dt.date | None:
    """Return the last day a certification earned on `earned_on` is valid, or None."""
    if validity_months is None:
        return None
    return add_months(earned_on, validity_months)


def whole_months_between(start: dt.date, end: dt.date) -> int:
    """Return the largest n with add_months(start, n) <= end (0 when end is before start)."""
    if end < start:
        return 0
    months = (end.year - start.year) * 12 + end.month - start.month
    while months > 0 and add_months(start, months) > end:
        months -= 1
    return months


def experience_months(engineer: Engineer, on: dt.date) -> int:
    """Return documented months before joining plus whole months since the hire date."""
    since_hire = whole_months_between(engineer.hired_on, on) if engineer.hired_on else 0
    return engineer.experience_months + since_hire


# --- certification status ---------------------------------------------------


class Status(StrEnum):
    """A certification's state on a date."""

    VALID = "valid"
    EXPIRING = "expiring"
    EXPIRED = "expired"
    MISSING = "missing"


def is_valid_on(cert: Certification, on: dt.date) -> bool:
    """Return whether the certification holds on `on` (its expiry day included)."""
    return cert.earned_on <= on and (cert.expires_on is None or on <= cert.expires_on)


def status_on(
    cert: Certification | None, on: dt.date, expiring_within: int = EXPIRING_WITHIN_DAYS
) -> Status:
    """Return the status of a certification on a date.

    Valid through its expiry date, expired the day after; "expiring" when valid
    and the expiry is at most `expiring_within` days away; "missing" when there
    is none or it was earned after `on`.
    """
    if cert is None or cert.earned_on > on:
        return Status.MISSING
    if cert.expires_on is None:
        return Status.VALID
    if on > cert.expires_on:
        return Status.EXPIRED
    if (cert.expires_on - on).days <= expiring_within:
        return Status.EXPIRING
    return Status.VALID


def days_left(cert: Certification, on: dt.date) -> int | None:
    """Return the days from `on` to the expiry (0 on the day itself, negative after)."""
    return None if cert.expires_on is None else (cert.expires_on - on).days


def newest_per_credential(certs: Iterable[Certification]) -> dict[int, Certification]:
    """Return the certification that counts for each credential: the newest one."""
    newest: dict[int, Certification] = {}
    for cert in certs:
        best = newest.get(cert.credential_id)
        if best is None or (cert.earned_on, cert.id or 0) > (best.earned_on, best.id or 0):
            newest[cert.credential_id] = cert
    return newest


def holding(
    certs: Iterable[Certification], credential: Credential, on: dt.date
) -> Certification | None:
    """Return a certification satisfying `credential` (or a member of its group) valid on `on`.

    Of several, the one valid longest wins, so callers can tell when it lapses.
    """
    wanted = credential.satisfying_ids()
    valid = [c for c in certs if c.credential_id in wanted and is_valid_on(c, on)]
    if not valid:
        return None
    return max(valid, key=lambda c: (c.expires_on or dt.date.max, c.earned_on))


def latest_for(certs: Iterable[Certification], credential: Credential) -> Certification | None:
    """Return the newest certification satisfying `credential`, valid or not."""
    wanted = credential.satisfying_ids()
    matching = [c for c in certs if c.credential_id in wanted]
    return max(matching, key=lambda c: (c.earned_on, c.id or 0), default=None)


# --- course and path progress -----------------------------------------------


@dataclass(frozen=True)
class CourseProgress:
    """Hours logged on one course against the hours it requires."""

    course: Course
    logged: Decimal

    @property
    def required(self) -> Decimal:
        return self.course.hours

    @property
    def counted(self) -> Decimal:
        """Return the logged hours that count towards the path (capped at the required)."""
        return min(self.logged, self.required)

    @property
    def remaining(self) -> Decimal:
        return self.required - self.counted

    @property
    def complete(self) -> bool:
        return self.logged >= self.required

    @property
    def percent(self) -> float:
        return float(self.counted / self.required * 100)


@dataclass(frozen=True)
class PathProgress:
    """Progress along a learning path."""

    path: LearningPath
    courses: list[CourseProgress]

    @property
    def required(self) -> Decimal:
        return sum((c.required for c in self.courses), ZERO)

    @property
    def counted(self) -> Decimal:
        return sum((c.counted for c in self.courses), ZERO)

    @property
    def remaining(self) -> Decimal:
        return self.required - self.counted

    @property
    def percent(self) -> float:
        """Return sum of min(logged, required) over the courses / sum of required, in %."""
        return float(self.counted / self.required * 100) if self.required else 100.0

    @property
    def complete(self) -> bool:
        return all(c.complete for c in self.courses)

    @property
    def open_courses(self) -> list[CourseProgress]:
        return [c for c in self.courses if not c.complete]


def path_progress(path: LearningPath, logged: Mapping[int, Decimal]) -> PathProgress:
    """Return the progress along `path` given hours logged per course id."""
    return PathProgress(
        path=path, courses=[CourseProgress(c, logged.get(c.id, ZERO)) for c in path.courses]
    )


def logged_hours(session: Session, engineer_id: int) -> dict[int, Decimal]:
    """Return the hours an engineer logged, per course id."""
    rows = session.execute(
        select(HourLog.course_id, func.sum(HourLog.hours))
        .where(HourLog.engineer_id == engineer_id)
        .group_by(HourLog.course_id)
    )
    return dict(rows.tuples().all())


# --- exam prerequisites and readiness ---------------------------------------


def prerequisite_gaps(
    exam: Exam, certs: Iterable[Certification], experience: int, on: dt.date
) -> list[str]:
    """Return what stops an attempt at `exam` on `on`, each naming the missing prerequisite."""
    certs = list(certs)
    gaps: list[str] = []
    for credential in exam.prerequisites:
        if holding(certs, credential, on) is not None:
            continue
        last = latest_for((c for c in certs if c.earned_on <= on), credential)
        if last is not None and last.expires_on is not None:
            gaps.append(
                f"{exam.code} requires a valid {credential.code}; "
                f"it expired on {last.expires_on.isoformat()}"
            )
        else:
            gaps.append(f"{exam.code} requires a valid {credential.code} ({credential.name})")
    if experience < exam.experience_months:
        gaps.append(
            f"{exam.code} requires {exam.experience_months} months of documented experience; "
            f"{experience} on {on.isoformat()}"
        )
    return gaps


@dataclass(frozen=True)
class Readiness:
    """Whether an engineer is ready for a path's exam on a date, and why not."""

    ready: bool
    open_courses: list[CourseProgress] = field(default_factory=list)
    prerequisite_gaps: list[str] = field(default_factory=list)

    @property
    def reasons(self) -> list[str]:
        courses = [
            f"course {c.course.code} ({c.course.title}) is open: "
            f"{_hours(c.logged)} of {_hours(c.required)} h logged"
            for c in self.open_courses
        ]
        return courses + self.prerequisite_gaps


def exam_readiness(
    progress: PathProgress,
    certs: Iterable[Certification],
    experience: int,
    on: dt.date,
    retake_opens: dt.date | None = None,
) -> Readiness:
    """Return readiness for the path's exam: courses complete, prerequisites met on `on`.

    `retake_opens` is when the waiting period after a failed attempt ends; before
    it the exam is not open either.
    """
    exam = progress.path.exam
    gaps = prerequisite_gaps(exam, certs, experience, on) if exam else []
    if exam is not None and retake_opens is not None and on < retake_opens:
        gaps.append(f"a retake of {exam.code} opens on {retake_opens.isoformat()}")
    open_courses = progress.open_courses
    return Readiness(
        ready=not open_courses and not gaps, open_courses=open_courses, prerequisite_gaps=gaps
    )


def retake_openings(session: Session, engineer_id: int) -> dict[int, dt.date]:
    """Return exam id -> the day a retake opens after the engineer's latest failure."""
    rows = session.execute(
        select(ExamAttempt.exam_id, func.max(ExamAttempt.attempted_on), Exam.retake_wait_days)
        .join(Exam, Exam.id == ExamAttempt.exam_id)
        .where(ExamAttempt.engineer_id == engineer_id, ExamAttempt.passed.is_(False))
        .group_by(ExamAttempt.exam_id, Exam.retake_wait_days)
    )
    return {exam_id: last + dt.timedelta(days=wait) for exam_id, last, wait in rows}


def _hours(value: Decimal) -> str:
    return f"{value.normalize():f}"


# --- recording attempts and credentials -------------------------------------


def certifications_of(session: Session, engineer_id: int) -> list[Certification]:
    """Return every certification an engineer holds or held, with its credential."""
    return list(
        session.scalars(
            select(Certification)
            .where(Certification.engineer_id == engineer_id)
            .options(selectinload(Certification.credential))
            .order_by(Certification.earned_on, Certification.id)
        )
    )


def _link_renewal(session: Session, cert: Certification) -> None:
    """Place a new certification in its credential's renewal chain by date.

    The newest pass renews the one before it; a back-dated entry slots in
    between, so history entered out of order still forms one chain.
    """
    others = session.scalars(
        select(Certification).where(
            Certification.engineer_id == cert.engineer_id,
            Certification.credential_id == cert.credential_id,
            Certification.id != cert.id,
        )
    ).all()
    key = (cert.earned_on, cert.id)
    before = [c for c in others if (c.earned_on, c.id) < key]
    after = [c for c in others if (c.earned_on, c.id) > key]
    previous = max(before, key=lambda c: (c.earned_on, c.id), default=None)
    following = min(after, key=lambda c: (c.earned_on, c.id), default=None)
    if following is not None and following.renews_id is not None:
        following.renews_id = None
        session.flush()
    cert.renews_id = previous.id if previous else None
    session.flush()
    if following is not None:
        following.renews_id = cert.id
        session.flush()


def record_attempt(
    session: Session,
    engineer: Engineer,
    exam: Exam,
    attempted_on: dt.date,
    score: int,
    passed: bool,
    today: dt.date,
    recorded_by: Engineer | None = None,
    **details: object,
) -> ExamAttempt:
    """Record an exam attempt; a pass creates the certification with its expiry.

    Refused (ValidationError, nothing written) when the date is in the future
    or before the hire date, the score is outside 0-100, a retake comes inside
    the exam's waiting period, or a prerequisite is not met on the date.
    """
    errors: dict[str, str] = {}
    if attempted_on > today:
        errors["attempted_on"] = "date must not be in the future; plan the exam instead"
    elif engineer.hired_on and attempted_on < engineer.hired_on:
        errors["attempted_on"] = (
            f"date must not be before the hire date {engineer.hired_on.isoformat()}"
        )
    if isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= 100:
        errors["score"] = "score must be a whole number from 0 to 100"
    for name, limit in (("voucher_code", 80), ("proctoring", 200), ("note", MAX_NOTE_LENGTH)):
        if len(str(details.get(name) or "")) > limit:
            errors[name] = f"{name.replace('_', ' ')} must be at most {limit} characters"
    if errors:
        raise ValidationError(errors)

    certs = certifications_of(session, engineer.id)
    gaps = prerequisite_gaps(exam, certs, experience_months(engineer, attempted_on), attempted_on)
    if gaps:
        raise ValidationError({"exam": "; ".join(gaps)})

    last_failure = _last_failure(session, engineer, exam, attempted_on)
    if last_failure is not None and exam.retake_wait_days:
        opens = last_failure.attempted_on + dt.timedelta(days=exam.retake_wait_days)
        if attempted_on < opens:
            raise ValidationError(
                {
                    "attempted_on": f"a retake of {exam.code} opens on {opens.isoformat()} "
                    f"({exam.retake_wait_days} days after the attempt of "
                    f"{last_failure.attempted_on.isoformat()})"
                }
            )

    attempt = ExamAttempt(
        engineer=engineer,
        exam=exam,
        attempted_on=attempted_on,
        score=score,
        passed=passed,
        recorded_by_id=recorded_by.id if recorded_by else None,
        **details,
    )
    session.add(attempt)
    session.flush()
    if passed:
        cert = Certification(
            engineer_id=engineer.id,
            credential_id=exam.credential_id,
            earned_on=attempted_on,
            expires_on=expiry_date(attempted_on, exam.validity_months),
            attempt_id=attempt.id,
            recorded_by_id=attempt.recorded_by_id,
        )
        session.add(cert)
        session.flush()
        _link_renewal(session, cert)
    audit.record(session, attempt.recorded_by_id, attempt, "create")
    return attempt


def record_credential(
    session: Session,
    engineer: Engineer,
    credential: Credential,
    issued_on: dt.date,
    today: dt.date,
    evidence: str,
    expires_on: dt.date | None = None,
    recorded_by: Engineer | None = None,
) -> Certification:
    """Record a credential earned elsewhere, with its evidence; its expiry as entered.

    When no expiry is entered and the catalog gives the credential a validity,
    the expiry follows from it.
    """
    errors: dict[str, str] = {}
    if credential.kind == "group":
        errors["credential"] = f"{credential.code} is a group; record one of its members"
    if issued_on > today:
        errors["issued_on"] = "date must not be in the future"
    if expires_on is not None and expires_on < issued_on:
        errors["expires_on"] = "expiry must not be before the issue date"
    if not evidence.strip():
        errors["evidence"] = "evidence is required (a certificate number, a link or a note)"
    elif len(evidence.strip()) > MAX_EVIDENCE_LENGTH:
        errors["evidence"] = f"evidence must be at most {MAX_EVIDENCE_LENGTH} characters"
    if errors:
        raise ValidationError(errors)
    cert = Certification(
        engineer_id=engineer.id,
        credential_id=credential.id,
        earned_on=issued_on,
        expires_on=expires_on or expiry_date(issued_on, credential.validity_months),
        evidence=evidence.strip(),
        recorded_by_id=recorded_by.id if recorded_by else None,
    )
    session.add(cert)
    session.flush()
    _link_renewal(session, cert)
    audit.record(session, cert.recorded_by_id, cert, "create")
    return cert


HOURS_PER_DAY = Decimal(24)


def check_hours(
    hired_on: dt.date | None, logged_on: dt.date, hours: Decimal, today: dt.date, note: str
) -> None:
    """Refuse an entry's hours, date (not in the future, nor before the hire date) or note."""
    errors: dict[str, str] = {}
    if not isinstance(hours, Decimal) or not hours.is_finite():
        errors["hours"] = "hours must be a number"
    elif hours <= 0 or hours > HOURS_PER_DAY:
        errors["hours"] = "hours must be more than 0 and at most 24"
    elif hours != hours.quantize(Decimal("0.01")):
        errors["hours"] = "hours must have at most 2 decimals"
    if logged_on > today:
        errors["logged_on"] = "date must not be in the future"
    elif hired_on and logged_on < hired_on:
        errors["logged_on"] = f"date must not be before the hire date {hired_on.isoformat()}"
    if len(note.strip()) > MAX_NOTE_LENGTH:
        errors["note"] = f"note must be at most {MAX_NOTE_LENGTH} characters"
    if errors:
        raise ValidationError(errors)


# A day holds at most 24 hours whatever writes it: hour_days keeps every
# engineer's total per day (triggers on hour_logs) and its check refuses a 25th
# hour. Writers racing for one day take turns on the day's row, so the second
# sees the first's hours and is refused; nothing locks the engineer. The
# services check the total first for the usual message, and turn the
# database's refusal, which only a racing writer meets, into the same message.
DAY_CHECK = "ck_hour_days_at_most_24_hours"

# The hour-logging statements are Core statements on the tables, built once:
# the API logs hours on its hot path (issue 6), where ORM loading, flushing and
# statement building cost more than the database work.
_courses = Course.__table__
_hour_logs = HourLog.__table__
_hour_days = HourDay.__table__


def _day_total_of(engineer_id) -> ColumnElement:
    """The hours logged on :logged_on by an engineer: the total hour_days keeps."""
    return func.coalesce(
        select(_hour_days.c.hours)
        .where(
            _hour_days.c.engineer_id == engineer_id,
            _hour_days.c.logged_on == bindparam("logged_on", type_=Date),
        )
        .scalar_subquery(),
        0,
    )


_DAY_TOTAL = select(_day_total_of(bindparam("engineer_id", type_=Integer)))
# The course an entry names, by code (any case) or by id.
COURSE_NAMED = or_(
    func.upper(_courses.c.code) == bindparam("course_code", type_=String),
    _courses.c.id == bindparam("course_id", type_=Integer),
)
_FIND_COURSE = select(_courses.c.id, _courses.c.code, _courses.c.title).where(COURSE_NAMED)


def _entry_rows(engineer_id, course_id) -> Select:
    """The one row of a new entry, when the day has room for it (binds as add_hours')."""
    return select(
        engineer_id,
        course_id,
        bindparam("logged_on", type_=Date),
        bindparam("hours", type_=_hour_logs.c.hours.type),
        bindparam("note", type_=String),
        bindparam("now", type_=DateTime),
        bindparam("now", type_=DateTime),
    ).where(_day_total_of(engineer_id) <= bindparam("room_below", type_=_hour_logs.c.hours.type))


_ENTRY_COLUMNS = [c.name for c in _hour_logs.c if c.name != "id"]
# The day's total and the insert are one statement, so the check costs no
# round trip; hour_days' check still refuses the entry if a racing writer
# fills the day first.
_INSERT_WITHIN_DAY = (
    insert(_hour_logs)
    .from_select(
        _ENTRY_COLUMNS,
        _entry_rows(bindparam("engineer_id", type_=Integer), bindparam("course_id", type_=Integer)),
    )
    .returning(_hour_logs.c.id)
)
# PostgreSQL inserts the entry and its audit event in one statement; SQLite
# (no INSERT inside WITH) takes two.
_INSERT_WITHIN_DAY_AUDITED = audit.insert_for_returned(
    _INSERT_WITHIN_DAY.cte("entry"), "hour_logs", "create"
)


def hours_logged_by(finder: CTE) -> Select:
    """Return one statement that logs hours for the engineer a CTE finds (PostgreSQL).

    `finder` returns at most one row, with the columns engineer_id, hired_on
    and course_id (null when no course matches). The statement inserts the
    entry, and its audit event with the engineer as actor, when the course
    exists, the date is not before the hire date and the day has room; it
    returns finder's columns and the entry's id (null when nothing was
    inserted). It binds what add_hours' insert binds, but engineer_id,
    course_id and actor_id. The API logs an engineer's own hours this way,
    finding them by their token (api.tokens.log_own_hours).
    """
    rows = _entry_rows(finder.c.engineer_id, finder.c.course_id).where(
        finder.c.course_id.is_not(None),
        or_(finder.c.hired_on.is_(None), finder.c.hired_on <= bindparam("logged_on")),
    )
    entry = (
        insert(_hour_logs)
        .from_select(_ENTRY_COLUMNS, rows)
        .returning(_hour_logs.c.id, _hour_logs.c.engineer_id, _hour_logs.c.course_id)
        .cte("entry")
    )
    event = audit.insert_for_returned(
        entry,
        "hour_logs",
        "create",
        columns=("engineer_id", "course_id"),
        actor=entry.c.engineer_id,
    ).cte("event")
    return (
        select(finder, entry.c.id.label("entry_id"))
        .select_from(finder.outerjoin(entry, true()))
        .add_cte(event)
    )


def day_total(session: Session, engineer_id: int, logged_on: dt.date) -> Decimal:
    """Return the hours an engineer has logged on a day."""
    return (
        session.connection()
        .execute(_DAY_TOTAL, {"engineer_id": engineer_id, "logged_on": logged_on})
        .scalar_one()
    )


def overfills_a_day(exc: IntegrityError) -> bool:
    """Return whether the database refused a write for passing 24 hours on a day."""
    return DAY_CHECK in str(exc.orig)


def day_full(logged_on: dt.date, total: Decimal) -> ValidationError:
    """Return the error of an entry that does not fit in its day."""
    return ValidationError(
        {
            "hours": f"a day holds at most 24 hours; {_hours(total)} h are already "
            f"logged on {logged_on.isoformat()}"
        }
    )


def _check_day_total(
    session: Session,
    engineer: Engineer,
    logged_on: dt.date,
    hours: Decimal,
    replacing: HourLog | None = None,
) -> None:
    """Refuse hours that would pass 24 on the day; `replacing` is the entry they replace."""
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


def log_hours(
    session: Session,
    engineer: Engineer,
    course: Course,
    logged_on: dt.date,
    hours: Decimal,
    today: dt.date,
    note: str = "",
    actor: Engineer | None = None,
) -> HourLog:
    """Log hours on a course; refused when the day's total would pass 24 hours."""
    check_hours(engineer.hired_on, logged_on, hours, today, note)
    _check_day_total(session, engineer, logged_on, hours)
    entry = HourLog(
        engineer_id=engineer.id,
        course_id=course.id,
        logged_on=logged_on,
        hours=hours,
        note=note.strip(),
    )
    with _within_day(session, engineer.id, logged_on):
        session.add(entry)
    audit.record(session, actor.id if actor else None, entry, "create")
    return entry


@dataclass(frozen=True)
class LoggedHours:
    """An hour log entry written by add_hours: its columns and course, no ORM objects."""

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
        "after": audit.jsonable(
            {
                "logged_on": logged_on,
                "hours": hours,
                "note": note,
                "created_at": now,
                "updated_at": now,
            }
        ),
    }


def refuse_course(course_code: str | None, course_id: int | None) -> ValidationError:
    """Return the error of an entry naming no known course."""
    if course_code is not None:
        return ValidationError({"course": f"unknown course code {course_code!r}"})
    return ValidationError({"course_id": f"no course with id {course_id}"})


def add_hours(
    session: Session,
    engineer_id: int,
    hired_on: dt.date | None,
    logged_on: dt.date,
    hours: Decimal,
    today: dt.date,
    note: str = "",
    actor_id: int | None = None,
    *,
    course_code: str | None = None,
    course_id: int | None = None,
) -> LoggedHours:
    """log_hours without ORM objects, for the API: the same rules, in two or three statements.

    The course is given by code (any case) or by id. Find the course; insert
    the entry unless the day would pass 24 hours, with its audit event
    (write_hours).
    """
    check_hours(hired_on, logged_on, hours, today, note)
    session.flush()  # Core statements do not flush what the session holds
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
    course = CourseFound(*found)
    return write_hours(session, engineer_id, course, logged_on, hours, note, actor_id)


def write_hours(
    session: Session,
    engineer_id: int,
    course: CourseFound,
    logged_on: dt.date,
    hours: Decimal,
    note: str,
    actor_id: int | None,
) -> LoggedHours:
    """Insert an entry checked by check_hours, with its audit event, unless its day is full.

    One statement on PostgreSQL, two on SQLite (no INSERT inside WITH); a
    full day costs one more (its total, for the message). The entry must be
    the transaction's only write: when a racing writer fills the day first,
    the database refuses the entry and the transaction is rolled back (a
    savepoint would cost two round trips on every log).
    """
    assert course.id is not None and course.code is not None and course.title is not None
    note = note.strip()
    entry = LoggedHours(
        0, engineer_id, course.id, course.code, course.title, logged_on, hours, note, utcnow()
    )
    binds = entry_binds(logged_on, hours, entry.note, entry.created_at)
    binds.update(engineer_id=engineer_id, course_id=course.id)
    after = {"engineer_id": engineer_id, "course_id": course.id, **binds["after"]}
    connection = session.connection()
    try:
        if connection.dialect.name == "postgresql":
            entry_id = connection.execute(
                _INSERT_WITHIN_DAY_AUDITED, {**binds, "after": after, "actor_id": actor_id}
            ).scalar()
        else:
            entry_id = connection.execute(_INSERT_WITHIN_DAY, binds).scalar()
            if entry_id is not None:
                after = {"id": entry_id, **after}
                audit.record_row(session, actor_id, "hour_logs", entry_id, "create", after=after)
    except IntegrityError as exc:
        if not overfills_a_day(exc):
            raise
        session.rollback()
        entry_id = None
    if entry_id is None:
        raise day_full(logged_on, day_total(session, engineer_id, logged_on))
    return dataclasses.replace(entry, id=entry_id)


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


# --- planning an exam -------------------------------------------------------


@dataclass(frozen=True)
class PlanOutlook:
    """Whether an engineer will be eligible for an exam on a planned date."""

    exam: Exam
    planned_on: dt.date
    gaps: list[str]
    warnings: list[str]

    @property
    def eligible(self) -> bool:
        return not self.gaps


def plan_outlook(
    session: Session, engineer: Engineer, exam: Exam, planned_on: dt.date, today: dt.date
) -> PlanOutlook:
    """Judge an exam planned on a date from what is held today, assuming no renewals.

    A prerequisite valid today that lapses before the planned date is a gap on
    that date and is also named as a warning, so the engineer can renew first.
    """
    certs = certifications_of(session, engineer.id)
    gaps = prerequisite_gaps(exam, certs, experience_months(engineer, planned_on), planned_on)
    warnings = []
    for credential in exam.prerequisites:
        held_now = holding(certs, credential, today)
        if held_now is not None and not is_valid_on(held_now, planned_on):
            warnings.append(
                f"{held_now.credential.code} expires on {held_now.expires_on.isoformat()}, "
                f"before the planned date {planned_on.isoformat()}: renew it first"
            )
    last_failure = _last_failure(session, engineer, exam, planned_on)
    if last_failure is not None:
        opens = last_failure.attempted_on + dt.timedelta(days=exam.retake_wait_days)
        if planned_on < opens:
            gaps.append(f"a retake of {exam.code} opens on {opens.isoformat()}")
    return PlanOutlook(exam=exam, planned_on=planned_on, gaps=gaps, warnings=warnings)


def plan_exam(
    session: Session,
    engineer: Engineer,
    exam: Exam,
    planned_on: dt.date,
    today: dt.date,
    renews: Certification | None = None,
) -> ExamPlan:
    """Plan an exam on a future date (replacing an earlier plan for the same exam)."""
    if planned_on <= today:
        raise ValidationError({"planned_on": "a planned date must be after today"})
    for plan in open_plans(session, engineer.id):
        if plan.exam_id == exam.id:
            plan.cancelled_at = dt.datetime.combine(today, dt.time())
    plan = ExamPlan(
        engineer_id=engineer.id,
        exam_id=exam.id,
        planned_on=planned_on,
        renews_id=renews.id if renews else None,
    )
    session.add(plan)
    session.flush()
    return plan


def open_plans(session: Session, engineer_id: int) -> list[ExamPlan]:
    """Return an engineer's plans that are not cancelled, soonest first."""
    return list(
        session.scalars(
            select(ExamPlan)
            .where(ExamPlan.engineer_id == engineer_id, ExamPlan.cancelled_at.is_(None))
            .order_by(ExamPlan.planned_on)
        )
    )


def _last_failure(
    session: Session, engineer: Engineer, exam: Exam, on: dt.date
) -> ExamAttempt | None:
    return session.scalars(
        select(ExamAttempt)
        .where(
            ExamAttempt.engineer_id == engineer.id,
            ExamAttempt.exam_id == exam.id,
            ExamAttempt.passed.is_(False),
            ExamAttempt.attempted_on <= on,
        )
        .order_by(ExamAttempt.attempted_on.desc(), ExamAttempt.id.desc())
        .limit(1)
    ).first()


# --- the engineer's overview ------------------------------------------------


@dataclass(frozen=True)
class CertificationState:
    """A certification as the engineer sees it on a date."""

    certification: Certification
    status: Status
    days_left: int | None


@dataclass(frozen=True)
class Overview:
    """Everything the dashboard and the progress API show for one engineer on a date."""

    engineer: Engineer
    on: dt.date
    experience_months: int
    paths: list[tuple[PathProgress, Readiness]]
    certifications: list[CertificationState]
    next_steps: list[str]
    # Path code -> the valid certification of its exam, when held on `on`.
    certified: dict[str, Certification] = field(default_factory=dict)


def overview(session: Session, engineer: Engineer, on: dt.date) -> Overview:
    """Return progress per path, exam readiness, certifications and the next steps on `on`."""
    logged = logged_hours(session, engineer.id)
    certs = certifications_of(session, engineer.id)
    experience = experience_months(engineer, on)
    openings = retake_openings(session, engineer.id)
    paths = []
    for path in paths_with_courses(session):
        progress = path_progress(path, logged)
        opens = openings.get(path.exam_id) if path.exam_id else None
        paths.append((progress, exam_readiness(progress, certs, experience, on, opens)))
    states = sorted(
        (
            CertificationState(c, status_on(c, on), days_left(c, on))
            for c in newest_per_credential(certs).values()
        ),
        key=lambda s: (s.certification.expires_on or dt.date.max, s.certification.credential.code),
    )
    return Overview(
        engineer=engineer,
        on=on,
        experience_months=experience,
        paths=paths,
        certifications=states,
        next_steps=_next_steps(paths, states, certs, on),
        certified={
            p.path.code: held
            for p, _ in paths
            if p.path.exam and (held := holding(certs, p.path.exam.credential, on)) is not None
        },
    )


def _next_steps(
    paths: list[tuple[PathProgress, Readiness]],
    states: list[CertificationState],
    certs: list[Certification],
    on: dt.date,
) -> list[str]:
    """Say what to do next: renew what lapses soon, then the first unfinished path."""
    steps = [
        f"Renew {s.certification.credential.code}: it expires in {s.days_left} days "
        f"({s.certification.expires_on.isoformat()})"
        for s in states
        if s.status is Status.EXPIRING
    ]
    for progress, readiness in paths:
        exam = progress.path.exam
        if exam is not None:
            held = holding(certs, exam.credential, on)
            if held is not None:
                continue
            lapsed = latest_for(certs, exam.credential)
            if lapsed is not None and lapsed.expires_on is not None and lapsed.expires_on < on:
                steps.append(
                    f"{exam.code} expired on {lapsed.expires_on.isoformat()}: take it again"
                )
        if progress.open_courses:
            course = progress.open_courses[0]
            steps.append(
                f"Study {course.course.title} ({progress.path.name} path): "
                f"{_hours(course.logged)} of {_hours(course.required)} h logged"
            )
        elif exam is not None and readiness.ready:
            steps.append(
                f"Exam {exam.code} is open to you: every {progress.path.name} course is complete"
            )
        elif exam is not None:
            steps.append(f"Exam {exam.code} is blocked: " + "; ".join(readiness.prerequisite_gaps))
        break
    return steps


def credential_for_entry(
    session: Session, code: str | None = None, name: str | None = None, issuer: str | None = None
) -> Credential:
    """Return the catalog credential with `code`, or one for a credential the catalog lacks.

    One outside the catalog is created once per name and issuer (origin "engineer"),
    so two people entering the same certificate share a row.
    """
    if code:
        credential = session.scalars(
            select(Credential).where(Credential.code == code.strip().upper())
        ).one_or_none()
        if credential is None or credential.kind == "group":
            raise ValidationError({"code": f"unknown credential code {code!r}"})
        return credential
    errors = {}
    if not name or not name.strip():
        errors["name"] = "name is required for a credential outside the catalog"
    elif len(name.strip()) > 200:
        errors["name"] = "name must be at most 200 characters"
    if not issuer or not issuer.strip():
        errors["issuer"] = "issuer is required for a credential outside the catalog"
    elif len(issuer.strip()) > 120:
        errors["issuer"] = "issuer must be at most 120 characters"
    if errors:
        raise ValidationError(errors)
    name, issuer = name.strip(), issuer.strip()
    existing = session.scalars(
        select(Credential).where(
            Credential.origin == "engineer",
            func.lower(Credential.name) == name.lower(),
            func.lower(Credential.issuer) == issuer.lower(),
        )
    ).first()
    if existing is not None:
        return existing
    slug = "".join(ch if ch.isalnum() else "-" for ch in name.upper())[:24].strip("-")
    # A random suffix: counting rows could collide after a deletion or a race.
    credential = Credential(
        code=f"X-{slug}-{secrets.token_hex(4).upper()}",
        name=name,
        issuer=issuer,
        kind="external",
        origin="engineer",
    )
    session.add(credential)
    session.flush()
    return credential


def logged_hours_for(
    session: Session, engineer_ids: Iterable[int]
) -> dict[int, dict[int, Decimal]]:
    """Return engineer id -> course id -> hours logged, for many engineers in one query."""
    ids = list(engineer_ids)
    result: dict[int, dict[int, Decimal]] = {i: {} for i in ids}
    if not ids:
        return result
    rows = session.execute(
        select(HourLog.engineer_id, HourLog.course_id, func.sum(HourLog.hours))
        .where(HourLog.engineer_id.in_(ids))
        .group_by(HourLog.engineer_id, HourLog.course_id)
    )
    for engineer_id, course_id, total in rows:
        result[engineer_id][course_id] = total
    return result
