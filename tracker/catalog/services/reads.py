"""Read the catalog back: as plain data, and the learning paths with their courses."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload, selectinload

from tracker.catalog.models.credentials import Credential, Exam, LearningPath, PathCourse
from tracker.catalog.models.levels import Level
from tracker.catalog.models.planning import RoiLine, TrainingStrategy
from tracker.catalog.models.skills import JobRole, Speciality
from tracker.catalog.models.team_templates import TeamTemplate, TemplateSlot
from tracker.catalog.rules import ROI_KINDS


def paths_with_courses(session: Session) -> list[LearningPath]:
    """Return every learning path with its courses and exam loaded."""
    return list(
        session.scalars(
            select(LearningPath)
            .options(
                # Many-to-one loads ride on their parent's query (joined).
                selectinload(LearningPath.path_courses).joinedload(PathCourse.course),
                joinedload(LearningPath.exam).joinedload(Exam.credential),
                joinedload(LearningPath.exam).selectinload(Exam.prerequisites),
            )
            .order_by(LearningPath.id)
        )
    )


def catalog_dict(session: Session) -> dict[str, Any]:
    """Return the loaded catalog as plain data (the `tracker catalog --json` shape)."""
    levels = session.scalars(
        select(Level).options(selectinload(Level.required_credentials)).order_by(Level.number)
    ).all()
    paths = session.scalars(
        select(LearningPath)
        .options(selectinload(LearningPath.path_courses).selectinload(PathCourse.course))
        .order_by(LearningPath.id)
    ).all()
    exams = session.scalars(
        select(Exam).options(selectinload(Exam.prerequisites)).order_by(Exam.id)
    ).all()
    credentials = session.scalars(select(Credential).order_by(Credential.code)).all()
    templates = session.scalars(
        select(TeamTemplate)
        .options(selectinload(TeamTemplate.slots).selectinload(TemplateSlot.credentials))
        .order_by(TeamTemplate.min_gpus)
    ).all()
    strategies = session.scalars(select(TrainingStrategy).order_by(TrainingStrategy.id)).all()
    roi_lines = session.scalars(select(RoiLine).order_by(RoiLine.kind, RoiLine.position)).all()
    specialities = session.scalars(select(Speciality).order_by(Speciality.id)).all()
    roles = session.scalars(select(JobRole).order_by(JobRole.id)).all()

    def number(value: Decimal | None) -> int | float | None:
        if value is None:
            return None
        return int(value) if value == value.to_integral_value() else float(value)

    codes: Callable[[Iterable[Credential]], list[str]] = lambda cs: [c.code for c in cs]  # noqa: E731
    return {
        "levels": [
            {
                "number": lv.number,
                "name": lv.name,
                "name_es": lv.name_es,
                "experience": lv.experience_label,
                "experience_es": lv.experience_label_es,
                "salary_min": lv.salary_min,
                "salary_max": lv.salary_max,
                "min_experience_months": lv.min_experience_months,
                "requires": codes(lv.required_credentials),
                "requires_evidence": lv.requires_evidence,
            }
            for lv in levels
        ],
        "job_roles": [{"code": r.code, "name": r.name, "name_es": r.name_es} for r in roles],
        "paths": [
            {
                "code": p.code,
                "name": p.name,
                "name_es": p.name_es,
                "target_months": p.target_months,
                "exam": p.exam.code if p.exam else None,
                "total_hours": number(p.total_hours),
                "courses": [
                    {
                        "code": c.code,
                        "title": c.title,
                        "title_es": c.title_es,
                        "hours": number(c.hours),
                        "provider": c.provider,
                    }
                    for c in p.courses
                ],
            }
            for p in paths
        ],
        "exams": [
            {
                "code": e.code,
                "name": e.name,
                "name_es": e.name_es,
                "level": e.level_label,
                "questions": e.questions,
                "minutes": e.minutes,
                "delivery": e.delivery,
                "delivery_es": e.delivery_es,
                "validity_months": e.validity_months,
                "prerequisites": codes(e.prerequisites),
                "experience_months": e.experience_months,
                "retake_wait_days": e.retake_wait_days,
                "passing_score": e.passing_score,
                "list_price": number(e.list_price),
            }
            for e in exams
        ],
        "credentials": [
            {
                "code": c.code,
                "name": c.name,
                "name_es": c.name_es,
                "issuer": c.issuer,
                "issuer_es": c.issuer_es,
                "validity_months": c.validity_months,
                "origin": c.origin,
            }
            for c in credentials
            if c.kind == "external"
        ],
        "groups": [
            {"code": c.code, "name": c.name, "name_es": c.name_es, "members": codes(c.members)}
            for c in credentials
            if c.kind == "group"
        ],
        "templates": [
            {
                "code": t.code,
                "name": t.name,
                "name_es": t.name_es,
                "min_gpus": t.min_gpus,
                "max_gpus": t.max_gpus,
                "cost_min": t.cost_min,
                "cost_max": t.cost_max,
                "slot_total": t.slot_total,
                "credentials": codes(t.team_credentials),
                "slots": [
                    {
                        "title": s.title,
                        "title_es": s.title_es,
                        "count": s.count,
                        "role": s.job_role.code,
                        "min_level": s.min_level,
                        "max_level": s.max_level,
                        "certifications": codes(s.credentials),
                    }
                    for s in t.slots
                ],
            }
            for t in templates
        ],
        "strategies": [
            {
                "code": s.code,
                "name": s.name,
                "name_es": s.name_es,
                "min_weeks": s.min_weeks,
                "max_weeks": s.max_weeks,
                "cost_min": s.cost_min,
                "cost_max": s.cost_max,
                "discount_min_percent": s.discount_min_percent,
                "discount_max_percent": s.discount_max_percent,
                "min_group_size": s.min_group_size,
                "productivity_loss_percent": s.productivity_loss_percent,
            }
            for s in strategies
        ],
        "roi": {
            kind: [
                {"code": r.code, "label": r.label, "label_es": r.label_es, "amount": r.amount}
                for r in roi_lines
                if r.kind == kind
            ]
            for kind in ROI_KINDS
        },
        "specialities": [
            {"code": s.code, "name": s.name, "name_es": s.name_es, "emerging": s.emerging}
            for s in specialities
        ],
    }
