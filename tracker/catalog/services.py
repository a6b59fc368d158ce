"""Catalog rules: loading seed/ into the database, reading the catalog back."""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from tracker.catalog.models import (
    Course,
    Credential,
    Exam,
    JobRole,
    LearningPath,
    Level,
    PathCourse,
    RoiLine,
    Speciality,
    TeamTemplate,
    TemplateSlot,
    TrainingStrategy,
)


class SeedError(Exception):
    """The seed file cannot be loaded; the message names the file and the entry."""


# --- reading and validating the file ---------------------------------------


@dataclass(frozen=True)
class F:
    """One field of a seed entry: its type, whether it is required, its bounds."""

    kind: str  # "str", "int", "hours", "bool", "codes"
    required: bool = True
    default: Any = None
    min: int | None = None
    max: int | None = None


def _str(**kw: Any) -> F:
    return F("str", **kw)


def _int(**kw: Any) -> F:
    return F("int", **kw)


SECTIONS: dict[str, dict[str, F]] = {
    "levels": {
        "number": _int(min=1, max=5),
        "name": _str(),
        "experience": _str(required=False, default=""),
        "summary": _str(required=False, default=""),
        "salary_min": _int(min=0),
        "salary_max": _int(min=0),
        "min_experience_months": _int(required=False, default=0, min=0),
        "requires": F("codes", required=False, default=()),
        "requires_evidence": F("bool", required=False, default=False),
    },
    "job_roles": {"code": _str(), "name": _str()},
    "exams": {
        "code": _str(),
        "name": _str(),
        "issuer": _str(required=False, default="NVIDIA"),
        "level": _str(required=False, default=""),
        "questions": _int(required=False, min=1),
        "minutes": _int(required=False, min=1),
        "delivery": _str(required=False, default=""),
        "validity_months": _int(required=False, min=1),
        "prerequisites": F("codes", required=False, default=()),
        "experience_months": _int(required=False, default=0, min=0),
        "retake_wait_days": _int(required=False, default=14, min=0),
        "passing_score": _int(required=False, default=70, min=0, max=100),
        "list_price": F("money", required=False),
    },
    "credentials": {
        "code": _str(),
        "name": _str(),
        "issuer": _str(required=False, default=""),
        "validity_months": _int(required=False, min=1),
        "description": _str(required=False, default=""),
    },
    "groups": {"code": _str(), "name": _str(), "members": F("codes")},
    "courses": {
        "code": _str(),
        "title": _str(),
        "hours": F("hours"),
        "provider": _str(required=False, default=""),
        "list_price": F("money", required=False),
    },
    "paths": {
        "code": _str(),
        "name": _str(),
        "target_months": _int(min=1),
        "exam": _str(required=False),
        "courses": F("codes"),
    },
    "templates": {
        "code": _str(),
        "name": _str(),
        "min_gpus": _int(min=0),
        "max_gpus": _int(required=False, min=0),
        "cost_min": _int(min=0),
        "cost_max": _int(min=0),
        "credentials": F("codes", required=False, default=()),
        "slots": F("tables"),
    },
    "slots": {
        "title": _str(),
        "count": _int(min=1),
        "role": _str(),
        "min_level": _int(min=1, max=5),
        "max_level": _int(min=1, max=5),
        "certifications": F("codes", required=False, default=()),
    },
    "strategies": {
        "code": _str(),
        "name": _str(),
        "description": _str(required=False, default=""),
        "min_weeks": _int(required=False, min=0),
        "max_weeks": _int(required=False, min=0),
        "cost_min": _int(required=False, min=0),
        "cost_max": _int(required=False, min=0),
        "discount_min_percent": _int(required=False, min=0, max=100),
        "discount_max_percent": _int(required=False, min=0, max=100),
        "min_group_size": _int(required=False, min=1),
        "productivity_loss_percent": _int(required=False, min=0, max=100),
    },
    "roi_lines": {"code": _str(), "label": _str(), "amount": _int(min=0)},
    "specialities": {
        "code": _str(),
        "name": _str(),
        "emerging": F("bool", required=False, default=False),
        "ramp_up": _str(required=False, default="6-12 months"),
    },
}


def _coerce(value: Any, spec: F, where: str) -> Any:
    """Return the value checked against its field spec, or raise naming where."""
    if spec.kind == "str":
        if not isinstance(value, str) or (spec.required and not value.strip()):
            raise SeedError(f"{where}: must be a non-empty text")
        return value.strip()
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise SeedError(f"{where}: must be true or false")
        return value
    if spec.kind == "codes":
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise SeedError(f"{where}: must be a list of codes")
        if len(set(value)) != len(value):
            raise SeedError(f"{where}: lists a code twice")
        return tuple(value)
    if spec.kind == "tables":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise SeedError(f"{where}: must be a list of tables")
        return value
    if spec.kind in ("hours", "money"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SeedError(f"{where}: must be a number")
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            raise SeedError(f"{where}: must be a number") from None
        if not number.is_finite() or number != number.quantize(Decimal("0.01")):
            raise SeedError(f"{where}: must be a number with at most 2 decimals")
        if spec.kind == "hours" and number <= 0:
            raise SeedError(f"{where}: must be more than 0 hours (got {value})")
        if number < 0:
            raise SeedError(f"{where}: must not be negative (got {value})")
        return number
    # int
    if isinstance(value, bool) or not isinstance(value, int):
        raise SeedError(f"{where}: must be a whole number")
    if spec.min is not None and value < spec.min:
        raise SeedError(f"{where}: must be at least {spec.min} (got {value})")
    if spec.max is not None and value > spec.max:
        raise SeedError(f"{where}: must be at most {spec.max} (got {value})")
    return value


def _entries(raw: Any, section: str, file: str, key: str = "code") -> list[dict[str, Any]]:
    """Validate a list of tables against SECTIONS[section]; return clean dicts."""
    spec = SECTIONS[section]
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise SeedError(f"{file}: [{section}] must be a list of tables ([[{section}]])")
    seen: set[Any] = set()
    clean: list[dict[str, Any]] = []
    for index, entry in enumerate(raw, start=1):
        name = entry.get(key) if isinstance(entry, dict) else None
        label = f"{file}: {section} #{index}" + (f" ({name})" if name is not None else "")
        if not isinstance(entry, dict):
            raise SeedError(f"{label}: must be a table")
        unknown = sorted(set(entry) - set(spec))
        if unknown:
            raise SeedError(f"{label}: unknown field {unknown[0]!r}")
        item: dict[str, Any] = {}
        for fname, fspec in spec.items():
            if fname not in entry:
                if fspec.required:
                    raise SeedError(f"{label}: missing field {fname!r}")
                item[fname] = fspec.default
                continue
            item[fname] = _coerce(entry[fname], fspec, f"{label}: {fname}")
        if key in item:
            if item[key] in seen:
                raise SeedError(f"{label}: duplicate {key} {item[key]!r}")
            seen.add(item[key])
        item["_label"] = label
        clean.append(item)
    return clean


@dataclass
class SeedData:
    """The validated content of a seed file."""

    levels: list[dict[str, Any]]
    job_roles: list[dict[str, Any]]
    exams: list[dict[str, Any]]
    credentials: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    courses: list[dict[str, Any]]
    paths: list[dict[str, Any]]
    templates: list[dict[str, Any]]
    strategies: list[dict[str, Any]]
    roi: dict[str, list[dict[str, Any]]]
    specialities: list[dict[str, Any]]


def read_seed(path: str | Path) -> SeedData:
    """Parse and validate a seed file, checking every cross-reference."""
    path = Path(path)
    file = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SeedError(f"{file}: no such file") from None
    except UnicodeDecodeError as exc:
        raise SeedError(f"{file}: not UTF-8 text ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SeedError(f"{file}: bad TOML syntax: {exc}") from None

    known = {*SECTIONS, "roi"} - {"slots", "roi_lines"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SeedError(f"{file}: unknown section [{unknown[0]}]")

    data = SeedData(
        levels=_entries(raw.get("levels"), "levels", file, key="number"),
        job_roles=_entries(raw.get("job_roles"), "job_roles", file),
        exams=_entries(raw.get("exams"), "exams", file),
        credentials=_entries(raw.get("credentials"), "credentials", file),
        groups=_entries(raw.get("groups"), "groups", file),
        courses=_entries(raw.get("courses"), "courses", file),
        paths=_entries(raw.get("paths"), "paths", file),
        templates=_entries(raw.get("templates"), "templates", file),
        strategies=_entries(raw.get("strategies"), "strategies", file),
        roi={},
        specialities=_entries(raw.get("specialities"), "specialities", file),
    )
    roi = raw.get("roi", {})
    if not isinstance(roi, dict) or set(roi) - {"investment", "returns"}:
        raise SeedError(f"{file}: [roi] holds only 'investment' and 'returns' lists")
    for kind in ("investment", "returns"):
        data.roi[kind] = _entries(roi.get(kind), "roi_lines", f"{file}: roi.{kind}")
    for template in data.templates:
        template["slots"] = _entries(template["slots"], "slots", template["_label"], key="title")
    _check_references(data)
    return data


def _check_references(data: SeedData) -> None:
    """Raise on a code that names nothing, or a range that runs backwards."""
    credential_codes = [c["code"] for c in data.exams + data.credentials + data.groups]
    duplicates = {c for c in credential_codes if credential_codes.count(c) > 1}
    if duplicates:
        code = sorted(duplicates)[0]
        entry = next(e for e in data.exams + data.credentials + data.groups if e["code"] == code)
        raise SeedError(
            f"{entry['_label']}: duplicate code {code!r}"
            " (exams, credentials and groups share one set of codes)"
        )
    credentials = set(credential_codes)
    plain = {c["code"] for c in data.exams + data.credentials}
    exams = {e["code"] for e in data.exams}
    courses = {c["code"] for c in data.courses}
    roles = {r["code"] for r in data.job_roles}

    def need(codes: Iterable[str], pool: set[str], label: str, what: str) -> None:
        for code in codes:
            if code not in pool:
                raise SeedError(f"{label}: unknown {what} {code!r}")

    for level in data.levels:
        need(level["requires"], credentials, level["_label"], "credential in requires")
        if level["salary_min"] > level["salary_max"]:
            raise SeedError(f"{level['_label']}: salary_min is above salary_max")
    for exam in data.exams:
        need(
            exam["prerequisites"],
            credentials,
            exam["_label"],
            "exam or credential in prerequisites",
        )
        if exam["code"] in exam["prerequisites"]:
            raise SeedError(f"{exam['_label']}: an exam cannot be its own prerequisite")
    _refuse_prerequisite_cycles(data)
    for group in data.groups:
        need(group["members"], plain, group["_label"], "exam or credential in members")
    for path in data.paths:
        if path["exam"] is not None:
            need([path["exam"]], exams, path["_label"], "exam")
        need(path["courses"], courses, path["_label"], "course")
    for template in data.templates:
        need(template["credentials"], credentials, template["_label"], "credential")
        if template["max_gpus"] is not None and template["max_gpus"] < template["min_gpus"]:
            raise SeedError(f"{template['_label']}: max_gpus is below min_gpus")
        if template["cost_min"] > template["cost_max"]:
            raise SeedError(f"{template['_label']}: cost_min is above cost_max")
        for slot in template["slots"]:
            need([slot["role"]], roles, slot["_label"], "job role")
            need(slot["certifications"], credentials, slot["_label"], "credential")
            if slot["min_level"] > slot["max_level"]:
                raise SeedError(f"{slot['_label']}: min_level is above max_level")
    bands = sorted(data.templates, key=lambda t: t["min_gpus"])
    for lower, upper in itertools.pairwise(bands):
        if lower["max_gpus"] is None or lower["max_gpus"] >= upper["min_gpus"]:
            raise SeedError(f"{upper['_label']}: its GPU band overlaps {lower['code']!r}")
    for strategy in data.strategies:
        for low, high in (
            ("min_weeks", "max_weeks"),
            ("cost_min", "cost_max"),
            ("discount_min_percent", "discount_max_percent"),
        ):
            if (strategy[low] is None) != (strategy[high] is None) or (
                strategy[low] is not None and strategy[low] > strategy[high]
            ):
                raise SeedError(
                    f"{strategy['_label']}: {low} and {high} must both be given, in order"
                )


def _refuse_prerequisite_cycles(data: SeedData) -> None:
    """Raise when exams require each other in a loop: none of them could ever be taken."""
    members = {g["code"]: set(g["members"]) for g in data.groups}
    requires = {
        e["code"]: {m for p in e["prerequisites"] for m in members.get(p, {p})} for e in data.exams
    }
    labels = {e["code"]: e["_label"] for e in data.exams}

    def visit(code: str, trail: tuple[str, ...]) -> None:
        for needed in sorted(requires.get(code, ())):
            if needed == trail[0]:
                loop = " -> ".join((*trail, needed))
                raise SeedError(f"{labels[trail[0]]}: prerequisites form a loop: {loop}")
            if needed not in trail:
                visit(needed, (*trail, needed))

    for code in requires:
        visit(code, (code,))


# --- writing it into the database ------------------------------------------


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


def _apply(loader: _Loader, data: SeedData) -> None:
    session = loader.session
    upsert = loader.upsert

    credentials: dict[str, Credential] = {}
    for exam in data.exams:
        credentials[exam["code"]] = upsert(
            Credential,
            {"code": exam["code"]},
            {
                "name": exam["name"],
                "issuer": exam["issuer"],
                "kind": "exam",
                "origin": "seed",
                "validity_months": exam["validity_months"],
            },
        )
    for cred in data.credentials:
        credentials[cred["code"]] = upsert(
            Credential,
            {"code": cred["code"]},
            {
                "name": cred["name"],
                "issuer": cred["issuer"],
                "kind": "external",
                "origin": "seed",
                "validity_months": cred["validity_months"],
                "description": cred["description"],
            },
        )
    for group in data.groups:
        credentials[group["code"]] = upsert(
            Credential,
            {"code": group["code"]},
            {"name": group["name"], "kind": "group", "origin": "seed", "validity_months": None},
        )
    session.flush()

    def creds(codes: Iterable[str]) -> list[Credential]:
        return sorted((credentials[c] for c in codes), key=lambda c: c.code)

    for group in data.groups:
        loader.replace_list(credentials[group["code"]], "members", creds(group["members"]))

    for level in data.levels:
        row = upsert(
            Level,
            {"number": level["number"]},
            {
                "name": level["name"],
                "experience_label": level["experience"],
                "summary": level["summary"],
                "salary_min": level["salary_min"],
                "salary_max": level["salary_max"],
                "min_experience_months": level["min_experience_months"],
                "requires_evidence": level["requires_evidence"],
            },
        )
        loader.replace_list(row, "required_credentials", creds(level["requires"]))

    roles = {
        r["code"]: upsert(JobRole, {"code": r["code"]}, {"name": r["name"]}) for r in data.job_roles
    }

    exams: dict[str, Exam] = {}
    for exam in data.exams:
        cred = credentials[exam["code"]]
        existing = session.scalars(select(Exam).filter_by(credential_id=cred.id)).one_or_none()
        row = existing or Exam(credential=cred)
        loader.assign(
            row,
            {
                "level_label": exam["level"],
                "questions": exam["questions"],
                "minutes": exam["minutes"],
                "delivery": exam["delivery"],
                "experience_months": exam["experience_months"],
                "retake_wait_days": exam["retake_wait_days"],
                "passing_score": exam["passing_score"],
                "list_price": exam["list_price"],
            },
            created=existing is None,
        )
        loader.replace_list(row, "prerequisites", creds(exam["prerequisites"]))
        exams[exam["code"]] = row

    courses = {
        c["code"]: upsert(
            Course,
            {"code": c["code"]},
            {
                "title": c["title"],
                "hours": c["hours"],
                "provider": c["provider"],
                "list_price": c["list_price"],
                "origin": "seed",
            },
        )
        for c in data.courses
    }
    session.flush()

    for path in data.paths:
        row = upsert(
            LearningPath,
            {"code": path["code"]},
            {
                "name": path["name"],
                "target_months": path["target_months"],
                "exam": exams[path["exam"]] if path["exam"] else None,
                "origin": "seed",
            },
        )
        wanted = [courses[c].id for c in path["courses"]]
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
            {"code": template["code"]},
            {
                "name": template["name"],
                "min_gpus": template["min_gpus"],
                "max_gpus": template["max_gpus"],
                "cost_min": template["cost_min"],
                "cost_max": template["cost_max"],
            },
        )
        loader.replace_list(row, "team_credentials", creds(template["credentials"]))
        wanted_slots = [
            (
                i,
                s["title"],
                s["count"],
                roles[s["role"]].id,
                s["min_level"],
                s["max_level"],
                [c.id for c in creds(s["certifications"])],
            )
            for i, s in enumerate(template["slots"], start=1)
        ]
        current_slots = [
            (
                s.position,
                s.title,
                s.count,
                s.job_role_id,
                s.min_level,
                s.max_level,
                [c.id for c in s.credentials],
            )
            for s in row.slots
        ]
        if current_slots != wanted_slots:
            row.slots.clear()
            session.flush()
            for slot in template["slots"]:
                row.slots.append(
                    TemplateSlot(
                        position=len(row.slots) + 1,
                        title=slot["title"],
                        count=slot["count"],
                        job_role=roles[slot["role"]],
                        min_level=slot["min_level"],
                        max_level=slot["max_level"],
                        credentials=creds(slot["certifications"]),
                    )
                )
            if not loader.is_new(row):
                loader.report.count("team_templates", False, row)

    for strategy in data.strategies:
        values = {k: v for k, v in strategy.items() if k not in ("code", "_label")}
        upsert(TrainingStrategy, {"code": strategy["code"]}, values)

    for kind, key in (("investment", "investment"), ("return", "returns")):
        for position, line in enumerate(data.roi.get(key, []), start=1):
            upsert(
                RoiLine,
                {"kind": kind, "code": line["code"]},
                {"label": line["label"], "amount": line["amount"], "position": position},
            )

    for spec in data.specialities:
        upsert(
            Speciality,
            {"code": spec["code"]},
            {"name": spec["name"], "emerging": spec["emerging"], "ramp_up_months": spec["ramp_up"]},
        )


# --- reading the catalog ----------------------------------------------------


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
                "experience": lv.experience_label,
                "salary_min": lv.salary_min,
                "salary_max": lv.salary_max,
                "min_experience_months": lv.min_experience_months,
                "requires": codes(lv.required_credentials),
                "requires_evidence": lv.requires_evidence,
            }
            for lv in levels
        ],
        "job_roles": [{"code": r.code, "name": r.name} for r in roles],
        "paths": [
            {
                "code": p.code,
                "name": p.name,
                "target_months": p.target_months,
                "exam": p.exam.code if p.exam else None,
                "total_hours": number(p.total_hours),
                "courses": [
                    {
                        "code": c.code,
                        "title": c.title,
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
                "level": e.level_label,
                "questions": e.questions,
                "minutes": e.minutes,
                "delivery": e.delivery,
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
                "issuer": c.issuer,
                "validity_months": c.validity_months,
                "origin": c.origin,
            }
            for c in credentials
            if c.kind == "external"
        ],
        "groups": [
            {"code": c.code, "name": c.name, "members": codes(c.members)}
            for c in credentials
            if c.kind == "group"
        ],
        "templates": [
            {
                "code": t.code,
                "name": t.name,
                "min_gpus": t.min_gpus,
                "max_gpus": t.max_gpus,
                "cost_min": t.cost_min,
                "cost_max": t.cost_max,
                "slot_total": t.slot_total,
                "credentials": codes(t.team_credentials),
                "slots": [
                    {
                        "title": s.title,
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
                {"code": r.code, "label": r.label, "amount": r.amount}
                for r in roi_lines
                if r.kind == kind
            ]
            for kind in ("investment", "return")
        },
        "specialities": [
            {"code": s.code, "name": s.name, "emerging": s.emerging} for s in specialities
        ],
    }
