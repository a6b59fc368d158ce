"""The readiness API's teams (tracker.api.teams): /api/v1/teams, a team's readiness and forecast."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, token_for
from tests.readiness.helpers import Org, org_with_tokens
from tracker.people.models import Team
from tracker.readiness.rules import FIRST_DAY, LAST_DAY

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def org(db: Session) -> Org:
    """The readiness scene, with an API token for each caller the tests name."""
    return org_with_tokens(db)


def readiness(api: Api, org: Org, query: str = "", who: str = "mona", team: Team | None = None):
    team = team or org.alpha
    return api.get(f"/api/v1/teams/{team.id}/readiness{query}", org.tokens[who])


# --- permissions ----------------------------------------------------------------------


TEAM_CALLS = ["/api/v1/teams/{id}/readiness", "/api/v1/teams/{id}/forecast"]


@pytest.mark.parametrize("url", TEAM_CALLS)
@pytest.mark.parametrize(
    ("who", "status"),
    [("mona", 200), ("admin", 200), ("otto", 403), ("ben", 403)],
)
def test_team_readiness_is_for_its_manager_and_admins(
    api: Api, org: Org, url: str, who: str, status: int
) -> None:
    response = api.get(url.format(id=org.alpha.id), org.tokens[who])
    assert response.status_code == status
    if status == 403:
        assert set(response.get_json()["errors"]) in ({"team"}, {"engineer"})
        assert "Ada" not in response.get_data(as_text=True)


@pytest.mark.parametrize("url", [*TEAM_CALLS, "/api/v1/teams"])
@pytest.mark.parametrize("who", ["none", "deactivated"])
def test_without_a_valid_token_the_api_answers_401(api: Api, org: Org, url: str, who: str) -> None:
    response = api.get(url.format(id=org.alpha.id), org.tokens[who])
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_browser_session_does_not_open_the_api(api: Api, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    assert api.get(f"/api/v1/teams/{org.alpha.id}/readiness").status_code == 401
    assert api.get("/api/v1/teams").status_code == 401


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", "/api/v1/teams"),
        ("GET", "/api/v1/teams/{id}/readiness"),
        ("GET", "/api/v1/teams/{id}/forecast"),
        ("GET", "/api/v1/teams/{missing}/readiness"),
        ("POST", "/api/v1/roi"),
    ],
)
def test_engineers_get_403_on_every_readiness_call(
    api: Api, org: Org, method: str, url: str
) -> None:
    """Engineers get 403 - Ben is a member of Alpha."""
    response = api.call(
        method, url.format(id=org.alpha.id, missing=org.bravo.id + 1000), org.tokens["ben"]
    )
    assert response.status_code == 403
    assert "errors" in response.get_json()


@pytest.mark.parametrize("url", TEAM_CALLS)
@pytest.mark.parametrize("who", ["mona", "admin"])
def test_an_unknown_team_is_404(api: Api, org: Org, url: str, who: str) -> None:
    response = api.get(url.format(id=org.bravo.id + 1000), org.tokens[who])
    assert response.status_code == 404
    assert "team" in response.get_json()["errors"]


@pytest.mark.parametrize(
    ("who", "names"),
    [("mona", ["Alpha"]), ("otto", ["Bravo"]), ("admin", ["Alpha", "Bravo"])],
)
def test_teams_lists_the_callers_teams_and_every_team_for_an_admin(
    api: Api, org: Org, who: str, names: list[str]
) -> None:
    response = api.get("/api/v1/teams", org.tokens[who])
    assert response.status_code == 200
    teams = response.get_json()["items"]
    assert [t["name"] for t in teams] == names
    alpha = {
        "id": org.alpha.id,
        "name": "Alpha",
        "gpus": 50,
        "manager": {"id": org.mona.id, "name": "Mona"},
    }
    if "Alpha" in names:
        assert teams[0] == alpha


def test_a_manager_without_teams_gets_an_empty_list(api: Api, db: Session, org: Org) -> None:
    idle = factories.engineer(db, name="Idle", access_role="manager")
    assert api.get("/api/v1/teams", token_for(db, idle)).get_json() == {"items": [], "next": None}


def test_teams_refuses_unknown_parameters(api: Api, org: Org) -> None:
    response = api.get("/api/v1/teams?all=1", org.tokens["mona"])
    assert response.status_code == 400
    assert "all" in response.get_json()["errors"]


# --- the readiness JSON ---------------------------------------------------------------


def test_readiness_json_shape(api: Api, org: Org) -> None:
    """`template`, `filled`, `total`, `percent`, `slots` (each with `role`,
    `min_level`, `max_level`, `engineer` or null) and `gaps` (each with `role` and
    `candidates`, each candidate with `engineer` and `lacks`)."""
    response = readiness(api, org)
    assert response.status_code == 200
    body = response.get_json()
    assert {"template", "filled", "total", "percent", "slots", "gaps"} <= set(body)
    assert body["template"] == "small"
    assert (body["filled"], body["total"], body["percent"]) == (2, 4, 50.0)
    assert body["gpus"] == 50
    assert body["on"] == "2026-11-29"
    assert body["team"]["id"] == org.alpha.id
    slots = [
        (s["role"], s["min_level"], s["max_level"], s["engineer"] and s["engineer"]["name"])
        for s in body["slots"]
    ]
    assert slots == [
        ("lead", 4, 4, None),
        ("operations", 2, 3, "Ben"),
        ("operations", 2, 3, None),
        ("network", 3, 3, "Ada"),
    ]
    assert body["slots"][1]["engineer"] == {"id": org.ben.id, "name": "Ben"}
    assert [(s["title"], s["title_es"]) for s in body["slots"][:2]] == [
        ("Infrastructure Lead", "Líder de Infraestructura"),
        ("Operations Engineer", "Ingeniero de Operaciones"),
    ]
    assert body["slots"][0]["engineer"] is None
    assert [g["role"] for g in body["gaps"]] == ["lead", "operations"]
    lead, operations = body["gaps"]
    assert lead["candidates"] == [
        {
            "engineer": {"id": org.cy.id, "name": "Cy"},
            "lacks": [
                "job role Infrastructure Lead",
                "level 4 (is 2)",
                "certification NVIDIA-PROFESSIONAL",
                "certification VENDOR-EXPERT",
            ],
        }
    ]
    assert operations["candidates"] == [
        {
            "engineer": {"id": org.cy.id, "name": "Cy"},
            "lacks": ["valid NCA-AIIO (it was valid through 2026-06-01)"],
        }
    ]
    assert (operations["min_level"], operations["max_level"]) == (2, 3)
    assert body["team_certifications"] == []


def test_readiness_gaps_without_anyone_left_say_hire(api: Api, org: Org) -> None:
    body = readiness(api, org, who="admin", team=org.bravo).get_json()
    assert body["filled"] == 1
    assert [(g["role"], g["candidates"], g["hire"]) for g in body["gaps"]] == [
        ("lead", [], True),
        ("operations", [], True),
        ("network", [], True),
    ]


def test_readiness_changes_the_day_after_an_expiry(api: Api, org: Org) -> None:
    """DOMAIN 3: valid on its expiry date, expired the day after (Ben's NCA-AIIO)."""
    on_expiry = readiness(api, org, "?on=2027-01-15").get_json()
    day_after = readiness(api, org, "?on=2027-01-16").get_json()
    assert (on_expiry["on"], on_expiry["filled"]) == ("2027-01-15", 2)
    assert (day_after["on"], day_after["filled"], day_after["percent"]) == ("2027-01-16", 1, 25.0)
    ops = [g for g in day_after["gaps"] if g["role"] == "operations"]
    assert len(ops) == 2
    lacks = {c["engineer"]["name"]: c["lacks"] for c in ops[0]["candidates"]}
    assert lacks["Ben"] == ["valid NCA-AIIO (it was valid through 2027-01-15)"]


@pytest.mark.parametrize(
    ("gpus", "template", "total"),
    [(0, "small", 4), (9, "small", 4), (99, "small", 4), (100, "medium", 10), (1000, "large", 22)],
)
def test_readiness_for_another_fleet(
    api: Api, org: Org, gpus: int, template: str, total: int
) -> None:
    body = readiness(api, org, f"?gpus={gpus}").get_json()
    assert (body["gpus"], body["template"], body["total"]) == (gpus, template, total)
    assert len(body["slots"]) == total
    assert body["filled"] + len(body["gaps"]) == total


def test_readiness_team_wide_certifications(api: Api, org: Org) -> None:
    body = readiness(api, org, "?gpus=500").get_json()
    assert body["team_certifications"] == [
        {"code": "CKA", "met": True, "holders": [{"id": org.ada.id, "name": "Ada"}]},
        {"code": "RHCE", "met": False, "holders": []},
        {"code": "VCP-DCV", "met": False, "holders": []},
    ]


def test_an_empty_query_value_means_the_default(api: Api, org: Org) -> None:
    body = readiness(api, org, "?gpus=&on=").get_json()
    assert (body["gpus"], body["on"]) == (50, "2026-11-29")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?gpus=-1", "gpus"),
        ("?gpus=abc", "gpus"),
        ("?gpus=1.5", "gpus"),
        ("?gpus=10000001", "gpus"),
        ("?gpus=99999999999999999999999", "gpus"),
        ("?on=not-a-date", "on"),
        ("?on=2027-02-30", "on"),
        ("?on=20270101", "on"),
        ("?on=2027-1-5", "on"),
        ("?fleet=10", "fleet"),
    ],
)
def test_readiness_bad_query_is_400(api: Api, org: Org, query: str, field: str) -> None:
    response = readiness(api, org, query)
    assert response.status_code == 400
    assert list(response.get_json()["errors"]) == [field]


@pytest.mark.parametrize("on", ["0001-01-01", "1969-12-31", "3000-01-01", "9999-12-31"])
def test_readiness_on_a_day_outside_the_web_forms_calendar_is_400(
    api: Api, org: Org, on: str
) -> None:
    response = readiness(api, org, f"?on={on}")
    assert response.status_code == 400
    assert response.get_json()["errors"] == {"on": "date must be from 1970-01-01 to 2999-12-31"}


@pytest.mark.parametrize("on", ["1970-01-01", "2999-12-31"])
def test_readiness_on_the_calendars_first_and_last_days(api: Api, org: Org, on: str) -> None:
    response = readiness(api, org, f"?on={on}")
    assert response.status_code == 200
    assert response.get_json()["on"] == on


def test_the_document_states_the_calendar_of_readiness_and_career(api: Api) -> None:
    paths = api.get("/api/v1/openapi.json", None).get_json()["paths"]
    for path in ("/api/v1/teams/{team_id}/readiness", "/api/v1/engineers/{engineer_id}/career"):
        (on,) = [p for p in paths[path]["get"]["parameters"] if p["name"] == "on"]
        assert on["schema"]["format"] == "date"
        assert on["schema"]["formatMinimum"] == FIRST_DAY.isoformat()
        assert on["schema"]["formatMaximum"] == LAST_DAY.isoformat()


def test_what_a_candidate_lacks_follows_the_requests_language(api: Api, org: Org) -> None:
    """The words follow Accept-Language, as the API's messages do; codes and keys stay."""
    url = f"/api/v1/teams/{org.alpha.id}/readiness"
    spanish = api.get(url, org.tokens["mona"], headers={"Accept-Language": "es"}).get_json()
    english = api.get(url, org.tokens["mona"], headers={"Accept-Language": "en"}).get_json()
    lead, operations = spanish["gaps"]
    assert lead["candidates"][0]["lacks"] == [
        "rol Líder de Infraestructura",
        "nivel 4 (tiene 2)",
        "certificación NVIDIA-PROFESSIONAL",
        "certificación VENDOR-EXPERT",
    ]
    assert operations["candidates"][0]["lacks"] == [
        "NCA-AIIO vigente (era válida hasta el 1 jun 2026 inclusive)"
    ]
    assert english["gaps"][1]["candidates"][0]["lacks"] == [
        "valid NCA-AIIO (it was valid through 2026-06-01)"
    ]
    # Only the words differ: every code, key and number is the same in both.
    for gap in spanish["gaps"] + english["gaps"]:
        for candidate in gap["candidates"]:
            candidate["lacks"] = len(candidate["lacks"])
    assert spanish == english


# --- the forecast ---------------------------------------------------------------------


def forecast(api: Api, org: Org, query: str = "", who: str = "mona"):
    return api.get(f"/api/v1/teams/{org.alpha.id}/forecast{query}", org.tokens[who])


def test_forecast_has_12_monthly_points(api: Api, org: Org) -> None:
    """A list of points, each with `date`, `filled`, `total` and `percent`;
    Ben's NCA-AIIO lapses on 2027-01-15, so February drops."""
    response = forecast(api, org)
    assert response.status_code == 200
    body = response.get_json()
    assert body["gpus"] == 50
    assert body["team"]["id"] == org.alpha.id
    points = body["points"]
    assert len(points) == 12
    assert all(set(p) >= {"date", "filled", "total", "percent"} for p in points)
    assert [p["date"] for p in points] == ["2026-12-01"] + [
        f"2027-{m:02d}-01" for m in range(1, 12)
    ]
    assert [p["filled"] for p in points] == [2, 2] + [1] * 10
    assert {p["total"] for p in points} == {4}
    assert points[0]["percent"] == 50.0
    assert points[2]["percent"] == 25.0


def test_forecast_for_another_fleet_and_length(api: Api, org: Org) -> None:
    body = forecast(api, org, "?gpus=1000&months=3").get_json()
    assert body["gpus"] == 1000
    assert [(p["date"], p["total"]) for p in body["points"]] == [
        ("2026-12-01", 22),
        ("2027-01-01", 22),
        ("2027-02-01", 22),
    ]
    assert len(forecast(api, org, "?months=60").get_json()["points"]) == 60
    assert len(forecast(api, org, "?months=1").get_json()["points"]) == 1


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?months=0", "months"),
        ("?months=61", "months"),
        ("?months=-1", "months"),
        ("?months=abc", "months"),
        ("?months=1.5", "months"),
        ("?gpus=-1", "gpus"),
        ("?gpus=abc", "gpus"),
        ("?on=2027-01-01", "on"),
    ],
)
def test_forecast_bad_query_is_400(api: Api, org: Org, query: str, field: str) -> None:
    response = forecast(api, org, query)
    assert response.status_code == 400
    assert list(response.get_json()["errors"]) == [field]
