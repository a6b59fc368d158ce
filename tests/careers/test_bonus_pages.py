"""The bonus pages: the ledger and its CSV by who asks, a quarter's refusals, the amounts."""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from tests import factories
from tests.careers.conftest import People
from tests.careers.helpers import page
from tests.helpers import count
from tracker.careers.models import CertificationBonus
from tracker.careers.services.bonuses import set_bonus

D = dt.date
TODAY = factories.TODAY  # 2026-11-29


def csv_rows(client: FlaskClient, url: str) -> list[list[str]]:
    response = client.get(url)
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_the_ledger_page_and_csv_for_an_admin(client, auth, people, earned: People):
    auth.sign_in(people.admin)
    html = page(client, "/careers/bonuses?quarter=2026-Q4")
    assert "Certification bonuses · 2026-Q4" in html
    assert "Jules Junior" in html and "$1,500" in html
    assert page(client, "/careers/bonuses").count("2026-Q4") >= 1  # today's quarter
    rows = csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q4")
    assert rows[0] == [
        "quarter",
        "engineer",
        "email",
        "certification",
        "name",
        "passed_on",
        "renewal",
        "amount",
    ]
    assert rows[1] == [
        "2026-Q4",
        "Jules Junior",
        earned.junior.email,
        "NCA-AIIO",
        "NVIDIA Certified Associate - AI Infrastructure and Operations",
        "2026-10-01",
        "no",
        "500.00",
    ]
    assert [r[1] for r in rows[1:]] == ["Jules Junior", "Remy Report", "'=HYPERLINK(evil)"]
    assert csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q3") == [rows[0]]


def test_managers_and_engineers_see_their_rows(client, auth, people, earned: People):
    auth.sign_in(people.manager)
    rows = csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q4")
    assert [r[1] for r in rows[1:]] == ["Jules Junior", "Remy Report"]
    html = page(client, "/careers/bonuses?quarter=2026-Q4")
    assert "HYPERLINK" not in html
    client.post("/logout")
    auth.sign_in(people.junior)
    rows = csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q4")
    assert [r[1] for r in rows[1:]] == ["Jules Junior"]


@pytest.mark.parametrize("quarter", ["2026-Q5", "2026Q4", "last"])
def test_a_malformed_quarter_is_400(client, auth, people, earned: People, quarter):
    auth.sign_in(people.admin)
    response = client.get(f"/careers/bonuses?quarter={quarter}")
    assert response.status_code == 400
    assert "quarter must be written YYYY-Qn" in response.get_data(as_text=True)
    assert client.get(f"/careers/bonuses.csv?quarter={quarter}").status_code == 400


@pytest.mark.parametrize("quarter", ["0001-Q1", "9999-Q4"])
def test_a_quarter_of_a_year_out_of_range_says_the_range(
    client, auth, people, earned: People, quarter
):
    auth.sign_in(people.admin)
    rule = "the year must be from 1970 to 2999 (quarters 1970-Q1 to 2999-Q4)"
    response = client.get(f"/careers/bonuses?quarter={quarter}")
    assert response.status_code == 400
    assert rule in response.get_data(as_text=True)
    assert "YYYY-Qn, Q1 to Q4" not in response.get_data(as_text=True)
    download = client.get(f"/careers/bonuses.csv?quarter={quarter}")
    assert download.status_code == 400
    assert rule in download.get_data(as_text=True)


def test_an_admin_sets_bonus_amounts(client, db, auth, people: People):
    auth.sign_in(people.admin)
    assert "No bonus set." in page(client, "/careers/bonuses/amounts")
    response = client.post(
        "/careers/bonuses/amounts",
        data={
            "credential": "NCP-AII",
            "amount": "1250.50",
            "renewals_earn": "y",
            "effective_on": "2026-10-01",
        },
    )
    assert response.status_code == 302
    row = db.scalars(select(CertificationBonus)).one()
    assert (row.credential.code, row.amount, row.renewals_earn, row.effective_on) == (
        "NCP-AII",
        Decimal("1250.50"),
        True,
        D(2026, 10, 1),
    )
    html = page(client, "/careers/bonuses/amounts")
    assert "NCP-AII: bonus $1,250.50 (renewals earn it too), for certifications passed" in html
    assert "$1,250.50" in html and "from 2026-10-01" in html
    # The form offers today as the date a new amount takes effect.
    assert 'value="2026-11-29"' in html


def test_the_amounts_page_keeps_earlier_amounts_with_their_dates(client, db, auth, people):
    for amount, day in (("500", D(2025, 1, 1)), ("800", D(2026, 6, 1))):
        set_bonus(
            db, factories.credential(db, "NCA-AIIO"), Decimal(amount), effective_on=day, today=TODAY
        )
    auth.sign_in(people.admin)
    html = page(client, "/careers/bonuses/amounts")
    current, earlier = html.split("<h2>Earlier amounts")
    assert "$800" in current and "from 2026-06-01" in current
    assert "$500" in earlier and "from 2025-01-01 to 2026-05-31" in earlier


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"credential": "NCP-AII", "amount": "-1"}, "“Amount (USD)” must be at least 0"),
        ({"credential": "NCP-AII", "amount": "2000000"}, "at most 1000000"),
        ({"credential": "NCP-AII", "amount": "1.234"}, "“Amount (USD)” must have at most 2"),
        ({"credential": "NCP-AII", "amount": ""}, "an amount is required"),
        ({"credential": "NVIDIA-PROFESSIONAL", "amount": "5"}, "choose one of the listed"),
        ({"credential": "NOPE", "amount": "5"}, "choose one of the listed certifications"),
        (
            {"credential": "NCP-AII", "amount": "5", "effective_on": ""},
            "effective from is required (YYYY-MM-DD)",
        ),
        (
            {"credential": "NCP-AII", "amount": "5", "effective_on": "2026-11-30"},
            "effective from must not be after today (2026-11-29)",
        ),
        ({"credential": "NCP-AII", "amount": "5", "effective_on": "1969-12-31"}, "1970-01-01"),
        ({"credential": "NCP-AII", "amount": "5", "effective_on": "29/11/2026"}, "date"),
    ],
)
def test_bad_bonus_amounts_are_refused(client, db, auth, people: People, data, message):
    auth.sign_in(people.admin)
    response = client.post("/careers/bonuses/amounts", data={"effective_on": "2026-11-01", **data})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert count(db, CertificationBonus) == 0


def test_only_admins_set_bonus_amounts(client, db, auth, people: People):
    auth.sign_in(people.manager)
    page(client, "/careers/bonuses/amounts", 403)
    response = client.post(
        "/careers/bonuses/amounts", data={"credential": "NCP-AII", "amount": "5"}
    )
    assert response.status_code == 403
    assert count(db, CertificationBonus) == 0
