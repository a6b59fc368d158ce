"""The engineer's overview: what the dashboard and the progress API show on a date."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.catalog.services.reads import paths_with_courses
from tracker.i18n import amount, day, join, msg, named
from tracker.people.models import Engineer
from tracker.progress.models import Certification, HourLog
from tracker.progress.services.certifications import certifications_of
from tracker.progress.services.paths import (
    PathProgress,
    Readiness,
    exam_readiness,
    logged_hours,
    path_progress,
    retake_openings,
)
from tracker.progress.services.validity import (
    Status,
    days_left,
    experience_months,
    holding,
    latest_for,
    newest_per_credential,
    status_on,
)


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
    steps: list[str] = [
        msg(
            "Renew %(credential)s: it is valid through %(date)s, %(days)s days from today",
            credential=s.certification.credential.code,
            days=s.days_left,
            date=day(expires_on),
        )
        for s in states
        # Only a certification with an expiry is ever expiring.
        if s.status is Status.EXPIRING and (expires_on := s.certification.expires_on) is not None
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
                    msg(
                        "%(exam)s was valid through %(date)s: take it again",
                        exam=exam.code,
                        date=day(lapsed.expires_on),
                    )
                )
        if progress.open_courses:
            course = progress.open_courses[0]
            steps.append(
                msg(
                    "Study %(course)s (%(path)s path): %(logged)s of %(required)s h logged",
                    course=course.course.title,
                    path=named(progress.path),
                    logged=amount(course.logged),
                    required=amount(course.required),
                )
            )
        elif exam is not None and readiness.ready:
            steps.append(
                msg(
                    "Exam %(exam)s is open to you: every %(path)s course is complete",
                    exam=exam.code,
                    path=named(progress.path),
                )
            )
        elif exam is not None:
            steps.append(
                msg(
                    "Exam %(exam)s is blocked: %(gaps)s",
                    exam=exam.code,
                    gaps=join(readiness.prerequisite_gaps),
                )
            )
        break
    return steps


def course_to_study(session: Session, engineer_id: int, on: dt.date) -> int | None:
    """Return the id of the course an engineer is studying on `on`, or None.

    The course of their newest hour log (the top of their entries); without
    one, the first course of the first path whose exam they do not hold valid
    (with no hours logged, none of its courses is complete).
    """
    newest = session.scalar(
        select(HourLog.course_id)
        .where(HourLog.engineer_id == engineer_id)
        .order_by(HourLog.logged_on.desc(), HourLog.id.desc())
        .limit(1)
    )
    if newest is not None:
        return newest
    certs = certifications_of(session, engineer_id)
    for path in paths_with_courses(session):
        if path.exam is not None and holding(certs, path.exam.credential, on) is not None:
            continue
        if path.courses:
            return path.courses[0].id
    return None
