"""The readiness pages and API issue as many SQL statements for a ten times larger organisation."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, count_statements, token_for
from tests.readiness.helpers import grow
from tracker.catalog.services.snapshot import forget_snapshots

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.mark.parametrize(
    "page", ["/teams/{id}", "/teams/{id}?gpus=1000", "/organisation", "/teams"]
)
def test_pages_issue_the_same_queries_for_a_ten_times_larger_organisation(
    client: FlaskClient, auth, db: Session, page: str
) -> None:
    """The team and organisation pages ... issue a bounded number of
    SQL queries, independent of the number of engineers and records.

    The small organisation: 3 teams of 3 engineers. The larger one: the same 3 teams
    with 30 engineers each, and 27 more teams of 3 (ten times the teams, more than ten
    times the engineers, certifications and hour logs). Signing in is not counted, nor
    bringing the teams' stored readiness up to date after the organisation grew (a
    request that does it first; test_current counts what that costs).
    """
    admin = factories.engineer(db, name="Admin", access_role="admin")
    teams = [factories.team(db, gpus=50 * (n + 1), name=f"Q{n}", manager=admin) for n in range(3)]
    for n, crew in enumerate(teams):
        grow(db, crew, 3, f"S{n}-")
    auth.sign_in(admin)
    url = page.format(id=teams[0].id)

    def get() -> str:
        response = client.get(url)
        assert response.status_code == 200
        return response.get_data(as_text=True)

    def cold_and_warm() -> tuple[tuple[int, int], str]:
        """Count a request with no copy of the catalog in the process, then one with it."""
        get()
        forget_snapshots()
        cold, html = count_statements(db, get)
        warm, _ = count_statements(db, get)
        assert warm < cold  # the second reads the catalog from the process's copy
        return (cold, warm), html

    few, small_html = cold_and_warm()
    for n, crew in enumerate(teams):
        grow(db, crew, 27, f"L{n}-")
    for n in range(27):
        boss = factories.engineer(db, name=f"Boss {n}", access_role="manager")
        grow(db, factories.team(db, gpus=2000, name=f"R{n:02d}", manager=boss), 3, f"R{n}-")
    many, large_html = cold_and_warm()

    # The pages did grow.
    if page.startswith("/teams/"):
        assert "L0-026" in large_html and "L0-026" not in small_html
    else:
        assert "R26" in large_html and "R26" not in small_html
    assert few == many, f"{few} statements for the small organisation, {many} for the large"
    assert 0 < few[1] < few[0] <= 40


@pytest.mark.parametrize("query", ["", "?gpus=1000"])
def test_readiness_issues_the_same_queries_for_a_ten_times_larger_organisation(
    api: Api, db: Session, query: str
) -> None:
    """The readiness call issue[s] a bounded number of SQL queries,
    independent of the number of engineers and records."""
    admin = factories.engineer(db, name="Admin", access_role="admin")
    token = token_for(db, admin)
    teams = [factories.team(db, gpus=500, name=f"Q{n}", manager=admin) for n in range(3)]
    for n, crew in enumerate(teams):
        grow(db, crew, 3, f"S{n}-")
    url = f"/api/v1/teams/{teams[0].id}/readiness{query}"

    def get() -> dict:
        response = api.get(url, token)
        assert response.status_code == 200
        return response.get_json()

    get()  # the token's first use is recorded once; count the calls after it
    few, small = count_statements(db, get)
    for n, crew in enumerate(teams):
        grow(db, crew, 27, f"L{n}-")
    many, large = count_statements(db, get)

    assert small["filled"] < large["filled"]  # the larger team fills more seats
    assert few == many, f"{few} statements for 3 engineers, {many} for 30"
    assert 0 < few <= 30
