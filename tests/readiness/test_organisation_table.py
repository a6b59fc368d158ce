"""The organisation table: the page (/organisation), its CSV and GET /api/v1/organisation.

One row per team (team, manager, fleet band, seats filled of total, % ready, lapsing
within 90 days, trend), sortable by each column, filtered by band, manager and name,
paged; the CSV and the API answer the same rows in the same order. TODAY (2026-11-29)
is pinned in app.config.
"""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from flask.testing import FlaskClient
from sqlalchemy import text as sql
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, table, text, token_for
from tests.readiness.helpers import Org, build_org, person
from tracker.readiness.models import ReadinessSnapshot
from tracker.readiness.rules import ORGANISATION_PAGE_ROWS, TREND_DAYS
from tracker.readiness.services.current import refresh
from tracker.readiness.services.organisation import (
    SORTS,
    SummaryFilters,
    order_keys,
    ordered,
    summary_page,
    summary_statement,
    totals,
)

TODAY = factories.TODAY

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def org(db: Session) -> Org:
    """Alpha (Mona's, small, 2 of 4), Bravo (Otto's, small, 1 of 4) and Charlie (nobody's,
    medium, 0 of 10, one certification lapsing in 30 days)."""
    found = build_org(db)
    charlie = factories.team(db, gpus=300, name="Charlie")
    person(db, "Lone", charlie, roles=("storage",), certs={"CKA": TODAY + dt.timedelta(days=30)})
    found.tokens = {"admin": token_for(db, found.admin), "mona": token_for(db, found.mona)}
    return found


def page_rows(client: FlaskClient, query: str = "") -> list[list[str]]:
    response = client.get(f"/organisation{query}")
    assert response.status_code == 200, response.status_code
    return [[cell[0] for cell in row] for row in table(response.get_data(as_text=True), "summary")]


def page_names(client: FlaskClient, query: str = "") -> list[str]:
    return [row[0] for row in page_rows(client, query)[1:]]


def api_names(api: Api, org: Org, query: str = "") -> list[str]:
    response = api.get(f"/api/v1/organisation{query}", org.tokens["admin"])
    assert response.status_code == 200, response.get_json()
    return [item["team"]["name"] for item in response.get_json()["items"]]


def csv_rows(client: FlaskClient, query: str = "") -> list[list[str]]:
    response = client.get(f"/organisation.csv{query}")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_one_row_per_team_with_each_column(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    rows = page_rows(client)
    assert rows == [
        [
            "Team ▲",  # sorted by team name, ascending
            "Manager",
            "Fleet band",
            "Seats filled",
            "Ready",
            "Lapsing within 90 days",
            "Trend over 30 days",
        ],
        ["Alpha", "Mona", "Small (10-100 GPUs)", "2 of 4", "50%", "1", "—no earlier snapshot"],
        ["Bravo", "Otto", "Small (10-100 GPUs)", "1 of 4", "25%", "0", "—no earlier snapshot"],
        [
            "Charlie",
            "—",
            "Medium (100-1,000 GPUs)",
            "0 of 10",
            "0%",
            "1",
            "—no earlier snapshot",
        ],
    ]


def test_each_row_opens_its_team_and_the_sorted_column_says_so(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.admin)
    html = client.get("/organisation?sort=ready&order=desc").get_data(as_text=True)
    assert f'<th scope="row"><a href="/teams/{org.alpha.id}">Alpha</a></th>' in html
    assert '<th scope="col" aria-sort="descending"><a href="/organisation?sort=ready' in html
    assert html.count("aria-sort=") == 1
    # The sorted column's heading turns the order; the others sort ascending.
    assert 'href="/organisation?sort=ready&amp;order=asc"' in html
    assert 'href="/organisation?sort=lapsing&amp;order=asc"' in html


EXPECTED_ORDER = {
    "team": ["Alpha", "Bravo", "Charlie"],
    "manager": ["Charlie", "Alpha", "Bravo"],  # nobody's first, then Mona, Otto
    "band": ["Alpha", "Bravo", "Charlie"],
    "seats": ["Charlie", "Bravo", "Alpha"],
    "ready": ["Charlie", "Bravo", "Alpha"],
    "lapsing": ["Bravo", "Alpha", "Charlie"],
    "trend": ["Alpha", "Bravo", "Charlie"],  # no history: all level, by name
}


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_every_column_sorts_the_page_the_csv_and_the_api_alike(
    client: FlaskClient, auth, api: Api, org: Org, sort: str, order: str
) -> None:
    auth.sign_in(org.admin)
    query = f"?sort={sort}&order={order}"
    expected = EXPECTED_ORDER[sort]
    if order == "desc":
        # The column's order turns; equal rows stay by name (all of them for team).
        expected = {
            "team": expected[::-1],
            "band": ["Charlie", "Alpha", "Bravo"],
            "lapsing": ["Alpha", "Charlie", "Bravo"],
            "trend": expected,
        }.get(sort, expected[::-1])
    assert page_names(client, query) == expected
    assert [row[0] for row in csv_rows(client, query)[1:]] == expected
    assert api_names(api, org, query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?band=medium", ["Charlie"]),
        ("?band=small&name=BRA", ["Bravo"]),
        ("?manager=mon", ["Alpha"]),
        ("?name=a", ["Alpha", "Bravo", "Charlie"]),
        ("?name=%25", []),  # a percent sign is text, not a wildcard
    ],
)
def test_filters_by_band_manager_and_name(
    client: FlaskClient, auth, api: Api, org: Org, query: str, expected: list[str]
) -> None:
    auth.sign_in(org.admin)
    assert page_names(client, query) == (expected or ["No team matches these filters."])
    assert [row[0] for row in csv_rows(client, query)[1:]] == expected
    assert api_names(api, org, query) == expected


def test_the_filtered_page_says_how_many_match_and_keeps_the_filters_on_its_links(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.admin)
    html = client.get("/organisation?band=small&sort=ready").get_data(as_text=True)
    page = text(html)
    assert "2 teams match · clear the filters" in page
    # The organisation's totals stay whole: the filters pick rows, not the sum.
    assert "Every team on Nov 29, 2026: 3 of 18 seats filled." in page
    assert 'href="/organisation.csv?band=small&amp;sort=ready"' in html
    assert 'href="/organisation?band=small&amp;sort=team&amp;order=asc"' in html


def test_the_table_is_paged_like_the_api(
    client: FlaskClient, auth, api: Api, db: Session, org: Org
) -> None:
    for n in range(ORGANISATION_PAGE_ROWS):
        factories.team(db, gpus=20, name=f"Extra {n:02d}")
    auth.sign_in(org.admin)
    first = page_names(client)
    second = page_names(client, "?page=2")
    assert len(first) == ORGANISATION_PAGE_ROWS and len(second) == 3
    html = client.get("/organisation?page=2").get_data(as_text=True)
    assert "Page 2 of 2" in text(html) and 'rel="prev"' in html and 'rel="next"' not in html
    assert page_names(client, "?page=9") == second  # past the end: the last page

    answer = api.get("/api/v1/organisation", org.tokens["admin"]).get_json()
    assert [item["team"]["name"] for item in answer["items"]] == first
    following = api.get(
        f"/api/v1/organisation?cursor={answer['next']}", org.tokens["admin"]
    ).get_json()
    assert [item["team"]["name"] for item in following["items"]] == second
    assert following["next"] is None
    # The CSV holds the whole table.
    assert len(csv_rows(client)) == 1 + len(first) + len(second)


def test_the_api_answers_each_row_as_documented(api: Api, org: Org) -> None:
    answer = api.get("/api/v1/organisation?name=alpha", org.tokens["admin"]).get_json()
    assert answer == {
        "items": [
            {
                "team": {
                    "id": org.alpha.id,
                    "name": "Alpha",
                    "gpus": 50,
                    "manager": {"id": org.mona.id, "name": "Mona"},
                },
                "band": "small",
                "filled": 2,
                "total": 4,
                "percent": 50.0,
                "lapsing": 1,
                "trend": None,
            }
        ],
        "next": None,
    }


def test_the_csv_holds_the_columns_as_values(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    rows = csv_rows(client, "?sort=ready")
    assert rows[0] == [
        "team",
        "manager",
        "band",
        "gpus",
        "seats_filled",
        "seats",
        "percent_ready",
        "lapsing_within_90_days",
        "trend_points",
    ]
    assert rows[1] == ["Charlie", "", "medium", "300", "0", "10", "0.0", "1", ""]
    assert rows[3] == ["Alpha", "Mona", "small", "50", "2", "4", "50.0", "1", ""]


def test_the_trend_compares_with_the_snapshot_a_month_before(
    client: FlaskClient, auth, api: Api, db: Session, org: Org
) -> None:
    """Alpha was at 75 % and Bravo at 0 % thirty days ago; Charlie has no snapshot then."""
    then = TODAY - dt.timedelta(days=TREND_DAYS)
    for team, day, filled, tenths in (
        (org.alpha, then, 3, 750),
        (org.bravo, then - dt.timedelta(days=3), 0, 0),
    ):
        db.add(
            ReadinessSnapshot(
                team_id=team.id, day=day, filled=filled, total=4, percent_tenths=tenths, lapsing=0
            )
        )
    db.flush()
    auth.sign_in(org.admin)
    rows = {row[0]: row[-1] for row in page_rows(client)[1:]}
    assert rows == {
        "Alpha": "↓ \u221225down 25 points",
        "Bravo": "↑ +25up 25 points",
        "Charlie": "—no earlier snapshot",
    }
    assert page_names(client, "?sort=trend") == ["Alpha", "Charlie", "Bravo"]
    trends = {
        item["team"]["name"]: item["trend"]
        for item in api.get("/api/v1/organisation", org.tokens["admin"]).get_json()["items"]
    }
    assert trends == {"Alpha": -25.0, "Bravo": 25.0, "Charlie": None}


@pytest.mark.parametrize(
    ("query", "field"),
    [("?sort=cost", "sort"), ("?order=up", "order"), ("?band=huge", "band"), ("?limit=0", "limit")],
)
def test_bad_filters_are_refused_naming_the_field(
    client: FlaskClient, auth, api: Api, org: Org, query: str, field: str
) -> None:
    """The page names the rule by its field (a band not listed: the listed ones)."""
    response = api.get(f"/api/v1/organisation{query}", org.tokens["admin"])
    assert response.status_code == 400
    assert set(response.get_json()["errors"]) == {field}
    if field != "limit":
        auth.sign_in(org.admin)
        page = client.get(f"/organisation{query}")
        assert page.status_code == 400
        said = {
            "sort": "sort must be one of team, manager, band, seats, ready, lapsing, trend",
            "order": "order must be asc or desc",
            "band": "choose one of the listed options",
        }[field]
        assert said in text(page.get_data(as_text=True))
        assert client.get(f"/organisation.csv{query}").status_code == 400


def test_empty_parameters_mean_their_defaults_on_the_page_the_csv_and_the_api(
    client: FlaskClient, auth, api: Api, org: Org
) -> None:
    """A form or a link may send ?sort=&band=: empty is absent, as the API reads it."""
    empty = "?sort=&order=&band=&name=&manager="
    auth.sign_in(org.admin)
    assert page_names(client, empty) == page_names(client, "")
    assert client.get(f"/organisation.csv{empty}").status_code == 200
    assert api.get(f"/api/v1/organisation{empty}", org.tokens["admin"]).status_code == 200


def test_the_organisation_is_for_admins(client: FlaskClient, auth, api: Api, org: Org) -> None:
    response = api.get("/api/v1/organisation", org.tokens["mona"])
    assert response.status_code == 403
    assert set(response.get_json()["errors"]) == {"engineer"}
    auth.sign_in(org.mona)
    assert client.get("/organisation.csv").status_code == 403


def test_a_certification_recorded_over_the_api_shows_everywhere_on_the_next_request(
    client: FlaskClient, auth, api: Api, db: Session, org: Org
) -> None:
    """Cy's NCA-AIIO expired; recorded anew, he fills Alpha's second operations seat."""
    auth.sign_in(org.admin)
    assert page_rows(client, "?name=alpha")[1][3] == "2 of 4"
    response = api.post(
        "/api/v1/credentials",
        org.tokens["admin"],
        {
            "engineer": org.cy.id,
            "code": "NCA-AIIO",
            "issued_on": TODAY.isoformat(),
            "evidence": "certificate 42",
        },
    )
    assert response.status_code == 201
    assert page_rows(client, "?name=alpha")[1][3] == "3 of 4"
    assert "3 of 4 seats filled" in client.get(f"/teams/{org.alpha.id}").get_data(as_text=True)
    (row,) = api.get("/api/v1/organisation?name=alpha", org.tokens["admin"]).get_json()["items"]
    assert (row["filled"], row["percent"]) == (3, 75.0)


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_paging_one_row_at_a_time_answers_the_whole_table_in_its_order(
    api: Api, org: Org, sort: str, order: str
) -> None:
    """The cursor carries every key of the order (counts of zero, trends of any sign)."""
    query = f"?sort={sort}&order={order}"
    names, cursor = [], ""
    while True:
        answer = api.get(
            f"/api/v1/organisation{query}&limit=1{cursor}", org.tokens["admin"]
        ).get_json()
        names += [item["team"]["name"] for item in answer["items"]]
        if answer["next"] is None:
            break
        cursor = f"&cursor={answer['next']}"
    assert names == api_names(api, org, query)
    assert len(names) == 3


@pytest.mark.parametrize(
    ("sort", "index"), [("ready", "percent_tenths"), ("seats", "filled_total")]
)
def test_a_first_page_by_a_stored_column_is_read_off_its_index(
    db: Session, org: Org, sort: str, index: str
) -> None:
    """On PostgreSQL, the table sorted by % ready (or seats) reads the teams in that order
    off an index and sorts only the team names of equal rows: not every team."""
    if db.get_bind().dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (SQLite's planner sorts tables this small)")
    for descending in (False, True):
        statement = ordered(summary_statement(), order_keys(sort, descending)).limit(51)
        compiled = statement.compile(db.get_bind(), compile_kwargs={"literal_binds": True})
        # The tables are small here: the planner is told to prefer anything to a full sort.
        db.execute(sql("SET LOCAL enable_sort = off"))
        plan = "\n".join(db.execute(sql(f"EXPLAIN {compiled}")).scalars())
        assert f"ix_team_readiness_{index}" in plan, plan
        assert "Incremental Sort" in plan, plan


def test_a_page_without_rows_still_has_the_totals(db: Session, org: Org) -> None:
    refresh(db, TODAY)
    everything = summary_page(db)
    teams = everything.totals.teams
    assert teams == everything.totals.matching == 3
    for page in (-3, 0, 1, 7):
        none = summary_page(db, SummaryFilters(name="no such team"), page=page)
        assert none.rows == [] and none.page == 1
        assert (none.totals.teams, none.totals.matching) == (teams, 0)
        assert none.totals.filled == everything.totals.filled
    # The rows' totals are the totals query's.
    assert summary_page(db, SummaryFilters(name="alp")).totals == totals(
        db, SummaryFilters(name="alp")
    )
