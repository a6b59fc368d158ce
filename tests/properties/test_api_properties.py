"""Any body sent to POST /api/v1/hours or /api/v1/exam-attempts is stored exactly or refused.

For every generated body (right and wrong types, missing and unknown fields,
other people, odd numbers, odd text, bodies that are not even objects) the
answer is one of:

- 201, and the stored row equals the input as a simple reference validator
  reads it (one row more, one audit event more, and for a pass a certification
  expiring on the reference expiry day);
- a 4xx with `{"errors": {...}}` naming each problem, and not one row changed;

never a 500. The reference validator also says which of the two to expect.
Each example runs in a savepoint rolled back afterwards, so all start from
the same scene.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import TODAY
from tests.properties.helpers import ref_add_months
from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Course
from tracker.catalog.rules import DEFAULT_PASSING_SCORE
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.hours import log_hours

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    # The same cases every run: the suite fails for what changed, never for a draw.
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HIRED = dt.date(2021, 3, 31)
BUSY_DAY = dt.date(2026, 11, 2)  # 20 hours logged already
FAILED_ON = dt.date(2026, 11, 20)  # a failed NCA-AIIO: retakes open on 2026-12-04
NCA_EARNED = dt.date(2025, 6, 1)  # the NCA-AIIO NCP-AII needs, valid until 2027-06-01
MAX_ID = 2**31 - 1
TABLES = (HourLog, ExamAttempt, Certification, AuditEvent)


@dataclass
class Scene:
    target: Engineer
    other: Engineer
    token: str
    courses: dict[str, int]  # code -> id


@pytest.fixture
def scene(db: Session, pinned_today) -> Scene:
    target = factories.engineer(db, hired_on=HIRED)
    other = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    log_hours(db, target, fdl, BUSY_DAY, Decimal(20), TODAY)
    record_attempt(db, target, factories.exam(db, "NCA-AIIO"), FAILED_ON, 40, False, TODAY)
    factories.certification(db, target, "NCA-AIIO", NCA_EARNED, ref_add_months(NCA_EARNED, 24))
    courses = {c.code: c.id for c in db.scalars(select(Course))}
    return Scene(target, other, create_token(db, target, "property")[1], courses)


@pytest.fixture
def each_example(db: Session):
    """Return a context manager running one example in a savepoint rolled back after it."""
    from contextlib import contextmanager

    @contextmanager
    def run() -> Iterator[None]:
        savepoint = db.begin_nested()
        try:
            yield
        finally:
            savepoint.rollback()
            db.expire_all()

    return run


def counts(db: Session) -> dict[str, int]:
    return {m.__tablename__: db.scalar(select(func.count()).select_from(m)) for m in TABLES}


def post(client: FlaskClient, url: str, token: str, body: Any):
    raw = json.dumps(body)  # NaN and Infinity travel as the non-JSON words they are
    return client.post(
        url,
        data=raw,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )


# --- strategies -----------------------------------------------------------------------

JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
)
ANY_JSON = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(" \t\n\x00\ud800\udfff"),
    max_size=30,
)
DAYS = st.one_of(
    st.sampled_from(
        [TODAY, TODAY + dt.timedelta(days=1), HIRED, HIRED - dt.timedelta(days=1), BUSY_DAY]
    ),
    st.dates(min_value=dt.date(2019, 1, 1), max_value=dt.date(2027, 12, 31)),
)
DATE_TEXT = st.one_of(
    DAYS.map(dt.date.isoformat),
    st.sampled_from(["2026-02-30", "2026-13-01", "26-11-01", "2026-11-1", " 2026-11-01", ""]),
    TEXT,
)
NUMBER = st.one_of(
    st.integers(min_value=-3, max_value=30),
    st.decimals(min_value=-1, max_value=30, places=2).map(float),
    st.decimals(min_value=0, max_value=30, places=3).map(float),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.25, 24, 24.01, 4, 0.001, 1e-9, 1e300]),
)
WRONG = st.one_of(st.booleans(), TEXT, st.lists(st.integers(), max_size=2), st.just({}))


GOOD_DAYS = st.one_of(
    st.sampled_from([TODAY, HIRED, BUSY_DAY, FAILED_ON, FAILED_ON - dt.timedelta(days=1)]),
    st.dates(min_value=HIRED, max_value=TODAY),
).map(dt.date.isoformat)
GOOD_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=40)


@st.composite
def _bodies(draw, good: dict[str, Any], wild: dict[str, Any], optional: set[str]):
    """A good body (some optional fields left out), a good body with one field broken,
    a body of any fields of any type, or any JSON at all."""
    kind = draw(st.sampled_from(["good", "good", "broken", "wild", "any"]))
    if kind == "any":
        return draw(ANY_JSON)
    source = wild if kind == "wild" else good
    body = {}
    for name, strategy in source.items():
        if name in optional and draw(st.booleans()):
            continue
        body[name] = draw(strategy)
    if kind == "broken":
        name = draw(st.sampled_from([*sorted(good), "unknown"]))
        how = draw(st.sampled_from(["wild", "wrong type", "missing"]))
        if name == "unknown":
            body["unknown"] = draw(JSON_LEAVES)
        elif how == "missing":
            body.pop(name, None)
        else:
            body[name] = draw(wild[name] if how == "wild" else WRONG)
    return body


def hours_bodies(scene: Scene):
    codes = sorted(scene.courses)
    ids = sorted(scene.courses.values())
    good = {
        "course": st.one_of(st.sampled_from(codes), st.sampled_from(codes).map(str.lower)),
        "date": GOOD_DAYS,
        "hours": st.one_of(
            st.integers(min_value=1, max_value=24),
            st.decimals(min_value="0.01", max_value=24, places=2).map(float),
        ),
        "note": GOOD_TEXT,
        "engineer": st.just(scene.target.id),
    }
    wild = {
        "course": st.one_of(st.just("NO-SUCH"), TEXT, st.integers()),
        "course_id": st.one_of(st.sampled_from(ids), st.integers(-1, MAX_ID + 1)),
        "date": DATE_TEXT,
        "hours": NUMBER,
        "note": st.one_of(TEXT, st.text(min_size=495, max_size=505)),
        "engineer": st.one_of(st.just(scene.other.id), st.integers(-1, MAX_ID + 1)),
    }
    return _bodies(good, wild, {"note", "engineer", "course_id"})


def attempt_bodies(scene: Scene):
    good = {
        "exam": st.sampled_from(["NCA-AIIO", "NCP-AII", "NCP-AIO", "nca-aiio", " NCP-AIO "]),
        "date": GOOD_DAYS,
        "score": st.integers(min_value=0, max_value=100),
        "passed": st.booleans(),
        "engineer": st.just(scene.target.id),
        "cost": st.one_of(
            st.integers(min_value=0, max_value=10_000),
            st.decimals(min_value=0, max_value=5000, places=2).map(float),
        ),
        "voucher_code": GOOD_TEXT,
        "proctoring": GOOD_TEXT,
        "note": GOOD_TEXT,
    }
    wild = {
        "exam": st.one_of(st.sampled_from(["NO-SUCH", "CKA", ""]), TEXT),
        "date": DATE_TEXT,
        "score": st.one_of(st.integers(min_value=-5, max_value=105), NUMBER),
        "passed": WRONG,
        "engineer": st.one_of(st.just(scene.other.id), st.integers(-1, MAX_ID + 1)),
        "cost": st.one_of(NUMBER, st.just(1_000_000.01), st.just(10**7)),
        "voucher_code": st.one_of(TEXT, st.text(min_size=78, max_size=82)),
        "proctoring": st.one_of(TEXT, st.text(min_size=198, max_size=202)),
        "note": TEXT,
    }
    return _bodies(good, wild, {"engineer", "cost", "voucher_code", "proctoring", "note"})


# --- the reference validator --------------------------------------------------------------


class Refused(Exception):
    def __init__(self, status: int = 400) -> None:
        self.status = status


def _storable(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" not in value and not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return all(_storable(k) and _storable(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_storable(v) for v in value)
    return True


def _has_constant(value: Any) -> bool:
    """NaN or Infinity anywhere: not JSON, the whole body is refused."""
    if isinstance(value, float):
        return value != value or value in (float("inf"), float("-inf"))
    if isinstance(value, dict):
        return any(_has_constant(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_constant(v) for v in value)
    return False


def _object(body: Any, allowed: set[str]) -> dict[str, Any]:
    if _has_constant(body) or not isinstance(body, dict):
        raise Refused
    if set(body) - allowed or not _storable(body):
        raise Refused
    return body


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID


def _engineer(body: dict[str, Any], scene: Scene) -> None:
    value = body.get("engineer")
    if value is None or (_is_id(value) and value == scene.target.id):
        return
    if not _is_id(value):
        raise Refused
    if value == scene.other.id:
        raise Refused(403)
    raise Refused  # no such engineer


def _date(value: Any) -> dt.date:
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise Refused
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise Refused from None
    if day > TODAY or day < HIRED:
        raise Refused
    return day


def _number(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Refused
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def _text(value: Any, limit: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value.strip()) > limit:
        raise Refused
    return value.strip()


def expect_hours(body: Any, scene: Scene) -> dict[str, Any]:
    """Return the row POST /api/v1/hours must store, or raise Refused."""
    body = _object(body, {"course", "course_id", "date", "hours", "note", "engineer"})
    _engineer(body, scene)
    course, course_id = body.get("course"), body.get("course_id")
    if course is not None and course_id is not None:
        raise Refused
    if course_id is not None:
        if not _is_id(course_id) or course_id not in scene.courses.values():
            raise Refused
    elif course is not None:
        if not isinstance(course, str) or not course.strip() or len(course) > 40:
            raise Refused
        matches = [i for c, i in scene.courses.items() if c.upper() == course.strip().upper()]
        if not matches:
            raise Refused
        course_id = matches[0]
    else:
        raise Refused
    day = _date(body.get("date"))
    hours = _number(body.get("hours"))
    if not hours.is_finite() or not 0 < hours <= 24 or hours != hours.quantize(Decimal("0.01")):
        raise Refused
    if day == BUSY_DAY and hours > 4:
        raise Refused
    note = _text(body.get("note"), 500)
    return {"course_id": course_id, "logged_on": day, "hours": hours, "note": note}


EXAMS = {"NCA-AIIO", "NCP-AII", "NCP-AIO"}


def expect_attempt(body: Any, scene: Scene) -> dict[str, Any]:
    """Return the attempt POST /api/v1/exam-attempts must store, or raise Refused."""
    allowed = {"exam", "date", "score", "passed", "engineer", "cost"}
    body = _object(body, allowed | {"voucher_code", "proctoring", "note"})
    _engineer(body, scene)
    code = body.get("exam")
    if not isinstance(code, str) or not code.strip() or len(code) > 40:
        raise Refused
    code = code.strip().upper()
    if code not in EXAMS:
        raise Refused
    day = _date(body.get("date"))
    score = body.get("score")
    if isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= 100:
        raise Refused
    passed = body.get("passed")
    if not isinstance(passed, bool):
        raise Refused
    # A pass needs the exam's passing score, and a score that reaches it is a pass.
    if passed != (score >= DEFAULT_PASSING_SCORE):
        raise Refused
    cost = body.get("cost")
    if cost is not None:
        cost = _number(cost)
        if not cost.is_finite() or not 0 <= cost <= 1_000_000:
            raise Refused
        if cost != cost.quantize(Decimal("0.01")):
            raise Refused
    details = {
        "voucher_code": _text(body.get("voucher_code"), 80),
        "proctoring": _text(body.get("proctoring"), 200),
        "note": _text(body.get("note"), 500),
    }
    if code == "NCP-AII":
        nca_valid = NCA_EARNED <= day <= ref_add_months(NCA_EARNED, 24)
        months = 0
        while ref_add_months(HIRED, months + 1) <= day:
            months += 1
        if not nca_valid or months < 12:
            raise Refused
    if code == "NCA-AIIO" and FAILED_ON <= day < FAILED_ON + dt.timedelta(days=14):
        raise Refused
    return {
        "code": code,
        "attempted_on": day,
        "score": score,
        "passed": passed,
        "cost": cost,
        **details,
    }


# --- the properties ---------------------------------------------------------------------


def _refusal_is_clean(response, before, after, status) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    errors = response.get_json()["errors"]
    assert errors and all(isinstance(m, str) and m for m in errors.values())
    assert after == before, "a refused request changed the tables"


@SETTINGS
@given(data=st.data())
def test_any_hours_body_is_stored_exactly_or_refused(
    client: FlaskClient, db: Session, scene: Scene, each_example, data
):
    body = data.draw(hours_bodies(scene))
    with each_example():
        before = counts(db)
        response = post(client, "/api/v1/hours", scene.token, body)
        after = counts(db)
        event(f"answered {response.status_code}")
        assert response.status_code < 500, response.get_data(as_text=True)
        try:
            expected = expect_hours(body, scene)
        except Refused as refused:
            _refusal_is_clean(response, before, after, refused.status)
            return
        assert response.status_code == 201, (body, response.get_json())
        assert after == {
            **before,
            "hour_logs": before["hour_logs"] + 1,
            "audit_events": before["audit_events"] + 1,
        }
        stored = db.get(HourLog, response.get_json()["id"])
        assert stored.engineer_id == scene.target.id
        assert {
            "course_id": stored.course_id,
            "logged_on": stored.logged_on,
            "hours": stored.hours,
            "note": stored.note,
        } == expected


@SETTINGS
@given(data=st.data())
def test_any_exam_attempt_body_is_stored_exactly_or_refused(
    client: FlaskClient, db: Session, scene: Scene, each_example, data
):
    body = data.draw(attempt_bodies(scene))
    with each_example():
        before = counts(db)
        response = post(client, "/api/v1/exam-attempts", scene.token, body)
        after = counts(db)
        event(f"answered {response.status_code}")
        assert response.status_code < 500, response.get_data(as_text=True)
        try:
            expected = expect_attempt(body, scene)
        except Refused as refused:
            _refusal_is_clean(response, before, after, refused.status)
            return
        assert response.status_code == 201, (body, response.get_json())
        passed = expected["passed"]
        assert after == {
            **before,
            "exam_attempts": before["exam_attempts"] + 1,
            "certifications": before["certifications"] + int(passed),
            "audit_events": before["audit_events"] + 1,
        }
        answer = response.get_json()
        stored = db.get(ExamAttempt, answer["id"])
        assert stored.engineer_id == scene.target.id
        assert stored.recorded_by_id == scene.target.id
        assert {
            "code": stored.exam.code,
            "attempted_on": stored.attempted_on,
            "score": stored.score,
            "passed": stored.passed,
            "cost": stored.cost,
            "voucher_code": stored.voucher_code,
            "proctoring": stored.proctoring,
            "note": stored.note,
        } == expected
        cert = db.scalars(
            select(Certification).where(Certification.attempt_id == stored.id)
        ).first()
        if passed:
            assert cert.expires_on == ref_add_months(expected["attempted_on"], 24)
            assert answer["certification"]["expires_on"] == cert.expires_on.isoformat()
        else:
            assert cert is None and answer["certification"] is None
