"""The careers API: career, skills, team coverage, bonuses; permissions and bad input.

Same conventions as the rest of /api/v1: bearer tokens, {"errors": {...}},
400 stores nothing, 403 for another person's records, 404 for an unknown id.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.careers.conftest import People
from tests.helpers import Api, count, in_each_language
from tracker.careers.models import Evidence, SkillAssessment
from tracker.careers.rules import EARLIEST_DATE
from tracker.careers.services.bonuses import set_bonus
from tracker.careers.services.evidence import record_evidence
from tracker.careers.services.skills import assess, find_speciality
from tracker.people.models import LevelChange
from tracker.progress.services.certifications import record_attempt

D = dt.date
TODAY = factories.TODAY  # 2026-11-29


# --- career -----------------------------------------------------------------------


def test_career_answers_the_ladder(api: Api, db: Session, people: People):
    p = people
    who = factories.engineer(
        db, name="Nia", manager=p.manager, level=2, hired_on=D(2026, 1, 15), experience_months=3
    )
    factories.certification(db, who, "NCP-AII", D(2026, 3, 1), D(2028, 3, 1))
    factories.certification(db, who, "NVIDIA-NETWORKING", D(2025, 1, 10), D(2026, 1, 10))
    token = p.tokens["manager"]

    body = api.get(f"/api/v1/engineers/{who.id}/career?on=2026-11-29", token).get_json()
    assert body["level"] == 2
    assert body["level_name"] == "Operational"
    # The catalog's words keep their English key; the Spanish comes beside it.
    assert (body["level_name_es"], body["next_level_name_es"]) == ("Operacional", "Profesional")
    assert body["experience_months"] == 13
    assert body["next_level"] == 3
    assert body["meets_next_level"] is False
    assert body["lacks"] == ["a valid NVIDIA-NETWORKING (it was valid through 2026-01-10)"]
    assert body["next_level_rule"] == {
        "min_experience_months": 12,
        "requires": ["NCP-AII", "NVIDIA-NETWORKING"],
        "requires_evidence": False,
    }
    assert body["on"] == "2026-11-29"

    earlier = api.get(f"/api/v1/engineers/{who.id}/career?on=2026-09-30", token).get_json()
    assert earlier["experience_months"] == 11
    assert earlier["lacks"] == [
        "12 months of experience (has 11)",
        "a valid NVIDIA-NETWORKING (it was valid through 2026-01-10)",
    ]
    factories.certification(db, who, "NVIDIA-NETWORKING", D(2026, 6, 1))
    default = api.get(f"/api/v1/engineers/{who.id}/career", token).get_json()
    assert default["on"] == "2026-11-29"
    assert default["meets_next_level"] is True
    assert default["lacks"] == []


def test_what_a_career_lacks_follows_the_requests_language(api: Api, db: Session, people: People):
    """The words follow Accept-Language, as the API's messages do; codes and keys stay."""
    who = factories.engineer(
        db,
        name="Nia",
        manager=people.manager,
        level=2,
        hired_on=D(2026, 1, 15),
        experience_months=3,
    )
    factories.certification(db, who, "NCP-AII", D(2026, 3, 1), D(2028, 3, 1))
    factories.certification(db, who, "NVIDIA-NETWORKING", D(2025, 1, 10), D(2026, 1, 10))
    url, token = f"/api/v1/engineers/{who.id}/career?on=2026-09-30", people.tokens["manager"]
    spanish, english, unasked = in_each_language(api, url, token)
    assert spanish["lacks"] == [
        "12 meses de experiencia (tiene 11)",
        "una NVIDIA-NETWORKING vigente (era válida hasta el 10 ene 2026 inclusive)",
    ]
    assert unasked == english  # English stays the default
    assert english["lacks"] == [
        "12 months of experience (has 11)",
        "a valid NVIDIA-NETWORKING (it was valid through 2026-01-10)",
    ]
    # Only the words differ: every code, key, name and number is the same in both.
    assert {**spanish, "lacks": None} == {**english, "lacks": None}


def test_career_of_an_architect_and_the_rotation(api: Api, db: Session, people: People):
    p = people
    record_evidence(db, p.junior, "deployment", "1,024 GPUs", D(2025, 1, 1), TODAY)
    body = api.get(f"/api/v1/engineers/{p.junior.id}/career", p.tokens["junior"]).get_json()
    assert body["evidence"][0]["kind"] == "deployment"
    assert body["across_domains"] is False
    assert [r["role"] for r in body["job_roles_history"]] == ["operations"]

    top = factories.engineer(db, level=5, manager=p.manager)
    body = api.get(f"/api/v1/engineers/{top.id}/career", p.tokens["manager"]).get_json()
    assert (body["next_level"], body["meets_next_level"], body["lacks"]) == (None, False, [])


@pytest.mark.parametrize(
    ("caller", "status"),
    [
        ("junior", 200),
        ("manager", 200),
        ("admin", 200),
        ("senior", 403),
        ("other_manager", 403),
        ("outsider", 403),
    ],
)
def test_career_permissions(api: Api, people: People, caller, status):
    response = api.get(f"/api/v1/engineers/{people.junior.id}/career", people.tokens[caller])
    assert response.status_code == status
    if status == 403:
        assert "engineer" in response.get_json()["errors"]


def test_career_without_a_token_unknown_id_and_bad_query(api: Api, people: People):
    url = f"/api/v1/engineers/{people.junior.id}/career"
    assert api.get(url).status_code == 401
    assert api.get("/api/v1/engineers/999999/career", people.tokens["admin"]).status_code == 404
    for query, field in (("on=2026-13-01", "on"), ("on=tomorrow", "on"), ("gpus=3", "gpus")):
        response = api.get(f"{url}?{query}", people.tokens["admin"])
        assert response.status_code == 400, query
        assert field in response.get_json()["errors"]


@pytest.mark.parametrize(
    ("on", "status"),
    [("1969-12-31", 400), ("1970-01-01", 200), ("2999-12-31", 200), ("3000-01-01", 400)],
)
def test_career_on_a_day_is_within_the_readiness_calendar(
    api: Api, people: People, on: str, status: int
):
    url = f"/api/v1/engineers/{people.junior.id}/career?on={on}"
    response = api.get(url, people.tokens["admin"])
    assert response.status_code == status
    if status == 400:
        assert response.get_json()["errors"] == {"on": "date must be from 1970-01-01 to 2999-12-31"}


# --- level --------------------------------------------------------------------------------


def test_a_manager_sets_a_reports_level_with_history(api: Api, db: Session, people: People):
    p = people
    response = api.put(f"/api/v1/engineers/{p.junior.id}/level", p.tokens["manager"], {"level": 2})
    assert response.status_code == 200
    assert response.get_json()["level"] == 2
    change = db.scalars(
        select(LevelChange).where(
            LevelChange.engineer_id == p.junior.id, LevelChange.from_level.is_not(None)
        )
    ).one()
    assert (change.from_level, change.to_level) == (1, 2)
    assert (change.changed_on, change.changed_by_id) == (TODAY, p.manager.id)


@pytest.mark.parametrize(
    ("caller", "body", "status"),
    [
        ("junior", {"level": 2}, 403),
        ("other_manager", {"level": 2}, 403),
        ("senior", {"level": 2}, 403),
        ("manager", {"level": 6}, 400),
        ("manager", {"level": 0}, 400),
        ("manager", {"level": "2"}, 400),
        ("manager", {"level": 2.5}, 400),
        ("manager", {}, 400),
        ("manager", {"level": 2, "why": "x"}, 400),
    ],
)
def test_setting_a_level_refusals_store_nothing(api, db, people: People, caller, body, status):
    url = f"/api/v1/engineers/{people.junior.id}/level"
    before = count(db, LevelChange)
    assert api.put(url, people.tokens[caller], body).status_code == status
    assert count(db, LevelChange) == before
    assert people.junior.level == 1


def test_a_level_written_2_0_is_level_2_and_its_range_is_documented(
    api: Api, people: People
) -> None:
    url = f"/api/v1/engineers/{people.junior.id}/level"
    response = api.put(url, people.tokens["manager"], {"level": 2.0})
    assert response.status_code == 200
    assert response.get_json()["level"] == 2
    schema = api.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["LevelBody"]
    assert schema["properties"]["level"] | {"title": "Level"} == {
        "type": "integer", "minimum": 1, "maximum": 5, "title": "Level",
    }  # fmt: skip


def test_ones_own_level_is_403_even_for_an_admin(api: Api, db: Session, people: People):
    before = count(db, LevelChange)
    for who in ("manager", "admin"):
        url = f"/api/v1/engineers/{getattr(people, who).id}/level"
        response = api.put(url, people.tokens[who], {"level": 4})
        assert response.status_code == 403
        assert response.get_json() == {
            "errors": {
                "engineer": "you cannot set your own level; your manager or an admin sets it"
            }
        }
    assert count(db, LevelChange) == before


# --- evidence ----------------------------------------------------------------------------


def test_recording_evidence(api: Api, db: Session, people: People):
    url = f"/api/v1/engineers/{people.senior.id}/evidence"
    body = {"kind": "publication", "title": "NCCL at scale", "date": "2025-05-01"}
    response = api.post(url, people.tokens["senior"], body)
    assert response.status_code == 201
    assert response.get_json()["title"] == "NCCL at scale"
    assert api.post(url, people.tokens["manager"], body).status_code == 201
    assert api.post(url, people.tokens["junior"], body).status_code == 403
    assert count(db, Evidence) == 2


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"kind": "talk"}, "kind"),
        ({"kind": None}, "kind"),
        ({"title": ""}, "title"),
        ({"title": 5}, "title"),
        ({"date": "2026-11-30"}, "date"),
        ({"date": "2025-02-30"}, "date"),
        ({"note": "n" * 2001}, "note"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_evidence_answers_400_and_stores_nothing(api, db, people: People, change, field):
    body = {"kind": "patent", "title": "A patent", "date": "2025-05-01", **change}
    body = {k: v for k, v in body.items() if v is not None}
    response = api.post(
        f"/api/v1/engineers/{people.senior.id}/evidence", people.tokens["senior"], body
    )
    assert response.status_code == 400
    assert field in response.get_json()["errors"]
    assert count(db, Evidence) == 0


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


# --- bonuses -------------------------------------------------------------------------------


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
