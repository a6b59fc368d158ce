"""A person's records in the file: hours, exams, plans, certifications, and their career's."""

from __future__ import annotations

from sqlalchemy import or_
from sqlalchemy.orm import Session, selectinload

from tracker.careers.models import Apprenticeship, Evidence, SkillAssessment
from tracker.catalog.models.credentials import Credential, Exam
from tracker.people.models import Engineer
from tracker.privacy.services.values import Json, day, moment, names_of, number, person_ref, rows_of
from tracker.progress.models import Certification, ExamAttempt, ExamPlan, HourLog


def _exam(exam: Exam) -> Json:
    return {"code": exam.credential.code, "name": exam.credential.name}


def _credential(credential: Credential) -> Json:
    return {"code": credential.code, "name": credential.name, "issuer": credential.issuer}


def hour_logs(session: Session, engineer: Engineer) -> list[Json]:
    """Return the person's logged hours, by day then entry."""
    rows = rows_of(
        session,
        HourLog,
        HourLog.engineer_id == engineer.id,
        HourLog.logged_on,
        selectinload(HourLog.course),
    )
    return [
        {
            "id": row.id,
            "course": {"code": row.course.code, "title": row.course.title},
            "logged_on": day(row.logged_on),
            "hours": number(row.hours),
            "note": row.note,
            "created_at": moment(row.created_at),
            "updated_at": moment(row.updated_at),
        }
        for row in rows
    ]


def exam_attempts(session: Session, engineer: Engineer) -> list[Json]:
    """Return the person's exam attempts, by day then attempt, with who recorded each."""
    rows = rows_of(
        session,
        ExamAttempt,
        ExamAttempt.engineer_id == engineer.id,
        ExamAttempt.attempted_on,
        selectinload(ExamAttempt.exam).selectinload(Exam.credential),
    )
    names = names_of(session, (row.recorded_by_id for row in rows))
    return [
        {
            "id": row.id,
            "exam": _exam(row.exam),
            "attempted_on": day(row.attempted_on),
            "score": row.score,
            "passed": row.passed,
            "cost": number(row.cost),
            "voucher_code": row.voucher_code,
            "proctoring": row.proctoring,
            "note": row.note,
            "recorded_by": person_ref(row.recorded_by_id, names),
            "created_at": moment(row.created_at),
        }
        for row in rows
    ]


def exam_plans(session: Session, engineer: Engineer) -> list[Json]:
    """Return the exams the person planned (cancelled ones too), by day then plan."""
    rows = rows_of(
        session,
        ExamPlan,
        ExamPlan.engineer_id == engineer.id,
        ExamPlan.planned_on,
        selectinload(ExamPlan.exam).selectinload(Exam.credential),
    )
    return [
        {
            "id": row.id,
            "exam": _exam(row.exam),
            "planned_on": day(row.planned_on),
            "renews_certification_id": row.renews_id,
            "cancelled_at": moment(row.cancelled_at),
            "created_at": moment(row.created_at),
        }
        for row in rows
    ]


def certifications(session: Session, engineer: Engineer) -> list[Json]:
    """Return the person's certifications, by the day earned then certification."""
    rows = rows_of(
        session,
        Certification,
        Certification.engineer_id == engineer.id,
        Certification.earned_on,
        selectinload(Certification.credential),
    )
    names = names_of(session, (row.recorded_by_id for row in rows))
    return [
        {
            "id": row.id,
            "credential": _credential(row.credential),
            "earned_on": day(row.earned_on),
            "expires_on": day(row.expires_on),
            "attempt_id": row.attempt_id,
            "renews_id": row.renews_id,
            "evidence": row.evidence,
            "recorded_by": person_ref(row.recorded_by_id, names),
            "verified_at": moment(row.verified_at),
            "revoked_on": day(row.revoked_on),
            "created_at": moment(row.created_at),
        }
        for row in rows
    ]


def evidence(session: Session, engineer: Engineer) -> list[Json]:
    """Return the person's career evidence (patents, publications, deployments led)."""
    rows = rows_of(session, Evidence, Evidence.engineer_id == engineer.id, Evidence.occurred_on)
    return [
        {
            "id": row.id,
            "kind": row.kind,
            "title": row.title,
            "occurred_on": day(row.occurred_on),
            "note": row.note,
            "created_at": moment(row.created_at),
        }
        for row in rows
    ]


def skill_assessments(session: Session, engineer: Engineer) -> list[Json]:
    """Return every proficiency recorded for the person, the oldest first, with who set it."""
    rows = rows_of(
        session,
        SkillAssessment,
        SkillAssessment.engineer_id == engineer.id,
        SkillAssessment.created_at,
        selectinload(SkillAssessment.speciality),
    )
    names = names_of(session, (row.assessed_by_id for row in rows))
    return [
        {
            "id": row.id,
            "speciality": {"code": row.speciality.code, "name": row.speciality.name},
            "proficiency": row.proficiency,
            "confirmed": row.confirmed,
            "assessed_by": person_ref(row.assessed_by_id, names),
            "created_at": moment(row.created_at),
        }
        for row in rows
    ]


def apprenticeships(session: Session, engineer: Engineer) -> list[Json]:
    """Return the apprenticeships the person was in, as junior or senior, by start."""
    rows = rows_of(
        session,
        Apprenticeship,
        or_(Apprenticeship.junior_id == engineer.id, Apprenticeship.senior_id == engineer.id),
        Apprenticeship.starts_on,
        selectinload(Apprenticeship.path),
    )
    names = names_of(session, (i for row in rows for i in (row.junior_id, row.senior_id)))
    return [
        {
            "id": row.id,
            "role": "junior" if row.junior_id == engineer.id else "senior",
            "junior": person_ref(row.junior_id, names),
            "senior": person_ref(row.senior_id, names),
            "path": None if row.path is None else {"code": row.path.code, "name": row.path.name},
            "starts_on": day(row.starts_on),
            "ends_on": day(row.ends_on),
            "productivity_loss_percent": row.productivity_loss_percent,
            "note": row.note,
        }
        for row in rows
    ]
