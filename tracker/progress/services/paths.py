"""Paths: progress along learning paths, exam prerequisites and readiness."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tracker.catalog.models.credentials import Course, Exam, LearningPath
from tracker.i18n import amount, day, msg
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.progress.services.validity import holding, latest_for

ZERO = Decimal(0)


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
                msg(
                    "%(exam)s requires a valid %(credential)s; it was valid through %(date)s",
                    exam=exam.code,
                    credential=credential.code,
                    date=day(last.expires_on),
                )
            )
        else:
            gaps.append(
                msg(
                    "%(exam)s requires a valid %(credential)s (%(name)s)",
                    exam=exam.code,
                    credential=credential.code,
                    name=credential.name,
                )
            )
    if experience < exam.experience_months:
        gaps.append(
            msg(
                "%(exam)s requires %(months)s months of documented experience;"
                " %(experience)s on %(date)s",
                exam=exam.code,
                months=exam.experience_months,
                experience=experience,
                date=day(on),
            )
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
        courses: list[str] = [
            msg(
                "course %(code)s (%(title)s) is open: %(logged)s of %(required)s h logged",
                code=c.course.code,
                title=c.course.title,
                logged=amount(c.logged),
                required=amount(c.required),
            )
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
        gaps.append(
            msg("a retake of %(exam)s opens on %(date)s", exam=exam.code, date=day(retake_opens))
        )
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
