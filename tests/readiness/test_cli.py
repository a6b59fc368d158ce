"""`tracker readiness TEAM --gpus N [--on YYYY-MM-DD] [--json]`.

Commands read the one clock for "today"; the tests pass --on, or pin it in app.config.
"""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient, FlaskCliRunner
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, token_for
from tests.readiness.helpers import FAR, D, person
from tracker.people.models import Team

TODAY = factories.TODAY  # 2026-11-29


pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def alpha(db: Session) -> Team:
    """Ada fills network, Ben (NCA-AIIO to 2027-01-15) an operations seat; Cy's lapsed."""
    mona = factories.engineer(db, name="Mona", access_role="manager")
    crew = factories.team(db, gpus=50, name="Alpha", manager=mona)
    person(
        db,
        "Ada",
        crew,
        roles=("network",),
        level=3,
        certs={"NVIDIA-NETWORKING": None, "CKA": FAR},
    )
    person(db, "Ben", crew, certs={"NCA-AIIO": D(2027, 1, 15)})
    person(db, "Cy", crew, certs={"NCA-AIIO": D(2026, 6, 1)})
    return crew


def run(runner: FlaskCliRunner, *args: str):
    return runner.invoke(args=["readiness", *args])


def test_json_has_the_apis_keys(runner: FlaskCliRunner, alpha: Team) -> None:
    result = run(runner, "Alpha", "--gpus", "9", "--on", "2026-11-29", "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert {"template", "filled", "total", "percent", "slots", "gaps"} <= set(body)
    assert (body["template"], body["gpus"], body["on"]) == ("small", 9, "2026-11-29")
    assert (body["filled"], body["total"], body["percent"]) == (2, 4, 50.0)
    for slot in body["slots"]:
        assert {"role", "min_level", "max_level", "engineer"} <= set(slot)
    for gap in body["gaps"]:
        assert {"role", "candidates"} <= set(gap)
        for candidate in gap["candidates"]:
            assert set(candidate) == {"engineer", "lacks"}
    assert [s["engineer"] and s["engineer"]["name"] for s in body["slots"]] == [
        None,
        "Ben",
        None,
        "Ada",
    ]


@pytest.mark.parametrize(
    "query", [("9", "2026-11-29"), ("500", "2027-01-16"), ("1000", "2027-06-01")]
)
def test_json_is_the_same_as_the_apis(
    runner: FlaskCliRunner, client: FlaskClient, db: Session, alpha: Team, query: tuple[str, str]
) -> None:
    """The command prints "the same JSON" as the readiness call."""
    gpus, on = query
    result = run(runner, "Alpha", "--gpus", gpus, "--on", on, "--json")
    assert result.exit_code == 0, result.output
    admin = factories.engineer(db, name="Admin", access_role="admin")
    response = Api(client).get(
        f"/api/v1/teams/{alpha.id}/readiness?gpus={gpus}&on={on}", token_for(db, admin)
    )
    assert response.status_code == 200
    assert json.loads(result.output) == response.get_json()


def test_defaults_are_the_teams_fleet_and_today(runner: FlaskCliRunner, alpha: Team) -> None:
    result = run(runner, "Alpha", "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert (body["gpus"], body["on"], body["template"]) == (50, "2026-11-29", "small")


def test_the_team_name_is_case_insensitive(runner: FlaskCliRunner, alpha: Team) -> None:
    result = run(runner, "  aLPHA ", "--on", "2026-11-29", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["team"]["id"] == alpha.id


def test_readiness_changes_the_day_after_an_expiry(runner: FlaskCliRunner, alpha: Team) -> None:
    on_expiry = json.loads(run(runner, "Alpha", "--on", "2027-01-15", "--json").output)
    day_after = json.loads(run(runner, "Alpha", "--on", "2027-01-16", "--json").output)
    assert (on_expiry["filled"], day_after["filled"]) == (2, 1)


def test_text_output_lists_the_seats(runner: FlaskCliRunner, alpha: Team) -> None:
    result = run(runner, "Alpha", "--gpus", "9", "--on", "2026-11-29")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Alpha: 9 GPUs -> Small (10-100 GPUs); 2/4 seats (50.0 %) on 2026-11-29"
    seats = [line.split() for line in lines[1:] if not line.startswith("      ")]
    assert seats == [
        ["Infrastructure", "Lead", "OPEN"],
        ["Operations", "Engineer", "Ben"],
        ["Operations", "Engineer", "OPEN"],
        ["Network", "Specialist", "Ada"],
    ]
    assert (
        "      nearest Cy: lacks job role Infrastructure Lead, level 4 (is 2), "
        "certification NVIDIA-PROFESSIONAL, certification VENDOR-EXPERT"
    ) in lines
    assert "      nearest Cy: lacks valid NCA-AIIO (it was valid through 2026-06-01)" in lines
    assert "hire" not in result.output


def test_text_output_says_hire_and_names_team_wide_certifications(
    runner: FlaskCliRunner, db: Session
) -> None:
    crew = factories.team(db, gpus=500, name="Bravo")
    person(db, "Kube", crew, certs={"NCA-AIIO": FAR, "CKA": FAR})
    result = run(runner, "Bravo", "--on", "2026-11-29")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("Bravo: 500 GPUs -> Medium (100-1,000 GPUs); 1/10 seats (10.0 %)")
    assert lines.count("      hire") == 9
    assert "  team-wide CKA: met" in lines
    assert "  team-wide RHCE: missing" in lines
    assert "  team-wide VCP-DCV: missing" in lines


def test_an_unknown_team_exits_non_zero(runner: FlaskCliRunner, alpha: Team) -> None:
    result = run(runner, "Nope", "--gpus", "9", "--json")
    assert result.exit_code != 0
    assert "no team named 'Nope'" in result.output
    assert "{" not in result.output


@pytest.mark.parametrize(
    "args",
    [
        ("--gpus", "-1"),
        ("--gpus", "abc"),
        ("--on", "not-a-date"),
        ("--on", "2027-02-30"),
        ("--on", "29/11/2026"),
        ("--gpus", "10000001"),
        ("--on", "1969-12-31"),
        ("--on", "3000-01-01"),
    ],
)
def test_bad_options_exit_with_a_usage_error(
    runner: FlaskCliRunner, alpha: Team, args: tuple[str, str]
) -> None:
    result = run(runner, "Alpha", *args, "--json")
    assert result.exit_code == 2
    assert "Invalid value" in result.output


def test_the_calendar_and_fleet_are_the_pages_and_the_apis(
    runner: FlaskCliRunner, alpha: Team
) -> None:
    result = run(runner, "Alpha", "--on", "3000-01-01")
    assert "date must be from 1970-01-01 to 2999-12-31" in result.output
    for on in ("1970-01-01", "2999-12-31"):
        assert run(runner, "Alpha", "--gpus", "10000000", "--on", on).exit_code == 0


def test_a_team_name_is_required(runner: FlaskCliRunner) -> None:
    result = run(runner)
    assert result.exit_code == 2
    assert "TEAM_NAME" in result.output


def test_what_a_candidate_lacks_is_in_the_organisations_language(
    app, runner: FlaskCliRunner, alpha: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No command chooses a language: the words are in TRACKER_DEFAULT_LOCALE's."""
    monkeypatch.setitem(app.config, "DEFAULT_LOCALE", "es")
    lines = run(runner, "Alpha", "--gpus", "9", "--on", "2026-11-29").output.splitlines()
    assert (
        "      nearest Cy: lacks rol Líder de Infraestructura, nivel 4 (tiene 2), "
        "certificación NVIDIA-PROFESSIONAL, certificación VENDOR-EXPERT"
    ) in lines
    assert (
        "      nearest Cy: lacks NCA-AIIO vigente (era válida hasta el 1 jun 2026 inclusive)"
        in (lines)
    )
    body = json.loads(run(runner, "Alpha", "--gpus", "9", "--on", "2026-11-29", "--json").output)
    assert body["template"] == "small"
    assert body["gaps"][1]["candidates"][0]["lacks"] == [
        "NCA-AIIO vigente (era válida hasta el 1 jun 2026 inclusive)"
    ]
