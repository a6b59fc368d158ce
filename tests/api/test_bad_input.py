"""Every kind of bad input through the API: a 400 naming the field, nothing stored."""

from __future__ import annotations

import datetime as dt
import io
import json
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene, row_counts
from tests.helpers import Api
from tracker.api.inputs import MAX_WHOLE_DIGITS, _json_problem
from tracker.i18n import translate
from tracker.progress.services.hours import log_hours

D = dt.date
HOURS = {"course": "FDL", "date": "2026-11-20", "hours": 2, "note": "chapter 1"}
ATTEMPT = {"exam": "NCA-AIIO", "date": "2026-11-20", "score": 80, "passed": True}
CREDENTIAL = {"code": "CKA", "issued_on": "2026-10-01", "evidence": "LF-2026-0001"}


def refused(
    api: Api, db: Session, method: str, url: str, token: str, body: Any, field: str, **kw: Any
) -> str:
    """Send a bad request; check the 400 names `field`, the tables are unchanged; the message."""
    before = row_counts(db)
    response = api.call(method, url, token, body, **kw)
    assert response.status_code == 400, response.get_data(as_text=True)
    errors = response.get_json()["errors"]
    assert field in errors, errors
    assert row_counts(db) == before
    return errors[field]


def with_(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    body = {**base, **changes}
    return {k: v for k, v in body.items() if v is not ...}


# --- hours ------------------------------------------------------------------------

BAD_HOURS = [
    ("zero hours", with_(HOURS, hours=0), "hours", "more than 0"),
    ("negative hours", with_(HOURS, hours=-1.5), "hours", "more than 0"),
    ("above 24", with_(HOURS, hours=24.25), "hours", "at most 24"),
    ("a string", with_(HOURS, hours="3"), "hours", "number"),
    ("not a number", with_(HOURS, hours="three"), "hours", "number"),
    ("a boolean", with_(HOURS, hours=True), "hours", "number"),
    ("a list", with_(HOURS, hours=[2]), "hours", "number"),
    ("three decimals", with_(HOURS, hours=1.125), "hours", "2 decimals"),
    ("missing hours", with_(HOURS, hours=...), "hours", "required"),
    ("null hours", with_(HOURS, hours=None), "hours", "required"),
    ("future date", with_(HOURS, date="2026-11-30"), "date", "future"),
    ("before the hire date", with_(HOURS, date="2020-12-31"), "date", "hire date 2021-01-01"),
    ("date with slashes", with_(HOURS, date="2026/11/20"), "date", "YYYY-MM-DD"),
    ("day first", with_(HOURS, date="20-11-2026"), "date", "YYYY-MM-DD"),
    ("no such day", with_(HOURS, date="2026-02-30"), "date", "YYYY-MM-DD"),
    ("compact date", with_(HOURS, date="20261120"), "date", "YYYY-MM-DD"),
    ("date and time", with_(HOURS, date="2026-11-20T10:00"), "date", "YYYY-MM-DD"),
    ("date as a number", with_(HOURS, date=20261120), "date", "YYYY-MM-DD"),
    ("non-ASCII digits", with_(HOURS, date="\uff12\uff10\uff12\uff16-11-20"), "date", "YYYY"),
    ("missing date", with_(HOURS, date=...), "date", "required"),
    ("unknown course", with_(HOURS, course="NO-SUCH-COURSE"), "course", "NO-SUCH-COURSE"),
    ("course as a number", with_(HOURS, course=3), "course", "code"),
    ("unknown course id", with_(HOURS, course=..., course_id=999999), "course_id", "999999"),
    ("course id as text", with_(HOURS, course=..., course_id="1"), "course_id", "whole number"),
    ("course and course id", with_(HOURS, course_id=1), "course", "not both"),
    ("no course", with_(HOURS, course=...), "course", "required"),
    ("note too long", with_(HOURS, note="x" * 501), "note", "500"),
    # The length is the text's as sent, as the document's maxLength: spaces count.
    ("note of 501 spaces", with_(HOURS, note=" " * 501), "note", "500"),
    ("note too long before trimming", with_(HOURS, note=" " + "x" * 500), "note", "500"),
    ("note not text", with_(HOURS, note=5), "note", "string"),
    ("unknown field", with_(HOURS, minutes=30), "minutes", "unknown field"),
    ("engineer as text", with_(HOURS, engineer="me"), "engineer", "whole number"),
    ("unknown engineer", with_(HOURS, engineer=999999), "engineer", "999999"),
]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [pytest.param(body, field, message, id=name) for name, body, field, message in BAD_HOURS],
)
def test_bad_hours_are_refused(
    api: Api, db: Session, scene: Scene, body: dict, field: str, message: str
) -> None:
    text = refused(api, db, "POST", "/api/v1/hours", scene.tokens["self"], body, field)
    assert message in text


def test_a_day_holds_at_most_24_hours(api: Api, db: Session, scene: Scene) -> None:
    log_hours(
        db,
        scene.target,
        factories.course(db, "GPU-ARCH"),
        D(2026, 11, 20),
        factories.hours("20.5"),
        factories.TODAY,
    )
    text = refused(
        api, db, "POST", "/api/v1/hours", scene.tokens["self"], with_(HOURS, hours=4), "hours"
    )
    assert "20.5 h are already logged on 2026-11-20" in text
    # 3.5 more fills the day exactly.
    response = api.post("/api/v1/hours", scene.tokens["self"], with_(HOURS, hours=3.5))
    assert response.status_code == 201


def test_bad_update_leaves_the_entry_as_it_was(api: Api, db: Session, scene: Scene) -> None:
    entry = log_hours(
        db, scene.target, factories.course(db, "FDL"), D(2026, 11, 2), factories.hours(2), D.max
    )
    url = f"/api/v1/hours/{entry.id}"
    token = scene.tokens["self"]
    for body, field in [
        (with_(HOURS, hours=0), "hours"),
        (with_(HOURS, hours=25), "hours"),
        (with_(HOURS, date="2027-01-01"), "date"),
        (with_(HOURS, course="NOPE"), "course"),
        (with_(HOURS, note="y" * 501), "note"),
        (with_(HOURS, engineer=scene.target.id), "engineer"),  # not a field of an update
    ]:
        refused(api, db, "PUT", url, token, body, field)
    assert api.get(url, token).get_json()["hours"] == 2


# --- request bodies -------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "content_type", "status"),
    [
        pytest.param("{", "application/json", 400, id="truncated JSON"),
        pytest.param("[1, 2]", "application/json", 400, id="a list"),
        pytest.param('"hours"', "application/json", 400, id="a string"),
        pytest.param("null", "application/json", 400, id="null"),
        pytest.param('{"hours": NaN}', "application/json", 400, id="NaN"),
        pytest.param('{"hours": Infinity}', "application/json", 400, id="Infinity"),
        pytest.param("[" * 100_000, "application/json", 400, id="deeply nested"),
        pytest.param(b"\xff\xfe{", "application/json", 400, id="not UTF-8"),
        pytest.param("course=FDL&hours=2", "application/x-www-form-urlencoded", 415, id="form"),
        pytest.param('{"course": "FDL"}', "text/plain", 415, id="text/plain"),
        pytest.param("", None, 415, id="no body"),
    ],
)
def test_bodies_that_are_not_a_json_object(
    api: Api, db: Session, scene: Scene, data: Any, content_type: str | None, status: int
) -> None:
    before = row_counts(db)
    kwargs: dict[str, Any] = {"data": data}
    if content_type:
        kwargs["content_type"] = content_type
    response = api.post("/api/v1/hours", scene.tokens["self"], **kwargs)
    assert response.status_code == status
    assert response.get_json()["errors"]["request"]
    assert row_counts(db) == before


@pytest.mark.parametrize(
    ("data", "content_type", "status"),
    [
        pytest.param("investment=5&returns=9", "application/x-www-form-urlencoded", 415, id="form"),
        pytest.param('{"investment": {"a": 1}}', "text/plain", 415, id="text/plain"),
        pytest.param("{", "application/json", 400, id="truncated JSON"),
        pytest.param("", None, 200, id="no body"),
        pytest.param("", "text/plain", 200, id="no body, any type"),
        pytest.param(" ", "application/json", 200, id="blank JSON"),
    ],
)
def test_a_roi_body_left_out_is_the_example_and_one_sent_is_json(
    api: Api, scene: Scene, data: str, content_type: str | None, status: int
) -> None:
    kwargs: dict[str, Any] = {"data": data}
    if content_type:
        kwargs["content_type"] = content_type
    response = api.post("/api/v1/roi", scene.tokens["admin"], **kwargs)
    assert response.status_code == status, response.get_json()
    if status == 200:
        assert response.get_json()["first_year_roi_percent"] == 365
    else:
        assert response.get_json()["errors"]["request"]


def test_a_whole_number_longer_than_python_reads_is_refused_in_words(
    api: Api, db: Session, scene: Scene
) -> None:
    token = scene.tokens["self"]
    json_type = {"content_type": "application/json"}
    # As long as the API reads: its field refuses it.
    longest = '{"hours": -' + "9" * MAX_WHOLE_DIGITS + "}"
    message = refused(
        api, db, "POST", "/api/v1/hours", token, None, "hours", data=longest, **json_type
    )
    assert message == "hours must be more than 0 and at most 24"
    # Beyond, the body is refused before Python tries.
    for digits in (MAX_WHOLE_DIGITS + 1, 5001):
        data = '{"hours": ' + "9" * digits + "}"
        message = refused(
            api, db, "POST", "/api/v1/hours", token, None, "request", data=data, **json_type
        )
        assert message == "the body holds a number of more than 500 digits"


def test_a_json_problem_python_words_otherwise_is_said_without_its_english() -> None:
    exc = json.JSONDecodeError("Illegal trailing comma before end of object", '{"a": 1,}', 8)
    problem = _json_problem(b'{"a": 1,}', exc)
    assert translate(problem, "en") == "unexpected text at line 1, column 9"
    assert translate(problem, "es") == "texto inesperado en la línea 1, columna 9"


def test_a_body_over_the_size_limit_is_413(
    api: Api, app: Flask, db: Session, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 1024)
    before = row_counts(db)
    response = api.post("/api/v1/hours", scene.tokens["self"], with_(HOURS, note="n" * 2000))
    assert response.status_code == 413
    assert response.get_json()["errors"]["request"]
    assert row_counts(db) == before


def test_the_default_size_limit_holds(api: Api, db: Session, scene: Scene) -> None:
    body = '{"note": "' + "n" * (2 * 1024 * 1024) + '"}'
    response = api.post(
        "/api/v1/hours", scene.tokens["self"], data=body, content_type="application/json"
    )
    assert response.status_code == 413


def test_the_api_needs_no_csrf_token(api: Api, scene: Scene, csrf_enabled: None) -> None:
    response = api.post("/api/v1/hours", scene.tokens["self"], HOURS)
    assert response.status_code == 201


# --- exam attempts ---------------------------------------------------------------

BAD_ATTEMPTS = [
    ("unknown exam", with_(ATTEMPT, exam="NCA-NOPE"), "exam", "unknown exam code 'NCA-NOPE'"),
    ("exam as a number", with_(ATTEMPT, exam=1), "exam", "code"),
    ("an external credential", with_(ATTEMPT, exam="CKA"), "exam", "unknown exam"),
    ("missing exam", with_(ATTEMPT, exam=...), "exam", "required"),
    ("score above 100", with_(ATTEMPT, score=101), "score", "0 to 100"),
    ("negative score", with_(ATTEMPT, score=-1), "score", "0 to 100"),
    ("fractional score", with_(ATTEMPT, score=80.5), "score", "whole number"),
    ("score as text", with_(ATTEMPT, score="80"), "score", "whole number"),
    ("score as boolean", with_(ATTEMPT, score=True), "score", "whole number"),
    ("missing score", with_(ATTEMPT, score=...), "score", "required"),
    ("passed as text", with_(ATTEMPT, passed="yes"), "passed", "true or false"),
    ("passed as 1", with_(ATTEMPT, passed=1), "passed", "true or false"),
    ("missing passed", with_(ATTEMPT, passed=...), "passed", "required"),
    ("future date", with_(ATTEMPT, date="2026-11-30"), "date", "future"),
    ("before the hire date", with_(ATTEMPT, date="2020-06-01"), "date", "hire date"),
    ("bad date", with_(ATTEMPT, date="29/11/2026"), "date", "YYYY-MM-DD"),
    ("note too long", with_(ATTEMPT, note="x" * 501), "note", "500"),
    ("voucher too long", with_(ATTEMPT, voucher_code="v" * 81), "voucher_code", "80"),
    ("proctoring too long", with_(ATTEMPT, proctoring="p" * 201), "proctoring", "200"),
    ("negative cost", with_(ATTEMPT, cost=-5), "cost", "from 0"),
    ("cost with 3 decimals", with_(ATTEMPT, cost=10.005), "cost", "2 decimals"),
    ("cost as text", with_(ATTEMPT, cost="125"), "cost", "number"),
    ("unknown field", with_(ATTEMPT, certificate="X"), "certificate", "unknown field"),
    ("unknown engineer", with_(ATTEMPT, engineer=999999), "engineer", "999999"),
]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [pytest.param(body, field, message, id=name) for name, body, field, message in BAD_ATTEMPTS],
)
def test_bad_attempts_are_refused(
    api: Api, db: Session, scene: Scene, body: dict, field: str, message: str
) -> None:
    text = refused(api, db, "POST", "/api/v1/exam-attempts", scene.tokens["self"], body, field)
    assert message in text


def test_a_retake_inside_the_waiting_period_is_refused(api: Api, db: Session, scene: Scene) -> None:
    token = scene.tokens["self"]
    failed = with_(ATTEMPT, date="2026-11-10", score=55, passed=False)
    response = api.post("/api/v1/exam-attempts", token, failed)
    assert response.status_code == 201
    assert response.get_json()["certification"] is None

    text = refused(
        api, db, "POST", "/api/v1/exam-attempts", token, with_(ATTEMPT, date="2026-11-20"), "date"
    )
    assert "opens on 2026-11-24" in text
    response = api.post("/api/v1/exam-attempts", token, with_(ATTEMPT, date="2026-11-24"))
    assert response.status_code == 201


# --- credentials -----------------------------------------------------------------

BAD_CREDENTIALS = [
    ("unknown code", with_(CREDENTIAL, code="NOPE"), "code", "NOPE"),
    ("a group", with_(CREDENTIAL, code="CLOUD-ARCHITECT"), "code", "unknown credential"),
    ("no code and no name", with_(CREDENTIAL, code=...), "code", "required"),
    ("code and name", with_(CREDENTIAL, name="Thing", issuer="Org"), "code", "not both"),
    ("name without issuer", with_(CREDENTIAL, code=..., name="Thing"), "issuer", "required"),
    ("issuer without name", with_(CREDENTIAL, code=..., issuer="Org"), "name", "required"),
    ("blank name", with_(CREDENTIAL, code=..., name=" ", issuer="Org"), "name", "empty"),
    ("name too long", with_(CREDENTIAL, code=..., name="n" * 201, issuer="Org"), "name", "200"),
    ("future issue date", with_(CREDENTIAL, issued_on="2026-12-01"), "issued_on", "future"),
    ("bad issue date", with_(CREDENTIAL, issued_on="2026-13-01"), "issued_on", "YYYY-MM-DD"),
    ("missing issue date", with_(CREDENTIAL, issued_on=...), "issued_on", "required"),
    (
        "expiry before issue",
        with_(CREDENTIAL, expires_on="2026-09-30"),
        "expires_on",
        "before the issue date",
    ),
    ("bad expiry", with_(CREDENTIAL, expires_on="soon"), "expires_on", "YYYY-MM-DD"),
    ("no evidence", with_(CREDENTIAL, evidence=...), "evidence", "required"),
    ("blank evidence", with_(CREDENTIAL, evidence="   "), "evidence", "required"),
    ("evidence too long", with_(CREDENTIAL, evidence="e" * 2001), "evidence", "2000"),
    (
        # The credential row made for the name must not survive the refusal.
        "outside the catalog, future date",
        with_(CREDENTIAL, code=..., name="Lab Safety", issuer="Org", issued_on="2027-01-01"),
        "issued_on",
        "future",
    ),
    (
        "outside the catalog, no evidence",
        with_(CREDENTIAL, code=..., name="Lab Safety", issuer="Org", evidence=""),
        "evidence",
        "required",
    ),
    ("unknown field", with_(CREDENTIAL, kind="external"), "kind", "unknown field"),
    (
        # Entered by hand, an exam's credential needs what its attempt would.
        "an exam's credential without its prerequisite",
        with_(CREDENTIAL, code="NCP-AII"),
        "code",
        "NCP-AII requires a valid NCA-AIIO",
    ),
    (
        "expiry past the catalog's validity",
        with_(CREDENTIAL, code="NCA-AIIO", expires_on="2099-01-01"),
        "expires_on",
        "NCA-AIIO is valid for 24 months",
    ),
    ("issued before 1970", with_(CREDENTIAL, issued_on="0001-06-01"), "issued_on", "1970"),
]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [pytest.param(body, field, message, id=name) for name, body, field, message in BAD_CREDENTIALS],
)
def test_bad_credentials_are_refused(
    api: Api, db: Session, scene: Scene, body: dict, field: str, message: str
) -> None:
    text = refused(api, db, "POST", "/api/v1/credentials", scene.tokens["self"], body, field)
    assert message in text


# --- records for another engineer without the right ---------------------------------


@pytest.mark.parametrize(
    ("url", "body", "role"),
    [
        ("/api/v1/hours", HOURS, "other engineer"),
        ("/api/v1/hours", HOURS, "manager"),
        ("/api/v1/exam-attempts", ATTEMPT, "other engineer"),
        ("/api/v1/exam-attempts", ATTEMPT, "other manager"),
        ("/api/v1/credentials", CREDENTIAL, "other engineer"),
        ("/api/v1/credentials", CREDENTIAL, "other manager"),
    ],
)
def test_a_record_for_another_engineer_without_the_right(
    api: Api, db: Session, scene: Scene, url: str, body: dict, role: str
) -> None:
    """Refused with 403, naming the engineer field; nothing stored."""
    before = row_counts(db)
    response = api.post(url, scene.tokens[role], with_(body, engineer=scene.target.id))
    assert response.status_code == 403
    assert "may not" in response.get_json()["errors"]["engineer"]
    assert row_counts(db) == before


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("status=lapsed", "status"),
        ("expiring_within=-1", "expiring_within"),
        ("expiring_within=ten", "expiring_within"),
        ("expiring_within=99999999", "expiring_within"),
        ("engineer=me", "engineer"),
        ("engineer=0", "engineer"),
        # Empty is absent; spaces are a value, and a wrong one.
        ("expiring_within=%20", "expiring_within"),
        ("status=%20", "status"),
        ("engineer=2147483648", "engineer"),
        ("owner=1", "owner"),
    ],
)
def test_bad_certification_queries(api: Api, scene: Scene, query: str, field: str) -> None:
    response = api.get(f"/api/v1/certifications?{query}", scene.tokens["admin"])
    assert response.status_code == 400
    assert field in response.get_json()["errors"]


def test_an_empty_query_value_is_absent(api: Api, scene: Scene) -> None:
    query = "status=&expiring_within=&engineer=&limit=&cursor="
    response = api.get(f"/api/v1/certifications?{query}", scene.tokens["admin"])
    assert response.status_code == 200, response.get_json()


def test_a_chunked_body_over_the_size_limit_is_413(
    api: Api, app: Flask, db: Session, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without Content-Length the server cuts the stream at the limit: refuse, don't parse."""
    monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 1024)
    before = row_counts(db)
    body = json.dumps(with_(HOURS, note="n" * 2000)).encode()
    response = api.post(
        "/api/v1/hours",
        scene.tokens["self"],
        input_stream=io.BytesIO(body),
        content_type="application/json",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert response.status_code == 413
    assert response.get_json()["errors"]["request"]
    assert row_counts(db) == before
    # A small chunked body is read whole.
    response = api.post(
        "/api/v1/hours",
        scene.tokens["self"],
        input_stream=io.BytesIO(json.dumps(HOURS).encode()),
        content_type="application/json",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert response.status_code == 201


# --- what JSON and the document say alike ---------------------------------------------


def test_a_whole_number_may_be_written_with_a_zero_fraction(api: Api, scene: Scene) -> None:
    """JSON Schema's integers include 80.0: the document's `integer` reads it as 80."""
    body = with_(ATTEMPT, score=80.0, engineer=float(scene.target.id))
    response = api.post("/api/v1/exam-attempts", scene.tokens["self"], body)
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["score"] == 80


@pytest.mark.parametrize(
    ("score", "message"),
    [("80.5", "whole number"), ("1e400", ""), ("8e1", None), ("80.000", None)],
)
def test_only_a_fraction_is_refused_where_a_whole_number_goes(
    api: Api, scene: Scene, score: str, message: str | None
) -> None:
    # As sent, digit for digit; 1e400 stays a Decimal (not expanded into 401 digits).
    raw = json.dumps(with_(ATTEMPT, score="SCORE")).replace('"SCORE"', score)
    response = api.call(
        "POST", "/api/v1/exam-attempts", scene.tokens["self"], data=raw,
        content_type="application/json",
    )  # fmt: skip
    if message is None:
        assert response.status_code == 201, response.get_json()
        assert response.get_json()["score"] == 80
    else:
        assert response.status_code == 400
        assert message in response.get_json()["errors"]["score"]


def test_missing_evidence_is_named_with_the_bodys_other_problems(
    api: Api, db: Session, scene: Scene
) -> None:
    body = {"code": "CKA", "issued_on": "2026-06-01", "expires_on": "soon"}
    before = row_counts(db)
    response = api.post("/api/v1/credentials", scene.tokens["self"], body)
    assert response.status_code == 400
    errors = response.get_json()["errors"]
    assert errors["evidence"] == "evidence is required (a certificate number, a link or a note)"
    assert "YYYY-MM-DD" in errors["expires_on"]
    assert row_counts(db) == before


def test_roi_line_names_without_nul(api: Api, db: Session, scene: Scene) -> None:
    lines = {"investment": {"a\u0000b": 10}, "returns": {"x": 20}}
    refused(api, db, "POST", "/api/v1/roi", scene.tokens["admin"], lines, "investment")
