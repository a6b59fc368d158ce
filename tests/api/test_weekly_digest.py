"""The weekly digest's setting over the API: read on /me and /engineers/ID, set with PATCH."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests.api.conftest import Scene
from tests.helpers import Api, fresh, sign_in
from tracker.audit.models import AccountEvent
from tracker.people.models import Engineer


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
