"""The skills API: a proficiency self-assessed and confirmed, its refusals, a team's coverage."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests.careers.conftest import People
from tests.helpers import Api, count
from tracker.careers.models import SkillAssessment
from tracker.careers.services.skills import assess, find_speciality

# --- skills -------------------------------------------------------------------------------


def test_self_assessed_then_confirmed_through_the_api(api: Api, db: Session, people: People):
    p = people
    url = f"/api/v1/engineers/{p.junior.id}/skills/nccl"
    own = api.put(url, p.tokens["junior"], {"level": 2})
    assert own.status_code == 200
    body = own.get_json()
    assert (body["level"], body["confirmed"], body["speciality"]["code"]) == (2, False, "nccl")
    assert body["assessed_by"]["id"] == p.junior.id
    assert (body["speciality"]["name"], body["speciality"]["name_es"]) == (
        "NCCL collectives",
        "Colectivos NCCL",
    )

    confirmed = api.put(url, p.tokens["manager"], {"level": 3}).get_json()
    assert (confirmed["level"], confirmed["confirmed"]) == (3, True)
    assert confirmed["assessed_by"]["id"] == p.manager.id
    by_admin = api.put(
        f"/api/v1/engineers/{p.junior.id}/skills/MIG", p.tokens["admin"], {"level": 0}
    )
    assert by_admin.get_json()["confirmed"] is True

    listed = api.get(f"/api/v1/engineers/{p.junior.id}/skills", p.tokens["junior"]).get_json()
    assert [(s["speciality"]["code"], s["level"], s["confirmed"]) for s in listed["skills"]] == [
        ("nccl", 3, True),
        ("mig", 0, True),
    ]
    assert [(h["speciality"]["code"], h["level"]) for h in listed["history"]] == [
        ("mig", 0),
        ("nccl", 3),
        ("nccl", 2),
    ]


@pytest.mark.parametrize(
    ("caller", "status"),
    [("senior", 403), ("other_manager", 403), ("outsider", 403), ("manager", 200)],
)
def test_skill_write_permissions(api: Api, db: Session, people: People, caller, status):
    url = f"/api/v1/engineers/{people.junior.id}/skills/nccl"
    assert api.put(url, people.tokens[caller], {"level": 3}).status_code == status
    assert count(db, SkillAssessment) == (1 if status == 200 else 0)


def test_skill_write_without_a_token_or_for_nobody(api: Api, db: Session, people: People):
    assert (
        api.put(f"/api/v1/engineers/{people.junior.id}/skills/nccl", None, {"level": 3}).status_code
        == 401
    )
    response = api.put("/api/v1/engineers/999999/skills/nccl", people.tokens["admin"], {"level": 3})
    assert response.status_code == 404
    assert count(db, SkillAssessment) == 0


@pytest.mark.parametrize(
    ("code", "body", "field"),
    [
        ("nccl", {"level": 5}, "level"),
        ("nccl", {"level": -1}, "level"),
        ("nccl", {"level": 2.5}, "level"),
        ("nccl", {"level": "3"}, "level"),
        ("nccl", {"level": True}, "level"),
        ("nccl", {"level": None}, "level"),
        ("nccl", {}, "level"),
        ("nccl", {"level": 3, "confirmed": True}, "confirmed"),
        ("nccl", [3], "request"),
    ],
)
def test_bad_skill_input_answers_400_and_stores_nothing(api, db, people: People, code, body, field):
    url = f"/api/v1/engineers/{people.junior.id}/skills/{code}"
    for caller in ("junior", "manager"):
        response = api.put(url, people.tokens[caller], body)
        assert response.status_code == 400, (caller, body)
        assert field in response.get_json()["errors"]
    assert count(db, SkillAssessment) == 0


@pytest.mark.parametrize("code", ["cobol", "nccl" + "x" * 40, "n" * 41])
def test_an_unknown_speciality_is_404_and_stores_nothing(api, db, people: People, code):
    url = f"/api/v1/engineers/{people.junior.id}/skills/{code}"
    response = api.put(url, people.tokens["manager"], {"level": 3})
    assert response.status_code == 404
    assert "nccl" in response.get_json()["errors"]["speciality"]  # the known ones
    assert count(db, SkillAssessment) == 0


def test_a_skill_body_that_is_not_json_is_415(api: Api, db: Session, people: People):
    response = api.call(
        "PUT",
        f"/api/v1/engineers/{people.junior.id}/skills/nccl",
        people.tokens["junior"],
        data="level=3",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 415
    assert count(db, SkillAssessment) == 0


# --- team coverage ---------------------------------------------------------------------


def test_team_skills_answers_the_coverage(api: Api, db: Session, people: People):
    p = people
    for who, code, level in (
        (p.junior, "nccl", 3),
        (p.senior, "nccl", 4),
        (p.senior, "mig", 4),
        (p.junior, "kubernetes", 2),
    ):
        assess(db, who, find_speciality(db, code), level, who)
    response = api.get(f"/api/v1/teams/{p.team.id}/skills", p.tokens["manager"])
    assert response.status_code == 200
    body = response.get_json()
    assert body["single_points_of_failure"] == ["mig"]
    assert "kubernetes" in body["uncovered"] and "nccl" not in body["uncovered"]
    assert [person["name"] for person in body["people"]] == ["Jules Junior", "Sasha Senior"]
    mig = next(s for s in body["specialities"] if s["code"] == "mig")
    assert mig["single_point_of_failure"] is True
    assert (mig["name"], mig["name_es"]) == ("MIG partitioning", "Particionamiento MIG")
    assert [h["name"] for h in mig["holders"]] == ["Sasha Senior"]
    assert [lv["level"] for lv in mig["levels"]] == [None, 4]


@pytest.mark.parametrize(
    ("caller", "status"),
    [("manager", 200), ("admin", 200), ("other_manager", 403), ("junior", 403), ("senior", 403)],
)
def test_team_skills_permissions(api: Api, people: People, caller, status):
    response = api.get(f"/api/v1/teams/{people.team.id}/skills", people.tokens[caller])
    assert response.status_code == status


def test_an_engineers_refusal_names_a_teams_skills(api: Api, people: People):
    response = api.get(f"/api/v1/teams/{people.team.id}/skills", people.tokens["junior"])
    assert response.get_json() == {
        "errors": {"engineer": "a team's skills are for managers and admins"}
    }


def test_team_skills_unknown_team_and_parameters(api: Api, people: People):
    assert api.get("/api/v1/teams/999999/skills", people.tokens["admin"]).status_code == 404
    response = api.get(
        f"/api/v1/teams/{people.team.id}/skills?on=2026-01-01", people.tokens["admin"]
    )
    assert response.status_code == 400
