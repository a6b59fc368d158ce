"""Who may open each readiness page, and which teams /teams and /organisation show."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from tests.helpers import table, text
from tests.readiness.helpers import Org

pytestmark = pytest.mark.usefixtures("pinned_today")


TEAM_PAGES = [
    "/teams/{id}",
    "/teams/{id}?print=1",
    "/teams/{id}/heatmap.csv",
    "/teams/{id}/gaps.csv",
    "/teams/{id}/plan",
    "/teams/{id}/plan?gpus=500&target=2027-05-29",
]


@pytest.mark.parametrize("page", TEAM_PAGES)
@pytest.mark.parametrize(("who", "status"), [("mona", 200), ("admin", 200), ("otto", 403)])
def test_a_team_page_is_for_its_manager_and_admins(
    client: FlaskClient, auth, org: Org, page: str, who: str, status: int
) -> None:
    auth.sign_in(getattr(org, who))
    response = client.get(page.format(id=org.alpha.id))
    assert response.status_code == status
    if status == 403:
        # Hidden values (the random CSRF token) could hold "Ada" by chance.
        shown = re.sub(r'value="[^"]*"', "", response.get_data(as_text=True))
        assert "Alpha" not in shown
        assert "Ada" not in shown


READINESS_PAGES = [
    ("GET", "/teams"),
    ("GET", "/organisation"),
    ("GET", "/roi"),
    ("POST", "/roi"),
    *(("GET", p) for p in TEAM_PAGES),
]


@pytest.mark.parametrize(("method", "page"), READINESS_PAGES)
def test_engineers_get_403_on_every_readiness_page(
    client: FlaskClient, auth, org: Org, method: str, page: str
) -> None:
    """Engineers get 403; Ben is in Alpha, and still may not see it."""
    auth.sign_in(org.ben)
    response = client.open(page.format(id=org.alpha.id), method=method, data={})
    assert response.status_code == 403


@pytest.mark.parametrize(("method", "page"), READINESS_PAGES)
def test_anonymous_visitors_are_sent_to_sign_in(
    client: FlaskClient, org: Org, method: str, page: str
) -> None:
    response = client.open(page.format(id=org.alpha.id), method=method, data={})
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")


@pytest.mark.parametrize(("who", "status"), [("admin", 200), ("mona", 403), ("otto", 403)])
def test_the_organisation_page_is_for_admins(
    client: FlaskClient, auth, org: Org, who: str, status: int
) -> None:
    auth.sign_in(getattr(org, who))
    assert client.get("/organisation").status_code == status


@pytest.mark.parametrize(
    "page", ["/teams/{id}", "/teams/{id}/heatmap.csv", "/teams/{id}/gaps.csv", "/teams/{id}/plan"]
)
@pytest.mark.parametrize("who", ["mona", "admin"])
def test_an_unknown_team_is_404(client: FlaskClient, auth, org: Org, page: str, who: str) -> None:
    auth.sign_in(getattr(org, who))
    assert client.get(page.format(id=org.bravo.id + 1000)).status_code == 404


@pytest.mark.parametrize(
    ("who", "shown", "hidden"),
    [
        ("mona", ["Alpha"], ["Bravo"]),
        ("otto", ["Bravo"], ["Alpha"]),
        ("admin", ["Alpha", "Bravo"], []),
    ],
)
def test_teams_lists_the_managers_own_teams_and_every_team_for_an_admin(
    client: FlaskClient, auth, org: Org, who: str, shown: list[str], hidden: list[str]
) -> None:
    auth.sign_in(getattr(org, who))
    response = client.get("/teams")
    assert response.status_code == 200
    rows = table(response.get_data(as_text=True), header="Team")[1:]
    assert [row[0][0] for row in rows] == shown
    html = response.get_data(as_text=True)
    for name in hidden:
        assert name not in html


def test_teams_shows_each_teams_readiness_today(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    html = client.get("/teams").get_data(as_text=True)
    rows = {row[0][0]: [cell[0] for cell in row] for row in table(html, header="Team")[1:]}
    assert rows["Alpha"] == ["Alpha", "50", "Small (10-100 GPUs)", "2 / 4", "50%", "Mona"]
    assert rows["Bravo"] == ["Bravo", "40", "Small (10-100 GPUs)", "1 / 4", "25%", "Otto"]
    assert f'href="/teams/{org.alpha.id}"' in html
    assert 'href="/organisation"' in html  # an admin is offered the organisation page


def test_a_manager_is_not_offered_the_organisation_page(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    assert 'href="/organisation"' not in client.get("/teams").get_data(as_text=True)


def test_organisation_page_shows_every_team_in_a_summary_table(
    client: FlaskClient, auth, org: Org
) -> None:
    """One row per team, each opening the team: Ben's NCA-AIIO lapses in 47 days;
    Ada's lasts past 90 days and Cy's has already lapsed, so neither counts."""
    auth.sign_in(org.admin)
    html = client.get("/organisation").get_data(as_text=True)
    assert "Every team on Nov 29, 2026: 3 of 8 seats filled." in text(html)
    rows = [[cell[0] for cell in row][:6] for row in table(html, "summary")]
    assert rows == [
        ["Team ▲", "Manager", "Fleet band", "Seats filled", "Ready", "Lapsing within 90 days"],
        ["Alpha", "Mona", "Small (10-100 GPUs)", "2 of 4", "50%", "1"],
        ["Bravo", "Otto", "Small (10-100 GPUs)", "1 of 4", "25%", "0"],
    ]
    assert f'href="/teams/{org.alpha.id}">Alpha</a></th>' in html
    # The gaps are the team page's: the organisation page draws no team's seats.
    assert "<article" not in html and "nearest:" not in html
