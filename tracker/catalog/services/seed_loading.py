"""Load a seed file into the catalog: upsert by code, writing only what differs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tracker.catalog.models.credentials import Course, Credential, Exam, LearningPath, PathCourse
from tracker.catalog.models.levels import Level
from tracker.catalog.models.planning import RoiLine, TrainingStrategy
from tracker.catalog.models.skills import JobRole, Speciality
from tracker.catalog.models.team_templates import TeamTemplate, TemplateSlot
from tracker.catalog.schemas import SeedFile
from tracker.catalog.services.seed_reading import SeedError, read_seed


@dataclass
class LoadReport:
    """What a load changed."""

    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    # Rows counted so far, keyed by identity; holding them keeps each id()
    # unique (the session only holds weak references to clean rows).
    _seen: dict[tuple[str, int], object] = field(default_factory=dict, repr=False)

    def count(self, table: str, created: bool, obj: object = None) -> None:
        """Count a created or updated row once, however many of its parts changed."""
        if obj is not None:
            if (table, id(obj)) in self._seen:
                return
            self._seen[(table, id(obj))] = obj
        bucket = self.created if created else self.updated
        bucket[table] = bucket.get(table, 0) + 1

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated)

    def summary(self) -> str:
        if not self.changed:
            return "catalog unchanged"
        parts = [f"{n} {t} created" for t, n in sorted(self.created.items())]
        parts += [f"{n} {t} updated" for t, n in sorted(self.updated.items())]
        return "catalog: " + ", ".join(parts)


class _Loader:
    """Upsert seed data by code, writing only what differs."""

    def __init__(self, session: Session, report: LoadReport) -> None:
        self.session = session
        self.report = report
        self.created: dict[int, Any] = {}

    def is_new(self, obj: Any) -> bool:
        return id(obj) in self.created

    def assign(self, obj: Any, values: dict[str, Any], created: bool) -> None:
        changed = False
        for key, value in values.items():
            if getattr(obj, key) != value:
                setattr(obj, key, value)
                changed = True
        if created:
            self.session.add(obj)
            self.created[id(obj)] = obj
            self.report.count(type(obj).__tablename__, True, obj)
        elif changed:
            self.report.count(type(obj).__tablename__, False, obj)

    def upsert(self, model: type, key: dict[str, Any], values: dict[str, Any]) -> Any:
        obj = self.session.scalars(select(model).filter_by(**key)).one_or_none()
        if obj is not None and getattr(obj, "origin", "seed") != "seed":
            # The organisation made this code itself; the seed must not take it over.
            raise SeedError(
                f"{model.__tablename__} {key}: the code is already used by an entry "
                f"created in the tracker ({obj.origin}); rename it in the seed file"
            )
        created = obj is None
        if created:
            obj = model(**key)
        self.assign(obj, values, created)
        return obj

    def replace_list(self, obj: Any, attr: str, items: list[Any]) -> None:
        if list(getattr(obj, attr)) != items:
            setattr(obj, attr, items)
            if not self.is_new(obj):
                self.report.count(type(obj).__tablename__, False, obj)


def load_seed(session: Session, path: str | Path) -> LoadReport:
    """Load a seed file into the catalog; flush, leaving the commit to the caller.

    Validation happens before any write, so a broken file changes nothing.
    """
    data = read_seed(path)
    report = LoadReport()
    loader = _Loader(session, report)
    try:
        _apply(loader, data)
        session.flush()
    except IntegrityError as exc:
        # Rows the organisation added from the web can collide with new seed codes.
        raise SeedError(f"{path}: conflicts with the catalog in the database: {exc.orig}") from None
    return report


def _apply(loader: _Loader, data: SeedFile) -> None:
    session = loader.session
    upsert = loader.upsert

    credentials: dict[str, Credential] = {}
    for exam in data.exams:
        credentials[exam.code] = upsert(
            Credential,
            {"code": exam.code},
            {
                "name": exam.name,
                "issuer": exam.issuer,
                "kind": "exam",
                "origin": "seed",
                "validity_months": exam.validity_months,
            },
        )
    for cred in data.credentials:
        credentials[cred.code] = upsert(
            Credential,
            {"code": cred.code},
            {
                "name": cred.name,
                "name_es": cred.name_es,
                "issuer": cred.issuer,
                "issuer_es": cred.issuer_es,
                "kind": "external",
                "origin": "seed",
                "validity_months": cred.validity_months,
                "description": cred.description,
                "description_es": cred.description_es,
            },
        )
    for group in data.groups:
        credentials[group.code] = upsert(
            Credential,
            {"code": group.code},
            {
                "name": group.name,
                "name_es": group.name_es,
                "kind": "group",
                "origin": "seed",
                "validity_months": None,
            },
        )
    session.flush()

    def creds(codes: Iterable[str]) -> list[Credential]:
        return sorted((credentials[c] for c in codes), key=lambda c: c.code)

    for group in data.groups:
        loader.replace_list(credentials[group.code], "members", creds(group.members))

    for level in data.levels:
        row = upsert(
            Level,
            {"number": level.number},
            {
                "name": level.name,
                "name_es": level.name_es,
                "experience_label": level.experience,
                "experience_label_es": level.experience_es,
                "summary": level.summary,
                "summary_es": level.summary_es,
                "salary_min": level.salary_min,
                "salary_max": level.salary_max,
                "min_experience_months": level.min_experience_months,
                "requires_evidence": level.requires_evidence,
            },
        )
        loader.replace_list(row, "required_credentials", creds(level.requires))

    roles = {
        r.code: upsert(JobRole, {"code": r.code}, {"name": r.name, "name_es": r.name_es})
        for r in data.job_roles
    }

    exams: dict[str, Exam] = {}
    for exam in data.exams:
        credential = credentials[exam.code]
        existing = session.scalars(
            select(Exam).filter_by(credential_id=credential.id)
        ).one_or_none()
        row = existing or Exam(credential=credential)
        loader.assign(
            row,
            {
                "level_label": exam.level,
                "questions": exam.questions,
                "minutes": exam.minutes,
                "delivery": exam.delivery,
                "delivery_es": exam.delivery_es,
                "experience_months": exam.experience_months,
                "retake_wait_days": exam.retake_wait_days,
                "passing_score": exam.passing_score,
                "list_price": exam.list_price,
            },
            created=existing is None,
        )
        loader.replace_list(row, "prerequisites", creds(exam.prerequisites))
        exams[exam.code] = row

    courses = {
        c.code: upsert(
            Course,
            {"code": c.code},
            {
                "title": c.title,
                "hours": c.hours,
                "provider": c.provider,
                "list_price": c.list_price,
                "origin": "seed",
            },
        )
        for c in data.courses
    }
    session.flush()

    for path in data.paths:
        row = upsert(
            LearningPath,
            {"code": path.code},
            {
                "name": path.name,
                "name_es": path.name_es,
                "target_months": path.target_months,
                "exam": exams[path.exam] if path.exam else None,
                "origin": "seed",
            },
        )
        wanted = [courses[c].id for c in path.courses]
        if [pc.course_id for pc in row.path_courses] != wanted:
            row.path_courses.clear()
            session.flush()
            row.path_courses.extend(
                PathCourse(position=i, course_id=cid) for i, cid in enumerate(wanted, start=1)
            )
            if not loader.is_new(row):
                loader.report.count("learning_paths", False, row)

    for template in data.templates:
        row = upsert(
            TeamTemplate,
            {"code": template.code},
            {
                "name": template.name,
                "name_es": template.name_es,
                "min_gpus": template.min_gpus,
                "max_gpus": template.max_gpus,
                "cost_min": template.cost_min,
                "cost_max": template.cost_max,
            },
        )
        loader.replace_list(row, "team_credentials", creds(template.credentials))
        wanted_slots = [
            (
                i,
                s.title,
                s.title_es,
                s.count,
                roles[s.role].id,
                s.min_level,
                s.max_level,
                [c.id for c in creds(s.certifications)],
            )
            for i, s in enumerate(template.slots, start=1)
        ]
        current_slots = [
            (
                s.position,
                s.title,
                s.title_es,
                s.count,
                s.job_role_id,
                s.min_level,
                s.max_level,
                [c.id for c in s.credentials],
            )
            for s in row.slots
        ]
        if current_slots != wanted_slots:
            # Edited in place, position by position: a slot keeps its row (and id)
            # through a new count or a translated title.
            kept = list(row.slots)
            for position, slot in enumerate(template.slots, start=1):
                values: dict[str, Any] = {
                    "position": position,
                    "title": slot.title,
                    "title_es": slot.title_es,
                    "count": slot.count,
                    "job_role": roles[slot.role],
                    "min_level": slot.min_level,
                    "max_level": slot.max_level,
                    "credentials": creds(slot.certifications),
                }
                if position <= len(kept):
                    existing = kept[position - 1]
                    for key, value in values.items():
                        if getattr(existing, key) != value:
                            setattr(existing, key, value)
                else:
                    row.slots.append(TemplateSlot(**values))
            for extra in kept[len(template.slots) :]:
                row.slots.remove(extra)
            if not loader.is_new(row):
                loader.report.count("team_templates", False, row)

    for strategy in data.strategies:
        upsert(TrainingStrategy, {"code": strategy.code}, strategy.model_dump(exclude={"code"}))

    for kind, key in (("investment", "investment"), ("return", "returns")):
        for position, line in enumerate(getattr(data.roi, key), start=1):
            upsert(
                RoiLine,
                {"kind": kind, "code": line.code},
                {
                    "label": line.label,
                    "label_es": line.label_es,
                    "amount": line.amount,
                    "position": position,
                },
            )

    for spec in data.specialities:
        upsert(
            Speciality,
            {"code": spec.code},
            {
                "name": spec.name,
                "name_es": spec.name_es,
                "emerging": spec.emerging,
                "ramp_up_months": spec.ramp_up,
                "ramp_up_months_es": spec.ramp_up_es,
            },
        )
