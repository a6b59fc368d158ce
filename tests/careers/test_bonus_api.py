"""/api/v1/bonuses: a quarter's rows by who asks, renewals, the quarter's form and range."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.careers.conftest import People
from tests.helpers import Api
from tracker.careers.rules import EARLIEST_DATE
from tracker.careers.services.bonuses import set_bonus
from tracker.progress.services.certifications import record_attempt

D = dt.date
TODAY = factories.TODAY  # 2026-11-29


@pytest.fixture
def earned(db: Session, people: People) -> People:
    """Bonuses: NCA-AIIO 500. Passes in 2026-Q4 by junior (manager's team), report
    (manager's direct report) and outsider (other team); one in Q3 by senior."""
    set_bonus(
        db,
        factories.credential(db, "NCA-AIIO"),
        Decimal(500),
        effective_on=EARLIEST_DATE,
        today=TODAY,
    )
    exam = factories.exam(db, "NCA-AIIO")
    for who, on in (
        (people.junior, D(2026, 10, 1)),
        (people.report, D(2026, 11, 15)),
        (people.outsider, D(2026, 11, 21)),
        (people.senior, D(2026, 9, 30)),
    ):
        record_attempt(db, who, exam, on, 80, True, TODAY)
    return people


def names(response) -> list[str]:
    return [row["engineer"]["name"] for row in response.get_json()["items"]]


def test_bonuses_rows_and_scope(api: Api, earned: People):
    p = earned
    admin = api.get("/api/v1/bonuses?quarter=2026-Q4", p.tokens["admin"])
    assert admin.status_code == 200
    body = admin.get_json()
    assert names(admin) == ["Jules Junior", "Remy Report", "Otto Outsider"]
    assert body["next"] is None
    row = body["items"][0]
    assert row["certification"]["code"] == "NCA-AIIO"
    assert row["passed_on"] == "2026-10-01"
    assert row["amount"] == 500
    assert row["renewal"] is False
    assert sum(row["amount"] for row in body["items"]) == 1500

    assert names(api.get("/api/v1/bonuses?quarter=2026-Q4", p.tokens["manager"])) == [
        "Jules Junior",
        "Remy Report",
    ]
    assert names(api.get("/api/v1/bonuses?quarter=2026-Q4", p.tokens["other_manager"])) == [
        "Otto Outsider"
    ]
    assert names(api.get("/api/v1/bonuses?quarter=2026-Q4", p.tokens["junior"])) == ["Jules Junior"]
    assert names(api.get("/api/v1/bonuses?quarter=2026-Q3", p.tokens["senior"])) == ["Sasha Senior"]
    # Without a quarter: today's (2026-Q4).
    assert names(api.get("/api/v1/bonuses", p.tokens["admin"])) == names(admin)


def test_a_renewal_earns_a_bonus_only_when_renewals_earn(api: Api, db: Session, earned: People):
    exam = factories.exam(db, "NCA-AIIO")
    # Junior renews in Q4: the bonus set says renewals do not earn.
    record_attempt(db, earned.junior, exam, D(2026, 11, 25), 90, True, TODAY)
    url = "/api/v1/bonuses?quarter=2026-Q4"
    assert names(api.get(url, earned.tokens["admin"])) == [
        "Jules Junior",
        "Remy Report",
        "Otto Outsider",
    ]
    set_bonus(
        db,
        factories.credential(db, "NCA-AIIO"),
        Decimal(500),
        True,
        effective_on=EARLIEST_DATE,
        today=TODAY,
    )
    rows = api.get(url, earned.tokens["admin"]).get_json()["items"]
    assert [(r["engineer"]["name"], r["renewal"]) for r in rows] == [
        ("Jules Junior", False),
        ("Remy Report", False),
        ("Otto Outsider", False),
        ("Jules Junior", True),
    ]


@pytest.mark.parametrize(
    "query",
    ["quarter=2026-Q5", "quarter=2026Q4", "quarter=Q4", "quarter=2026-Q4-", "year=2026"],
)
def test_bonuses_bad_query_is_400(api: Api, earned: People, query):
    response = api.get(f"/api/v1/bonuses?{query}", earned.tokens["admin"])
    assert response.status_code == 400
    assert response.get_json()["errors"]


@pytest.mark.parametrize("quarter", ["9999-Q4", "1969-Q4", "0001-Q1"])
def test_a_quarter_of_a_year_out_of_range_is_refused_saying_so(
    api: Api, earned: People, quarter: str
):
    response = api.get(f"/api/v1/bonuses?quarter={quarter}", earned.tokens["admin"])
    assert response.status_code == 400
    assert response.get_json() == {
        "errors": {"quarter": "the year must be from 1970 to 2999 (quarters 1970-Q1 to 2999-Q4)"}
    }


def test_the_quarters_form_and_range_are_documented(api: Api):
    doc = api.get("/api/v1/openapi.json").get_json()
    [quarter] = [
        p for p in doc["paths"]["/api/v1/bonuses"]["get"]["parameters"] if p["name"] == "quarter"
    ]
    assert quarter["schema"]["pattern"] == "^([0-9]{4})-[Qq]([1-4])$"
    assert "from 1970-Q1 to 2999-Q4" in quarter["description"]


def test_bonuses_need_a_token(api: Api):
    assert api.get("/api/v1/bonuses?quarter=2026-Q4").status_code == 401
