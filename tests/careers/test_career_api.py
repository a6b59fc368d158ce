"""The careers API on a person: the career and what it lacks, the level set, evidence."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.careers.conftest import People
from tests.helpers import Api, count, in_each_language
from tracker.careers.models import Evidence
from tracker.careers.services.evidence import record_evidence
from tracker.people.models import LevelChange

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
