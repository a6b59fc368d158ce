"""Return on investment (docs/domain.md section 6): the calculation and its page (/roi)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from flask.testing import FlaskClient

from tests import factories
from tests.helpers import field_error
from tests.readiness.helpers import Org, roi_form, roi_result
from tracker.errors import ValidationError
from tracker.readiness.rules import MAX_ROI_AMOUNT, MAX_ROI_LABEL_LENGTH, MAX_ROI_LINES
from tracker.readiness.services.roi import roi

INVESTMENT = {"training": 75000, "exams-materials": 20000, "bootcamp-lab": 50000}


RETURNS = {"downtime": 100000, "contractors": 200000, "efficiency": 75000, "faster": 300000}


pytestmark = pytest.mark.usefixtures("pinned_today")


# --- the calculation ------------------------------------------------------------------


def test_roi_of_the_documents_example() -> None:
    """DOMAIN 6: "first-year ROI = (returns - investment) / investment = 365 %;
    ongoing ROI (later years, no new investment) = returns / first-year
    investment = 465 %. A calculator must reproduce these two figures from these
    inputs."
    """
    result = roi(INVESTMENT, RETURNS)
    assert (result.investment_total, result.returns_total) == (145000, 675000)
    assert result.first_year_roi_percent == 365
    assert result.ongoing_roi_percent == 465


def test_roi_with_no_returns_loses_everything() -> None:
    result = roi({"x": 1000}, {})
    assert (result.first_year_roi_percent, result.ongoing_roi_percent) == (-100, 0)


@pytest.mark.parametrize(
    ("investment", "returns", "key"),
    [
        ({**INVESTMENT, "training": -1}, RETURNS, "investment.training"),
        (INVESTMENT, {**RETURNS, "downtime": -5}, "returns.downtime"),
        ({**INVESTMENT, "training": 1.5}, RETURNS, "investment.training"),
        ({**INVESTMENT, "training": "75000"}, RETURNS, "investment.training"),
        ({**INVESTMENT, "training": None}, RETURNS, "investment.training"),
        ({**INVESTMENT, "training": True}, RETURNS, "investment.training"),
        (INVESTMENT, {**RETURNS, "faster": Decimal("1")}, "returns.faster"),
    ],
)
def test_roi_bad_lines_are_named(investment: dict, returns: dict, key: str) -> None:
    with pytest.raises(ValidationError, match=key.replace(".", r"\.")) as caught:
        roi(investment, returns)
    assert list(caught.value.errors) == [key]


@pytest.mark.parametrize(
    ("investment", "returns", "key", "message"),
    [
        (
            {**INVESTMENT, "training": MAX_ROI_AMOUNT + 1},
            RETURNS,
            "investment.training",
            "must be a whole amount from 0 to 10,000,000,000",
        ),
        (
            {f"line {n}": 1 for n in range(MAX_ROI_LINES + 1)},
            RETURNS,
            "investment",
            "must hold at most 20 lines",
        ),
        (
            INVESTMENT,
            {"x" * (MAX_ROI_LABEL_LENGTH + 1): 1},
            "returns",
            "a line's name must be at most 200 characters",
        ),
    ],
)
def test_roi_keeps_the_calculators_limits(
    investment: dict, returns: dict, key: str, message: str
) -> None:
    """The form's limits hold whichever way the lines come."""
    with pytest.raises(ValidationError) as caught:
        roi(investment, returns)
    assert caught.value.errors == {key: message}


def test_roi_at_the_calculators_limits() -> None:
    lines = {f"{n:0{MAX_ROI_LABEL_LENGTH}d}": MAX_ROI_AMOUNT for n in range(MAX_ROI_LINES)}
    result = roi(lines, lines)
    assert result.investment_total == MAX_ROI_LINES * MAX_ROI_AMOUNT


@pytest.mark.parametrize("investment", [{}, {"training": 0}, {"a": 0, "b": 0}])
def test_roi_needs_an_investment(investment: dict) -> None:
    with pytest.raises(ValidationError) as caught:
        roi(investment, RETURNS)
    assert "investment" in caught.value.errors


# --- the page -------------------------------------------------------------------------


def test_roi_page_is_prefilled_with_the_documents_example(
    client: FlaskClient, auth, org: Org
) -> None:
    """DOMAIN 6: the example answers 365 % and 465 %."""
    auth.sign_in(org.mona)
    response = client.get("/roi")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    result = roi_result(html)
    assert "Investment $145,000 · yearly returns $675,000" in result
    assert "First-year ROI 365% · ongoing ROI 465%" in result
    for name, value in [
        ("investment-0-amount", "75000"),
        ("investment-1-amount", "20000"),
        ("investment-2-amount", "50000"),
        ("returns-0-amount", "100000"),
        ("returns-1-amount", "200000"),
        ("returns-2-amount", "75000"),
        ("returns-3-amount", "300000"),
    ]:
        assert re.search(rf'name="{name}"[^>]*value="{value}"', html), name
    assert 'value="Training (5 engineers x 15,000)"' in html


def test_roi_post_computes_other_lines(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    data = roi_form(
        [("Courses", 60000), ("Labs", 40000)],
        [("Downtime", 150000), ("Contractors", 100000)],
    )
    response = client.post("/roi", data=data)
    assert response.status_code == 200
    result = roi_result(response.get_data(as_text=True))
    assert "Investment $100,000 · yearly returns $250,000" in result
    assert "First-year ROI 150% · ongoing ROI 250%" in result


def test_roi_post_of_the_example_answers_365_and_465(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    data = roi_form(
        [("Training", 75000), ("Exams", 20000), ("Bootcamp", 50000)],
        [("Downtime", 100000), ("Contractors", 200000), ("Efficiency", 75000), ("Fast", 300000)],
    )
    response = client.post("/roi", data=data)
    assert response.status_code == 200
    assert "First-year ROI 365% · ongoing ROI 465%" in roi_result(response.get_data(as_text=True))


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (-1, "amount must be from 0 to 10,000,000,000"),
        ("lots", "must be a whole number"),
        ("1.5", "must be a whole number"),
        ("1,00", "must be a whole number"),
        ("", "an amount is required"),
    ],
)
def test_roi_post_with_a_bad_amount_is_400(
    client: FlaskClient, auth, org: Org, amount: object, message: str
) -> None:
    auth.sign_in(org.mona)
    data = roi_form([("Training", 75000)], [("Downtime", 100000), ("Other", amount)])
    response = client.post("/roi", data=data)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message in field_error(html, "returns-1-amount")
    assert "roi-result" not in html


def test_roi_post_reads_amounts_grouped_as_english_writes_them(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    data = roi_form([("Training", "75,000")], [("Downtime", "1,000,000")])
    response = client.post("/roi", data=data)
    assert response.status_code == 200
    assert "Investment $75,000 · yearly returns $1,000,000" in roi_result(
        response.get_data(as_text=True)
    )


def test_roi_post_names_a_line_without_its_name(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    response = client.post("/roi", data=roi_form([("Training", 1)], [("x" * 201, 1)]))
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert field_error(html, "returns-0-label") == "“Line” must be at most 200 characters"
    response = client.post("/roi", data=roi_form([("", 1)], [("Downtime", 1)]))
    assert field_error(response.get_data(as_text=True), "investment-0-label") == (
        "“Line” is required"
    )


def test_roi_post_with_no_investment_is_400(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    response = client.post("/roi", data=roi_form([("Nothing", 0)], [("Downtime", 100)]))
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "the investment must be more than 0" in html
    assert "roi-result" not in html


def test_roi_post_does_not_silently_drop_lines(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    data = roi_form([(f"Line {i}", 1000) for i in range(25)], [("Downtime", 100000)])
    response = client.post("/roi", data=data)
    html = response.get_data(as_text=True)
    if response.status_code == 200:
        assert "Investment $25,000" in roi_result(html)
    else:
        assert response.status_code == 400
        assert "roi-result" not in html


def test_roi_post_needs_a_csrf_token(
    client: FlaskClient, auth, org: Org, csrf_enabled: None
) -> None:
    data = roi_form([("Training", 75000)], [("Downtime", 100000)])
    form = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', form)
    assert token is not None
    response = client.post(
        "/login",
        data={"email": org.mona.email, "password": factories.PASSWORD, "csrf_token": token[1]},
    )
    assert response.status_code == 302

    refused = client.post("/roi", data=data)
    assert refused.status_code == 400
    assert "roi-result" not in refused.get_data(as_text=True)

    page = client.get("/roi").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    accepted = client.post("/roi", data={**data, "csrf_token": token[1]})
    assert accepted.status_code == 200
    assert "First-year ROI 33% · ongoing ROI 133%" in roi_result(accepted.get_data(as_text=True))
