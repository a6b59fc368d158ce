"""The weekly digest's setting over the API: read on /me and /engineers/ID, set with PATCH."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.helpers import Api, count, fresh, sign_in
from tracker.audit.models import AccountEvent
from tracker.people.models import Engineer
from tracker.people.services.persons import set_weekly_digest
from tracker.people.services.reads import find_engineer


def _changes(db: Session, person: Engineer) -> list[tuple[str | None, int | None, dict | None]]:
    rows = db.scalars(
        select(AccountEvent)
        .where(AccountEvent.engineer_id == person.id, AccountEvent.kind == "updated")
        .order_by(AccountEvent.id)
    )
    return [(row.method, row.actor_id, row.detail) for row in rows]


OFF = {"weekly_digest": {"from": True, "to": False}}
ON = {"weekly_digest": {"from": False, "to": True}}


def test_the_caller_and_their_account_carry_the_setting(api: Api, db: Session, scene: Scene):
    token = scene.tokens["self"]
    assert api.get("/api/v1/me", token).get_json()["weekly_digest"] is True
    scene.target.weekly_digest = False
    db.flush()
    assert api.get("/api/v1/me", token).get_json()["weekly_digest"] is False
    url = f"/api/v1/engineers/{scene.target.id}"
    assert api.get(url, scene.tokens["manager"]).get_json()["weekly_digest"] is False


def test_the_person_turns_it_off_and_on_as_the_profile_does(api: Api, db: Session, scene: Scene):
    url = f"/api/v1/engineers/{scene.target.id}"
    off = api.call("PATCH", url, scene.tokens["self"], {"weekly_digest": False})
    assert off.status_code == 200, off.get_json()
    assert off.get_json()["weekly_digest"] is False
    assert fresh(db, scene.target).weekly_digest is False
    # Sent again, it changes nothing and notes nothing.
    assert api.call("PATCH", url, scene.tokens["self"], {"weekly_digest": False}).status_code == 200
    on = api.call("PATCH", url, scene.tokens["self"], {"weekly_digest": True})
    assert on.get_json()["weekly_digest"] is True
    # The trail names no actor for what a person did to their own account.
    assert _changes(db, scene.target) == [("api", None, OFF), ("api", None, ON)]


def test_the_trail_notes_it_as_the_profile_does(
    api: Api, client: FlaskClient, db: Session, scene: Scene
):
    """The API's change and the page's are the same event, told apart by their channel."""
    url = f"/api/v1/engineers/{scene.target.id}"
    api.call("PATCH", url, scene.tokens["self"], {"weekly_digest": False})
    sign_in(client, scene.target)
    assert client.post("/profile/digest", data={"weekly_digest": "y"}).status_code == 302
    assert _changes(db, scene.target) == [("api", None, OFF), ("web", None, ON)]


def test_an_admin_turns_anyones_off_and_is_named(api: Api, db: Session, scene: Scene):
    url = f"/api/v1/engineers/{scene.target.id}"
    both = {"weekly_digest": False, "locale": "es"}
    done = api.call("PATCH", url, scene.tokens["admin"], both)
    assert done.status_code == 200
    assert (done.get_json()["weekly_digest"], done.get_json()["locale"]) == (False, "es")
    assert _changes(db, scene.target) == [("api", scene.admin.id, OFF)]


@pytest.mark.parametrize("role", ["manager", "other engineer", "other manager"])
def test_nobody_else_changes_it(api: Api, db: Session, scene: Scene, role: str):
    url = f"/api/v1/engineers/{scene.target.id}"
    refused = api.call("PATCH", url, scene.tokens[role], {"weekly_digest": False})
    assert refused.status_code == 403
    assert set(refused.get_json()["errors"]) == {"engineer"}
    assert fresh(db, scene.target).weekly_digest is True
    assert _changes(db, scene.target) == []


@pytest.mark.parametrize("value", ["no", 0, 1, "false", [False]])
def test_anything_but_true_or_false_is_refused(api: Api, db: Session, scene: Scene, value):
    url = f"/api/v1/engineers/{scene.target.id}"
    refused = api.call("PATCH", url, scene.tokens["self"], {"weekly_digest": value})
    assert refused.status_code == 400
    assert refused.get_json() == {"errors": {"weekly_digest": "must be true or false"}}
    assert fresh(db, scene.target).weekly_digest is True
    assert _changes(db, scene.target) == []


def test_the_document_declares_the_setting(api: Api):
    schemas = api.get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    for model in ("EngineerOut", "MeOut"):
        field = schemas[model]["properties"]["weekly_digest"]
        assert field["type"] == "boolean" and "digest" in field["description"]
        assert "weekly_digest" in schemas[model]["required"]
    change = schemas["EngineerChangeBody"]["properties"]["weekly_digest"]
    assert change["anyOf"] == [{"type": "boolean"}, {"type": "null"}]
    added = schemas["EngineerBody"]["properties"]["weekly_digest"]
    # Null is the same as left out: on.
    assert added["anyOf"] == [{"type": "boolean"}, {"type": "null"}] and added["default"] is True
    assert "weekly_digest" not in schemas["EngineerBody"].get("required", [])


# --- a person added with their choice --------------------------------------------------

NORA = {"email": "nora@example.com", "name": "Nora New"}


def test_an_admin_adds_a_person_with_the_digest_off_and_is_named(
    api: Api, db: Session, scene: Scene
):
    body = {**NORA, "weekly_digest": False}
    response = api.post("/api/v1/engineers", scene.tokens["admin"], body)
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["weekly_digest"] is False
    person = find_engineer(db, NORA["email"])
    assert person.weekly_digest is False
    # Turned off as the import turns it off: the account trail says so.
    assert _changes(db, person) == [("api", scene.admin.id, OFF)]


@pytest.mark.parametrize(
    "digest", [{}, {"weekly_digest": None}, {"weekly_digest": True}], ids=["left out", "null", "on"]
)
def test_a_person_added_gets_the_digest_by_default(api: Api, db: Session, scene: Scene, digest):
    response = api.post("/api/v1/engineers", scene.tokens["admin"], {**NORA, **digest})
    assert response.status_code == 201 and response.get_json()["weekly_digest"] is True
    person = find_engineer(db, NORA["email"])
    assert person.weekly_digest is True
    assert _changes(db, person) == []


@pytest.mark.parametrize("value", ["no", 0, "false", [False]])
def test_a_person_is_not_added_with_anything_but_true_or_false(
    api: Api, db: Session, scene: Scene, value
):
    before = count(db, Engineer)
    refused = api.post("/api/v1/engineers", scene.tokens["admin"], {**NORA, "weekly_digest": value})
    assert refused.status_code == 400
    assert refused.get_json() == {"errors": {"weekly_digest": "must be true or false"}}
    assert count(db, Engineer) == before


# --- who is named ---------------------------------------------------------------------


def test_a_persons_own_change_names_no_actor_on_every_channel(db: Session):
    """The rule is the service's: whoever calls it, a person's own change is theirs alone."""
    person = factories.engineer(db)
    admin = factories.engineer(db, access_role="admin")
    for on, via in ((False, "web"), (True, "api"), (False, "unsubscribe"), (True, "import")):
        assert set_weekly_digest(db, person, on, person, via=via)
    set_weekly_digest(db, person, False, admin, via="api")
    assert [(method, actor) for method, actor, _ in _changes(db, person)] == [
        ("web", None),
        ("api", None),
        ("unsubscribe", None),
        ("import", None),
        ("api", admin.id),
    ]
