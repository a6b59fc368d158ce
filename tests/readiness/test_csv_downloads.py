"""The team page's CSV downloads: the heat map and the gaps, bad queries, formula injection."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import read_csv
from tests.readiness.helpers import Org, person
from tracker.people.services.persons import set_active

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.mark.parametrize("page", ["heatmap.csv", "gaps.csv"])
@pytest.mark.parametrize("query", ["?gpus=-1", "?gpus=abc", "?on=not-a-date"])
def test_csv_with_a_bad_query_is_400(
    client: FlaskClient, auth, org: Org, page: str, query: str
) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/{page}{query}")
    assert response.status_code == 400
    assert response.mimetype == "text/html"
    assert "gpus must be a whole number" in response.get_data(as_text=True)


def test_heat_map_csv(client: FlaskClient, auth, org: Org) -> None:
    """CSV export of the heat map."""
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/heatmap.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="heatmap-team-{org.alpha.id}-2026-11-29.csv"'
    )
    rows = read_csv(response.get_data(as_text=True))
    header = rows[0]
    assert header[:3] == ["engineer", "email", "level"]
    assert header[3:5] == ["NCA-AIIO", "NCP-AII"]
    assert "NVIDIA-NETWORKING" in header
    by_name = {row[0]: dict(zip(header, row, strict=True)) for row in rows[1:]}
    assert list(by_name) == ["Ada", "Ben", "Cy"]
    assert by_name["Ada"]["email"] == org.ada.email
    assert by_name["Ada"]["level"] == "3"
    assert by_name["Ada"]["NCA-AIIO"] == "valid (2029-01-10)"
    assert by_name["Ada"]["NVIDIA-NETWORKING"] == "valid"
    assert by_name["Ben"]["NCA-AIIO"] == "expiring (2027-01-15)"
    assert by_name["Cy"]["NCA-AIIO"] == "expired (2026-06-01)"
    assert by_name["Cy"]["NCP-AII"] == "missing"
    words = {cell.split(" ")[0] for row in rows[1:] for cell in row[3:]}
    assert words == {"valid", "expiring", "expired", "missing"}


def test_heat_map_csv_has_one_row_per_active_member(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    set_active(db, org.cy, False)
    person(db, "Dee", org.alpha, roles=("storage",), level=1)
    auth.sign_in(org.mona)
    rows = read_csv(client.get(f"/teams/{org.alpha.id}/heatmap.csv").get_data(as_text=True))
    assert [row[0] for row in rows[1:]] == ["Ada", "Ben", "Dee"]
    assert all(len(row) == len(rows[0]) for row in rows)


def test_heat_map_csv_for_another_fleet_and_date(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/heatmap.csv?gpus=500&on=2027-01-16")
    assert "heatmap-team-" in response.headers["Content-Disposition"]
    assert "-2027-01-16.csv" in response.headers["Content-Disposition"]
    rows = read_csv(response.get_data(as_text=True))
    header = rows[0]
    assert header[-3:] == ["CKA", "RHCE", "VCP-DCV"]
    ben = dict(zip(header, rows[2], strict=True))
    assert ben["engineer"] == "Ben"
    assert ben["NCA-AIIO"] == "expired (2027-01-15)"


def test_gaps_csv(client: FlaskClient, auth, org: Org) -> None:
    """CSV export ... of the readiness gaps."""
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/gaps.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="gaps-team-{org.alpha.id}-2026-11-29.csv"'
    )
    assert read_csv(response.get_data(as_text=True)) == [
        ["template", "slot", "role", "min_level", "max_level", "candidate", "lacks"],
        [
            "small",
            "Infrastructure Lead",
            "lead",
            "4",
            "4",
            "Cy",
            "job role Infrastructure Lead; level 4 (is 2); certification NVIDIA-PROFESSIONAL; "
            "certification VENDOR-EXPERT",
        ],
        [
            "small",
            "Operations Engineer",
            "operations",
            "2",
            "3",
            "Cy",
            "valid NCA-AIIO (it was valid through 2026-06-01)",
        ],
    ]


def test_gaps_csv_says_hire_where_nobody_is_left(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.otto)
    rows = read_csv(client.get(f"/teams/{org.bravo.id}/gaps.csv").get_data(as_text=True))
    assert rows[1:] == [
        ["small", "Infrastructure Lead", "lead", "4", "4", "hire", ""],
        ["small", "Operations Engineer", "operations", "2", "3", "hire", ""],
        ["small", "Network Specialist", "network", "3", "3", "hire", ""],
    ]


def test_gaps_csv_lists_missing_team_wide_certifications(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    rows = read_csv(client.get(f"/teams/{org.alpha.id}/gaps.csv?gpus=500").get_data(as_text=True))
    assert rows[1][0] == "medium"
    team_wide = [row for row in rows if row[1] == "team-wide"]
    assert team_wide == [
        ["medium", "team-wide", "", "", "", "nobody", "certification RHCE"],
        ["medium", "team-wide", "", "", "", "nobody", "certification VCP-DCV"],
    ]


@pytest.mark.parametrize(
    "name",
    [
        '=HYPERLINK("http://evil.example","x")',
        "+SUM(1,2)",
        "-2+3",
        "@SUM(A1)",
    ],
)
def test_csv_cells_that_start_a_formula_are_neutralised(
    client: FlaskClient, auth, db: Session, name: str
) -> None:
    """A name a spreadsheet would run as a formula gets a leading apostrophe."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=20, name="Injected", manager=boss)
    person(db, name, crew, level=1)
    auth.sign_in(boss)

    heat_rows = read_csv(client.get(f"/teams/{crew.id}/heatmap.csv").get_data(as_text=True))
    gap_rows = read_csv(client.get(f"/teams/{crew.id}/gaps.csv").get_data(as_text=True))

    assert heat_rows[1][0] == "'" + name
    candidates = {row[5] for row in gap_rows[1:]}
    assert candidates == {"'" + name}
    for row in heat_rows[1:] + gap_rows[1:]:
        for cell in row:
            assert cell[:1] not in ("=", "+", "-", "@"), row


def test_csv_email_that_starts_a_formula_is_neutralised(
    client: FlaskClient, auth, db: Session
) -> None:
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=20, name="Injected", manager=boss)
    person(db, "Eq", crew, email="=1+1@example.com")
    auth.sign_in(boss)
    rows = read_csv(client.get(f"/teams/{crew.id}/heatmap.csv").get_data(as_text=True))
    assert rows[1][1] == "'=1+1@example.com"
