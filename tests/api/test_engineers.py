"""/engineers: an account read, a person added by an admin, a person's language set."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import NOW, Scene
from tests.helpers import SPANISH, Api, count, fresh
from tracker.people.models import Engineer, LevelChange
from tracker.people.rules import LOCALE_RULE, MAX_JOB_ROLES
from tracker.people.services.persons import set_active
from tracker.people.services.reads import find_engineer
from tracker.privacy.services.erasure import erase_person

NEW = {"email": "Nora@Example.com", "name": "Nora New"}
SPANISH_RULE = "el idioma debe ser uno de en, es (o vacío para lo que elija el navegador)"


# --- the answer carries the setting -----------------------------------------------------


def test_an_engineers_account_carries_their_language(api: Api, db: Session, scene: Scene) -> None:
    response = api.get(f"/api/v1/engineers/{scene.target.id}", scene.tokens["self"])
    assert response.status_code == 200
    assert response.get_json()["locale"] == ""
    scene.target.locale = "es"
    db.flush()
    assert api.get("/api/v1/me", scene.tokens["self"]).get_json()["locale"] == "es"
    account = api.get(f"/api/v1/engineers/{scene.target.id}", scene.tokens["manager"]).get_json()
    assert (account["name"], account["locale"]) == ("Target", "es")


@pytest.mark.parametrize(
    ("role", "status"), [("other engineer", 403), ("other manager", 403), ("admin", 200)]
)
def test_an_account_is_read_as_the_records_are(
    api: Api, scene: Scene, role: str, status: int
) -> None:
    response = api.get(f"/api/v1/engineers/{scene.target.id}", scene.tokens[role])
    assert response.status_code == status


def test_an_unknown_engineer_is_404(api: Api, scene: Scene) -> None:
    response = api.get("/api/v1/engineers/999999", scene.tokens["admin"])
    assert response.status_code == 404
    assert "engineer" in response.get_json()["errors"]


def test_the_document_declares_the_language_and_its_values(api: Api) -> None:
    schemas = api.get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    for model in ("EngineerOut", "MeOut", "EngineerBody", "EngineerChangeBody"):
        locale = schemas[model]["properties"]["locale"]
        # A body's field that may be left out may be null too.
        (values,) = [b for b in locale.get("anyOf", [locale]) if b.get("type") != "null"]
        assert values["enum"] == ["", "en", "es"], model
        assert "browser" in locale["description"]
    # Each setting left out of a change stays as it is.
    assert "required" not in schemas["EngineerChangeBody"]
    assert "locale" in schemas["EngineerOut"]["required"]


# --- adding a person ----------------------------------------------------------------------


def test_an_admin_adds_a_person_with_a_language(api: Api, db: Session, scene: Scene) -> None:
    body = {**NEW, "locale": "es", "access_role": "manager", "level": 2, "job_roles": ["network"]}
    response = api.post("/api/v1/engineers", scene.tokens["admin"], body)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert response.headers["Location"] == f"/api/v1/engineers/{created['id']}"
    assert (created["email"], created["locale"], created["access_role"]) == (
        "nora@example.com",
        "es",
        "manager",
    )
    person = find_engineer(db, "nora@example.com")
    assert (person.locale, person.level, person.job_role_codes) == ("es", 2, {"network"})
    assert person.password_hash is None
    # The one write: the first level is in the history, recorded by the admin.
    change = db.query(LevelChange).filter_by(engineer_id=person.id).one()
    assert (change.to_level, change.changed_by_id) == (2, scene.admin.id)


def test_left_out_the_language_is_the_browsers_choice(api: Api, db: Session, scene: Scene) -> None:
    response = api.post("/api/v1/engineers", scene.tokens["admin"], NEW)
    assert response.status_code == 201
    assert response.get_json()["locale"] == ""
    assert find_engineer(db, NEW["email"]).locale == ""


@pytest.mark.parametrize("locale", ["fr", "ES", " es", 1, True, ["es"]])
def test_an_unknown_language_is_refused_naming_the_field_and_rule(
    api: Api, db: Session, scene: Scene, locale: object
) -> None:
    before = count(db, Engineer)
    response = api.post("/api/v1/engineers", scene.tokens["admin"], {**NEW, "locale": locale})
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"locale": LOCALE_RULE}}
    assert count(db, Engineer) == before


def test_the_refusal_speaks_the_requests_language(api: Api, db: Session, scene: Scene) -> None:
    response = api.post(
        "/api/v1/engineers",
        scene.tokens["admin"],
        {**NEW, "locale": "fr", "access_role": "boss"},
        headers=SPANISH,
    )
    assert response.status_code == 400
    errors = response.get_json()["errors"]
    assert errors["locale"] == SPANISH_RULE
    assert errors["access_role"] == "el rol debe ser uno de engineer, manager, admin"


def test_the_services_refusals_name_the_apis_fields(api: Api, db: Session, scene: Scene) -> None:
    body = {**NEW, "email": scene.target.email, "team_id": 999999, "manager_id": scene.target.id}
    response = api.post("/api/v1/engineers", scene.tokens["admin"], body)
    assert response.status_code == 400
    errors = response.get_json()["errors"]
    assert set(errors) == {"email", "team_id", "manager_id"}
    assert "already exists" in errors["email"]
    assert "Target is not a manager or admin" in errors["manager_id"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("level", 99, "level must be a whole number from 1 to 5"),
        ("level", 0, "level must be a whole number from 1 to 5"),
        ("experience_months", -5, "experience must be a whole number of months from 0 to 600"),
        ("experience_months", 601, "experience must be a whole number of months from 0 to 600"),
        ("password", "short", "password must be at least 10 characters"),
    ],
)
def test_a_value_outside_the_documented_range_is_refused_with_its_rule(
    api: Api, db: Session, scene: Scene, field: str, value: object, message: str
) -> None:
    before = count(db, Engineer)
    response = api.post("/api/v1/engineers", scene.tokens["admin"], {**NEW, field: value})
    assert response.status_code == 400
    assert response.get_json() == {"errors": {field: message}}
    assert count(db, Engineer) == before


@pytest.mark.parametrize(
    ("hired_on", "message"),
    [
        ("0001-01-01", "hire date must not be before 1970-01-01"),
        ("1969-12-31", "hire date must not be before 1970-01-01"),
        ("2999-12-31", "hire date must not be in the future"),
    ],
)
def test_a_hire_date_outside_its_range_is_refused(
    api: Api, db: Session, scene: Scene, hired_on: str, message: str
) -> None:
    before = count(db, Engineer)
    body = {**NEW, "hired_on": hired_on}
    response = api.post("/api/v1/engineers", scene.tokens["admin"], body)
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"hired_on": message}}
    assert count(db, Engineer) == before


def test_the_earliest_hire_date_is_taken(api: Api, db: Session, scene: Scene) -> None:
    body = {**NEW, "hired_on": "1970-01-01"}
    response = api.post("/api/v1/engineers", scene.tokens["admin"], body)
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["hired_on"] == "1970-01-01"


@pytest.mark.parametrize("role", ["self", "manager", "other manager"])
def test_only_an_admin_adds_people(api: Api, db: Session, scene: Scene, role: str) -> None:
    before = count(db, Engineer)
    response = api.post("/api/v1/engineers", scene.tokens[role], NEW)
    assert response.status_code == 403
    assert "engineer" in response.get_json()["errors"]
    assert count(db, Engineer) == before


# --- changing the language ----------------------------------------------------------------


@pytest.mark.parametrize(("role", "status"), [("self", 200), ("admin", 200)])
def test_the_person_or_an_admin_sets_the_language(
    api: Api, db: Session, scene: Scene, role: str, status: int
) -> None:
    url = f"/api/v1/engineers/{scene.target.id}"
    response = api.call("PATCH", url, scene.tokens[role], {"locale": "es"})
    assert response.status_code == status
    assert response.get_json()["locale"] == "es"
    assert fresh(db, scene.target).locale == "es"
    back = api.call("PATCH", url, scene.tokens[role], {"locale": ""})
    assert back.get_json()["locale"] == "" and fresh(db, scene.target).locale == ""


@pytest.mark.parametrize(
    ("role", "status"), [("manager", 403), ("other engineer", 403), ("other manager", 403)]
)
def test_nobody_else_sets_a_persons_language(
    api: Api, db: Session, scene: Scene, role: str, status: int
) -> None:
    url = f"/api/v1/engineers/{scene.target.id}"
    response = api.call("PATCH", url, scene.tokens[role], {"locale": "es"})
    assert response.status_code == status
    assert fresh(db, scene.target).locale == ""


@pytest.mark.parametrize(
    "body", [{"locale": "de"}, {"locale": 7}, {"locale": "de", "weekly_digest": False}]
)
def test_a_bad_language_is_refused(api: Api, db: Session, scene: Scene, body: dict) -> None:
    url = f"/api/v1/engineers/{scene.target.id}"
    response = api.call("PATCH", url, scene.tokens["self"], body)
    assert response.status_code == 400
    assert set(response.get_json()["errors"]) == {"locale"}
    assert (fresh(db, scene.target).locale, fresh(db, scene.target).weekly_digest) == ("", True)


@pytest.mark.parametrize("body", [{"locale": None}, {}])
def test_a_setting_left_out_stays(api: Api, db: Session, scene: Scene, body: dict) -> None:
    scene.target.locale = "es"
    db.flush()
    url = f"/api/v1/engineers/{scene.target.id}"
    response = api.call("PATCH", url, scene.tokens["self"], body)
    assert response.status_code == 200
    assert (response.get_json()["locale"], response.get_json()["weekly_digest"]) == ("es", True)
    assert fresh(db, scene.target).locale == "es"


def test_a_language_set_through_the_api_chooses_the_pages_language(
    api: Api, client, auth, db: Session, scene: Scene
) -> None:
    person = factories.engineer(db, name="Hablante")
    token = scene.tokens["admin"]
    api.call("PATCH", f"/api/v1/engineers/{person.id}", token, {"locale": "es"})
    auth.sign_in(person)
    assert '<html lang="es">' in client.get("/profile").get_data(as_text=True)


def test_job_roles_name_at_most_the_rules_count_each_held_once(
    api: Api, db: Session, scene: Scene
) -> None:
    schema = api.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["EngineerBody"]
    (listed,) = [b for b in schema["properties"]["job_roles"]["anyOf"] if b["type"] == "array"]
    assert listed["maxItems"] == MAX_JOB_ROLES
    before = count(db, Engineer)
    too_many = {**NEW, "job_roles": ["network"] * (MAX_JOB_ROLES + 1)}
    response = api.post("/api/v1/engineers", scene.tokens["admin"], too_many)
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"job_roles": "job roles must name at most 20 codes"}}
    assert count(db, Engineer) == before
    twice = {**NEW, "job_roles": ["network", "operations", "network"]}
    response = api.post("/api/v1/engineers", scene.tokens["admin"], twice)
    assert response.status_code == 201, response.get_json()
    assert sorted(response.get_json()["job_roles"]) == ["network", "operations"]
    assert find_engineer(db, NEW["email"]).job_role_codes == {"network", "operations"}


# --- an erased person ---------------------------------------------------------------------


def test_the_api_brings_no_erased_person_back(api: Api, db: Session, scene: Scene) -> None:
    set_active(db, scene.target, False)
    erase_person(db, scene.target, scene.admin, NOW, via="web")
    url = f"/api/v1/engineers/{scene.target.id}"
    # The API reactivates no one: `active` is not a key it takes.
    response = api.call("PATCH", url, scene.tokens["admin"], {"active": True})
    assert response.status_code == 400 and set(response.get_json()["errors"]) == {"active"}
    shown = api.call("GET", url, scene.tokens["admin"]).get_json()
    assert shown["name"] == f"Former member #{scene.target.id}"
    assert not fresh(db, scene.target).active
