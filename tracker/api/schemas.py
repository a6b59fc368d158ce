"""The JSON API's shapes: reading request bodies and query strings, writing records.

Readers collect every problem into an `errors` dict keyed by the field the
client sent, so one 400 answer names them all. Writers turn Decimals into JSON
numbers (1.50 -> 1.5, 8.00 -> 8) and dates into ISO strings.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from tracker.careers.models import Evidence, SkillAssessment
from tracker.careers.rules import HELD_AT, PROFICIENCY_LABELS
from tracker.careers.services.bonuses import BonusRow, Quarter
from tracker.careers.services.ladder import Career
from tracker.careers.services.rotation import rotation as rotation_of
from tracker.careers.services.skills import Coverage
from tracker.catalog.models import Course, Credential, Speciality
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.progress.services.hours import LoggedHours
from tracker.progress.services.overview import CertificationState, Overview
from tracker.progress.services.paths import PathProgress, Readiness
from tracker.progress.services.validity import days_left, status_on
from tracker.readiness.services.forecast import ForecastPoint
from tracker.readiness.services.matching import Seat
from tracker.readiness.services.roi import Roi
from tracker.readiness.services.team import TeamReadiness

# Ids are stored as 32-bit integers on PostgreSQL; a larger one names nothing.
MAX_ID = 2**31 - 1
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class ApiError(Exception):
    """An answer other than success: a status and `{"errors": {field: message}}`."""

    def __init__(
        self, status: int, errors: Mapping[str, str], headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(f"{status}: {dict(errors)}")
        self.status = status
        self.errors = dict(errors)
        self.headers = dict(headers or {})


# --- reading ----------------------------------------------------------------


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def parse_json_object(raw: bytes, allowed: Iterable[str]) -> dict[str, Any]:
    """Return the JSON object in `raw`; 400 when it is not JSON, not an object or has extras.

    Fractions are read as Decimals, so 1.1 stays exactly 1.1; NaN and Infinity
    are refused.
    """
    try:
        data = json.loads(raw, parse_float=Decimal, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ApiError(400, {"request": f"the body is not valid JSON: {exc}"}) from None
    if not isinstance(data, dict):
        raise ApiError(400, {"request": "the body must be a JSON object"})
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        known = ", ".join(sorted(allowed))
        raise ApiError(400, dict.fromkeys(unknown, f"unknown field (known: {known})"))
    unstorable = sorted(name for name, value in data.items() if not _storable(value))
    if unstorable:
        raise ApiError(
            400,
            dict.fromkeys(
                unstorable, "text must not contain NUL characters or unpaired surrogates"
            ),
        )
    return data


def _storable(value: Any) -> bool:
    """Return whether every string in `value` can be stored: UTF-8 encodable, without NUL.

    JSON may escape a lone surrogate ("\\ud800") or NUL ("\\u0000"); neither can be
    stored as text (SQLite cannot encode the one, PostgreSQL refuses the other).
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return False
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def read_id(value: Any) -> int | None:
    """Return `value` as a record id, or None when it is not a whole number from 1 up."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ID:
        return None
    return value


def read_query_int(text: str) -> int | None:
    """Return a query-string whole number, or None when it is not digits."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 20:
        return None
    return int(text)


def read_date(value: Any) -> dt.date | None:
    """Return a YYYY-MM-DD string as a date, or None for anything else."""
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def read_decimal(value: Any) -> Decimal | None:
    """Return a JSON number as a Decimal, or None (booleans and strings are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


class Reader:
    """Reads the fields of one request body, collecting an error per bad field."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self.errors: dict[str, str] = {}

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def _value(self, name: str, required: bool) -> Any:
        value = self.data.get(name)
        if value is None and required:
            self.errors[name] = "this field is required"
        return value

    def date(self, name: str, required: bool = True) -> dt.date | None:
        value = self._value(name, required)
        if value is None:
            return None
        parsed = read_date(value)
        if parsed is None:
            self.errors[name] = "must be a date written YYYY-MM-DD"
        return parsed

    def text(self, name: str, max_length: int, required: bool = False) -> str:
        value = self._value(name, required)
        if value is None:
            return ""
        if not isinstance(value, str):
            self.errors[name] = "must be a string"
            return ""
        value = value.strip()
        if required and not value:
            self.errors[name] = "must not be empty"
        elif len(value) > max_length:
            self.errors[name] = f"must be at most {max_length} characters"
        return value

    def code(self, name: str, required: bool = True) -> str | None:
        value = self._value(name, required)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip() or len(value) > 40:
            self.errors[name] = "must be a code of 1 to 40 characters"
            return None
        return value.strip()

    def id(self, name: str, required: bool = True) -> int | None:
        value = self._value(name, required)
        if value is None:
            return None
        parsed = read_id(value)
        if parsed is None:
            self.errors[name] = "must be a whole number (an id)"
        return parsed

    def integer(self, name: str, required: bool = True) -> int | None:
        value = self._value(name, required)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.errors[name] = "must be a whole number"
            return None
        return value

    def boolean(self, name: str, required: bool = True) -> bool | None:
        value = self._value(name, required)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.errors[name] = "must be true or false"
            return None
        return value

    def number(self, name: str, required: bool = True) -> Decimal | None:
        value = self._value(name, required)
        if value is None:
            return None
        parsed = read_decimal(value)
        if parsed is None:
            self.errors[name] = "must be a number"
        return parsed

    def money(self, name: str, maximum: Decimal) -> Decimal | None:
        """Read an optional amount: 0 or more, at most 2 decimals, at most `maximum`."""
        amount = self.number(name, required=False)
        if amount is None:
            return None
        if amount < 0 or amount > maximum:
            self.errors[name] = f"must be from 0 to {maximum}"
        elif amount != amount.quantize(Decimal("0.01")):
            self.errors[name] = "must have at most 2 decimals"
        return amount

    def check(self) -> None:
        """Raise a 400 naming every bad field read so far."""
        if self.errors:
            raise ApiError(400, self.errors)


def rename(errors: Mapping[str, str], names: Mapping[str, str]) -> dict[str, str]:
    """Return a service's errors keyed by the API's field names."""
    return {names.get(key, key): message for key, message in errors.items()}


# --- writing ----------------------------------------------------------------


def number(value: Decimal | int | None) -> int | float | None:
    """Return a Decimal as a JSON number: whole values as integers, others as floats."""
    if value is None:
        return None
    value = Decimal(value)
    return int(value) if value == value.to_integral_value() else float(value)


def iso(value: dt.date | dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def person_ref(engineer: Engineer | None) -> dict[str, Any] | None:
    if engineer is None:
        return None
    return {"id": engineer.id, "name": engineer.name}


def engineer_json(engineer: Engineer) -> dict[str, Any]:
    return {
        "id": engineer.id,
        "name": engineer.name,
        "email": engineer.email,
        "access_role": engineer.access_role,
        "active": engineer.active,
        "level": engineer.level,
        "job_roles": sorted(engineer.job_role_codes),
        "team": (
            None if engineer.team is None else {"id": engineer.team.id, "name": engineer.team.name}
        ),
        "manager": person_ref(engineer.manager),
        "hired_on": iso(engineer.hired_on),
        "documented_experience_months": engineer.experience_months,
        "experience_text": engineer.experience_text,
    }


def course_ref(course: Course) -> dict[str, Any]:
    return {"id": course.id, "code": course.code, "title": course.title}


def credential_ref(credential: Credential) -> dict[str, Any]:
    return {
        "id": credential.id,
        "code": credential.code,
        "name": credential.name,
        "issuer": credential.issuer,
        "kind": credential.kind,
        "origin": credential.origin,
    }


def hour_log_json(entry: HourLog) -> dict[str, Any]:
    return {
        "id": entry.id,
        "engineer": person_ref(entry.engineer),
        "course": course_ref(entry.course),
        "date": iso(entry.logged_on),
        "hours": number(entry.hours),
        "note": entry.note,
        "created_at": iso(entry.created_at),
        "updated_at": iso(entry.updated_at),
    }


def logged_hours_json(entry: LoggedHours, engineer: Any) -> dict[str, Any]:
    """Return an entry add_hours wrote, as hour_log_json would; `engineer` is its owner."""
    created_at = entry.created_at.isoformat()
    return {
        "id": entry.id,
        "engineer": {"id": engineer.id, "name": engineer.name},
        "course": {"id": entry.course_id, "code": entry.course_code, "title": entry.course_title},
        "date": entry.logged_on.isoformat(),
        "hours": number(entry.hours),
        "note": entry.note,
        "created_at": created_at,
        "updated_at": created_at,
    }


def certification_json(
    cert: Certification, on: dt.date, expiring_within: int = EXPIRING_WITHIN_DAYS
) -> dict[str, Any]:
    return {
        "id": cert.id,
        "engineer": person_ref(cert.engineer),
        "credential": credential_ref(cert.credential),
        "earned_on": iso(cert.earned_on),
        "expires_on": iso(cert.expires_on),
        "status": str(status_on(cert, on, expiring_within)),
        "days_left": days_left(cert, on),
        "evidence": cert.evidence,
        "attempt_id": cert.attempt_id,
        "renews_id": cert.renews_id,
        "recorded_by_id": cert.recorded_by_id,
    }


def attempt_json(attempt: ExamAttempt, cert: Certification | None, on: dt.date) -> dict[str, Any]:
    return {
        "id": attempt.id,
        "engineer": person_ref(attempt.engineer),
        "exam": {"id": attempt.exam.id, "code": attempt.exam.code, "name": attempt.exam.name},
        "date": iso(attempt.attempted_on),
        "score": attempt.score,
        "passed": attempt.passed,
        "cost": number(attempt.cost),
        "voucher_code": attempt.voucher_code,
        "proctoring": attempt.proctoring,
        "note": attempt.note,
        "recorded_by_id": attempt.recorded_by_id,
        "certification": None if cert is None else certification_json(cert, on),
    }


def _readiness_json(progress: PathProgress, readiness: Readiness) -> dict[str, Any] | None:
    exam = progress.path.exam
    if exam is None:
        return None
    return {
        "code": exam.code,
        "name": exam.name,
        "ready": readiness.ready,
        "reasons": readiness.reasons,
    }


def _path_json(
    progress: PathProgress,
    readiness: Readiness,
    certified: Certification | None,
    on: dt.date,
) -> dict[str, Any]:
    return {
        "code": progress.path.code,
        "name": progress.path.name,
        "target_months": progress.path.target_months,
        "percent": round(progress.percent, 1),
        "required_hours": number(progress.required),
        "counted_hours": number(progress.counted),
        "remaining_hours": number(progress.remaining),
        "complete": progress.complete,
        "courses": [
            {
                **course_ref(c.course),
                "logged_hours": number(c.logged),
                "required_hours": number(c.required),
                "counted_hours": number(c.counted),
                "percent": round(c.percent, 1),
                "complete": c.complete,
            }
            for c in progress.courses
        ],
        "exam": _readiness_json(progress, readiness),
        # The exam's certification when valid on the day, else null.
        "certification": None if certified is None else certification_json(certified, on),
    }


def state_json(state: CertificationState, on: dt.date) -> dict[str, Any]:
    return certification_json(state.certification, on)


def overview_json(view: Overview) -> dict[str, Any]:
    return {
        "engineer": person_ref(view.engineer),
        "on": iso(view.on),
        "experience_months": view.experience_months,
        "paths": [
            _path_json(progress, readiness, view.certified.get(progress.path.code), view.on)
            for progress, readiness in view.paths
        ],
        "certifications": [state_json(s, view.on) for s in view.certifications],
        "next_steps": view.next_steps,
    }


# --- readiness --------------------------------------------------------------


def team_json(team: Team) -> dict[str, Any]:
    return {
        "id": team.id,
        "name": team.name,
        "gpus": team.gpus,
        "manager": person_ref(team.manager),
    }


def readiness_json(result: TeamReadiness) -> dict[str, Any]:
    """Return a team's readiness: template, filled/total/percent, seats, gaps, team-wide."""

    def slot(seat: Seat) -> dict[str, Any]:
        s = seat.slot
        return {
            "title": s.title,
            "role": s.job_role.code,
            "min_level": s.min_level,
            "max_level": s.max_level,
            "certifications": [c.code for c in s.credentials],
        }

    return {
        "team": team_json(result.team),
        "gpus": result.gpus,
        "on": result.on.isoformat(),
        "template": result.template.code,
        "filled": result.filled,
        "total": result.total,
        "percent": result.percent,
        "slots": [
            {**slot(s.seat), "engineer": person_ref(s.member.engineer) if s.member else None}
            for s in result.seats
        ],
        "gaps": [
            {
                **slot(s.seat),
                "candidates": [
                    {"engineer": person_ref(c.member.engineer), "lacks": c.lacks}
                    for c in s.candidates
                ],
                "hire": not s.candidates,
            }
            for s in result.gaps
        ],
        "team_certifications": [
            {
                "code": t.credential.code,
                "met": t.met,
                "holders": [person_ref(m.engineer) for m in t.holders],
            }
            for t in result.team_credentials
        ],
    }


def forecast_json(points: Iterable[ForecastPoint]) -> list[dict[str, Any]]:
    return [
        {"date": p.on.isoformat(), "filled": p.filled, "total": p.total, "percent": p.percent}
        for p in points
    ]


def roi_json(result: Roi) -> dict[str, Any]:
    return {
        "investment_total": result.investment_total,
        "returns_total": result.returns_total,
        "first_year_roi_percent": result.first_year_roi_percent,
        "ongoing_roi_percent": result.ongoing_roi_percent,
    }


# --- careers ----------------------------------------------------------------


def evidence_json(entry: Evidence) -> dict[str, Any]:
    return {
        "id": entry.id,
        "kind": entry.kind,
        "title": entry.title,
        "date": iso(entry.occurred_on),
        "note": entry.note,
    }


def career_json(career: Career) -> dict[str, Any]:
    """Return where an engineer stands on the ladder: level, experience, next level, lacks."""
    following = career.next_level
    rotation = rotation_of(career.engineer, career.on)
    return {
        "engineer": person_ref(career.engineer),
        "on": iso(career.on),
        "level": career.level,
        "level_name": career.level_row.name if career.level_row else None,
        "experience_months": career.experience_months,
        "next_level": following.number if following else None,
        "next_level_name": following.name if following else None,
        "meets_next_level": career.meets_next_level,
        "lacks": career.lacks,
        "next_level_rule": None
        if following is None
        else {
            "min_experience_months": following.min_experience_months,
            "requires": [c.code for c in following.required_credentials],
            "requires_evidence": following.requires_evidence,
        },
        "evidence": [evidence_json(e) for e in career.evidence],
        "job_roles_history": [
            {
                "role": a.job_role.code,
                "started_on": iso(a.started_on),
                "ended_on": iso(a.ended_on),
            }
            for a in rotation.assignments
        ],
        "across_domains": rotation.across_domains,
    }


def speciality_ref(speciality: Speciality) -> dict[str, Any]:
    return {"code": speciality.code, "name": speciality.name, "emerging": speciality.emerging}


def skill_json(row: SkillAssessment, assessed_by: Engineer | None = None) -> dict[str, Any]:
    return {
        "id": row.id,
        "speciality": speciality_ref(row.speciality),
        "level": row.proficiency,
        "label": PROFICIENCY_LABELS[row.proficiency],
        "confirmed": row.confirmed,
        "assessed_by": person_ref(assessed_by),
        "assessed_at": iso(row.created_at),
    }


def coverage_json(coverage: Coverage) -> dict[str, Any]:
    """Return a team's specialities by people, with single points of failure by code."""
    return {
        "team": team_json(coverage.team),
        "held_at": HELD_AT,
        "people": [person_ref(m) for m in coverage.members],
        "specialities": [
            {
                **speciality_ref(row.speciality),
                "levels": [
                    {
                        "engineer": person_ref(member),
                        "level": None if a is None else a.proficiency,
                        "confirmed": None if a is None else a.confirmed,
                    }
                    for member, a in row.cells
                ],
                "holders": [person_ref(m) for m in row.holders],
                "single_point_of_failure": row.single_point_of_failure,
            }
            for row in coverage.rows
        ],
        "single_points_of_failure": [s.code for s in coverage.single_points_of_failure],
        "uncovered": [s.code for s in coverage.uncovered],
    }


def ledger_json(quarter: Quarter, rows: Iterable[BonusRow]) -> dict[str, Any]:
    """Return a quarter's bonus ledger: who, which certification, pass date, amount."""
    rows = list(rows)
    return {
        "quarter": str(quarter),
        "from": iso(quarter.starts_on),
        "to": iso(quarter.ends_on),
        "rows": [
            {
                "engineer": {**person_ref(r.engineer), "email": r.engineer.email},
                "certification": {
                    "code": r.credential.code,
                    "name": r.credential.name,
                    "id": r.certification.id,
                },
                "passed_on": iso(r.passed_on),
                "amount": number(r.amount),
                "renewal": r.renewal,
            }
            for r in rows
        ],
        "total": number(sum((r.amount for r in rows), Decimal(0))),
    }
