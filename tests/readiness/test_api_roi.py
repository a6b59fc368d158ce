"""The ROI calculator in the API (tracker.api.roi): POST /api/v1/roi."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests.helpers import Api
from tests.readiness.helpers import Org, org_with_tokens
from tracker.readiness.rules import MAX_ROI_AMOUNT, MAX_ROI_LABEL_LENGTH, MAX_ROI_LINES

EXAMPLE = {
    "investment_total": 145000,
    "returns_total": 675000,
    "first_year_roi_percent": 365,
    "ongoing_roi_percent": 465,
}


pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def org(db: Session) -> Org:
    """The readiness scene, with an API token for each caller the tests name."""
    return org_with_tokens(db)


@pytest.mark.parametrize("who", ["none", "deactivated"])
def test_roi_without_a_valid_token_is_401(api: Api, org: Org, who: str) -> None:
    assert api.post("/api/v1/roi", org.tokens[who]).status_code == 401


def test_an_engineers_refusal_names_the_roi_calculator(api: Api, org: Org) -> None:
    response = api.post("/api/v1/roi", org.tokens["ben"])
    assert response.status_code == 403
    assert response.get_json() == {
        "errors": {"engineer": "the ROI calculator is for managers and admins"}
    }


@pytest.mark.parametrize("who", ["mona", "admin"])
def test_roi_with_an_empty_body_answers_the_documents_example(api: Api, org: Org, who: str) -> None:
    """An empty body uses the document's example."""
    response = api.post("/api/v1/roi", org.tokens[who])
    assert response.status_code == 200
    assert response.get_json() == EXAMPLE


def test_roi_with_an_empty_json_object_answers_the_example(api: Api, org: Org) -> None:
    response = api.post("/api/v1/roi", org.tokens["mona"], json={})
    assert response.status_code == 200
    assert response.get_json() == EXAMPLE


def test_roi_of_the_documents_lines_sent_explicitly(api: Api, org: Org) -> None:
    body = {
        "investment": {"training": 75000, "exams-materials": 20000, "bootcamp-lab": 50000},
        "returns": {
            "downtime": 100000,
            "contractors": 200000,
            "efficiency": 75000,
            "faster-deployment": 300000,
        },
    }
    response = api.post("/api/v1/roi", org.tokens["mona"], json=body)
    assert response.status_code == 200
    assert response.get_json() == EXAMPLE


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"investment": {"courses": 60000, "labs": 40000}, "returns": {"downtime": 250000}},
            {
                "investment_total": 100000,
                "returns_total": 250000,
                "first_year_roi_percent": 150,
                "ongoing_roi_percent": 250,
            },
        ),
        (
            {"investment": {"training": 200000}, "returns": {"downtime": 100000}},
            {
                "investment_total": 200000,
                "returns_total": 100000,
                "first_year_roi_percent": -50,
                "ongoing_roi_percent": 50,
            },
        ),
        (
            {"investment": {"training": 1000}, "returns": {"none": 0}},
            {
                "investment_total": 1000,
                "returns_total": 0,
                "first_year_roi_percent": -100,
                "ongoing_roi_percent": 0,
            },
        ),
    ],
)
def test_roi_with_custom_lines(api: Api, org: Org, body: dict, expected: dict) -> None:
    response = api.post("/api/v1/roi", org.tokens["admin"], json=body)
    assert response.status_code == 200
    assert response.get_json() == expected


GOOD_RETURNS = {"downtime": 100000}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"investment": {"training": -1}, "returns": GOOD_RETURNS}, "investment.training"),
        ({"investment": {"training": 1000}, "returns": {"downtime": -5}}, "returns.downtime"),
        ({"investment": {"training": "75000"}, "returns": GOOD_RETURNS}, "investment.training"),
        ({"investment": {"training": 1.5}, "returns": GOOD_RETURNS}, "investment.training"),
        ({"investment": {"training": None}, "returns": GOOD_RETURNS}, "investment.training"),
        ({"investment": {"training": True}, "returns": GOOD_RETURNS}, "investment.training"),
        ({"investment": {"training": [1]}, "returns": GOOD_RETURNS}, "investment.training"),
        ({"investment": {"training": 0}, "returns": GOOD_RETURNS}, "investment"),
        ({"investment": {}, "returns": GOOD_RETURNS}, "investment"),
        ({"investment": [75000], "returns": GOOD_RETURNS}, "investment"),
        ({"investment": 75000, "returns": GOOD_RETURNS}, "investment"),
        ({"investment": {"training": 1000}}, "returns"),
        ({"returns": GOOD_RETURNS}, "investment"),
        ({"investment": {"training": 1000}, "returns": GOOD_RETURNS, "extra": 1}, "extra"),
    ],
)
def test_roi_bad_lines_are_400(api: Api, org: Org, body: dict, field: str) -> None:
    response = api.post("/api/v1/roi", org.tokens["mona"], json=body)
    assert response.status_code == 400
    assert field in response.get_json()["errors"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"investment": {"training": MAX_ROI_AMOUNT + 1}, "returns": GOOD_RETURNS},
            "investment.training",
            "must be a whole amount from 0 to 10,000,000,000",
        ),
        (
            {"investment": {"training": 1000}, "returns": {"downtime": 10**30}},
            "returns.downtime",
            "must be a whole amount from 0 to 10,000,000,000",
        ),
        (
            {"investment": {f"line {n}": 1 for n in range(21)}, "returns": GOOD_RETURNS},
            "investment",
            "must hold at most 20 lines",
        ),
        (
            {"investment": {"training": 1000}, "returns": {"x" * 201: 1}},
            "returns",
            "a line's name must be at most 200 characters",
        ),
    ],
)
def test_roi_keeps_the_web_forms_limits(
    api: Api, org: Org, body: dict, field: str, message: str
) -> None:
    """At most 20 lines of each kind, names of 200 characters, amounts up to 10 billion."""
    response = api.post("/api/v1/roi", org.tokens["mona"], json=body)
    assert response.status_code == 400
    assert response.get_json()["errors"] == {field: message}


def test_roi_at_the_web_forms_limits(api: Api, org: Org) -> None:
    lines = {"x" * (MAX_ROI_LABEL_LENGTH - 2) + f"{n:02d}": MAX_ROI_AMOUNT for n in range(20)}
    response = api.post(
        "/api/v1/roi", org.tokens["mona"], json={"investment": lines, "returns": lines}
    )
    assert response.status_code == 200
    assert response.get_json()["investment_total"] == MAX_ROI_LINES * MAX_ROI_AMOUNT


def test_the_document_states_the_roi_limits(api: Api) -> None:
    schemas = api.get("/api/v1/openapi.json", None).get_json()["components"]["schemas"]
    for lines in schemas["RoiBody"]["properties"].values():
        assert lines["maxProperties"] == MAX_ROI_LINES
        assert lines["propertyNames"]["maxLength"] == MAX_ROI_LABEL_LENGTH
        assert lines["additionalProperties"]["maximum"] == MAX_ROI_AMOUNT


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b'"text"', b"{", b'{"investment": NaN}'])
def test_roi_body_that_is_not_a_json_object_is_400(api: Api, org: Org, raw: bytes) -> None:
    response = api.post(
        "/api/v1/roi",
        org.tokens["mona"],
        data=raw,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert "errors" in response.get_json()
