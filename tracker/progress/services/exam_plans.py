"""Exam plans: planning an exam on a future date and judging it from what is held."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.catalog.models.credentials import Exam
from tracker.errors import ValidationError
from tracker.i18n import N_, day, msg
from tracker.people.models import Engineer
from tracker.progress.models import Certification, ExamPlan
from tracker.progress.services.certifications import certifications_of, last_failure
from tracker.progress.services.paths import prerequisite_gaps
from tracker.progress.services.validity import experience_months, holding, is_valid_on


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
    warnings: list[str] = []
    for credential in exam.prerequisites:
        held_now = holding(certs, credential, today)
        if held_now is None or is_valid_on(held_now, planned_on):
            continue
        if (expires_on := held_now.expires_on) is not None:
            warnings.append(
                msg(
                    "%(credential)s is valid only through %(date)s, before the planned"
                    " date %(planned)s: renew it first",
                    credential=held_now.credential.code,
                    date=day(expires_on),
                    planned=day(planned_on),
                )
            )
    failure = last_failure(session, engineer, exam, planned_on)
    if failure is not None:
        opens = failure.attempted_on + dt.timedelta(days=exam.retake_wait_days)
        if planned_on < opens:
            gaps.append(
                msg("a retake of %(exam)s opens on %(date)s", exam=exam.code, date=day(opens))
            )
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
        raise ValidationError({"planned_on": N_("a planned date must be after today")})
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


def cancel_plan(session: Session, plan: ExamPlan, now: dt.datetime) -> None:
    """Cancel a planned exam: it no longer shows, and its renewal's reminders come again."""
    if plan.cancelled_at is None:
        plan.cancelled_at = now
        session.flush()


def open_plans(session: Session, engineer_id: int) -> list[ExamPlan]:
    """Return an engineer's plans that are not cancelled, soonest first."""
    return list(
        session.scalars(
            select(ExamPlan)
            .where(ExamPlan.engineer_id == engineer_id, ExamPlan.cancelled_at.is_(None))
            .order_by(ExamPlan.planned_on)
        )
    )
