"""/api/v1/webhooks: admins register, list, remove endpoints and rotate their secrets."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests.api.conftest import Scene
from tests.helpers import Api, count
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.rules import EVENTS

URL = "https://hooks.example.com/in"
BODY = {"url": URL, "events": ["hours.logged", "certification.earned"], "format": "slack"}


def test_an_admin_registers_lists_rotates_and_removes(api: Api, db: Session, scene: Scene):
    token = scene.tokens["admin"]
    created = api.post("/api/v1/webhooks", token, BODY)
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    assert body["secret"].startswith("whsec_")
    assert body["events"] == ["certification.earned", "hours.logged"]
    assert (body["url"], body["format"], body["active"]) == (URL, "slack", True)
    assert created.headers["Location"].endswith("/api/v1/webhooks")

    listed = api.get("/api/v1/webhooks", token)
    assert listed.status_code == 200
    (item,) = listed.get_json()["items"]
    assert item["id"] == body["id"] and "secret" not in item

    rotated = api.post(f"/api/v1/webhooks/{body['id']}/rotate-secret", token)
    assert rotated.status_code == 200
    assert rotated.get_json()["secret"] not in (body["secret"], None)
    assert rotated.get_json()["previous_secret_until"] is not None

    deleted = api.delete(f"/api/v1/webhooks/{body['id']}", token)
    assert deleted.status_code == 204
    assert (deleted.data, deleted.headers.get("Content-Type")) == (b"", None)
    assert api.get("/api/v1/webhooks", token).get_json() == {"items": [], "next": None}
    assert api.delete(f"/api/v1/webhooks/{body['id']}", token).status_code == 404


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"url": "file:///etc/passwd"}, "url", "url must be an http:// or https:// address"),
        ({"url": "gopher://x"}, "url", "url must be an http:// or https:// address"),
        ({"events": []}, "events", "events must be one or more of"),
        ({"events": ["hours.deleted"]}, "events", "(not hours.deleted)"),
        ({"events": "hours.logged"}, "events", ""),
        ({"format": "email"}, "format", "format must be one of generic, slack, teams"),
        ({"url": None}, "url", ""),
        ({"secret": "mine"}, "secret", ""),
    ],
)
def test_bad_input_is_refused_with_400_naming_the_field(
    api: Api, db: Session, scene: Scene, change, field, words
):
    response = api.post("/api/v1/webhooks", scene.tokens["admin"], {**BODY, **change})
    assert response.status_code == 400
    errors = response.get_json()["errors"]
    assert field in errors and words in errors[field]
    assert count(db, WebhookEndpoint) == 0


def test_events_name_each_event_once_as_the_form_ticks_them(api: Api, db: Session, scene: Scene):
    events = [*EVENTS, "hours.logged"]
    response = api.post("/api/v1/webhooks", scene.tokens["admin"], {**BODY, "events": events})
    assert response.status_code == 400
    assert response.get_json()["errors"] == {
        "events": "events must name at most 7 events, each once"
    }
    assert count(db, WebhookEndpoint) == 0
    schema = api.get("/api/v1/openapi.json").get_json()["components"]["schemas"]["WebhookBody"]
    assert schema["properties"]["events"]["maxItems"] == len(EVENTS)
    every = api.post("/api/v1/webhooks", scene.tokens["admin"], {**BODY, "events": list(EVENTS)})
    assert every.status_code == 201


@pytest.mark.parametrize("role", ["self", "manager"])
def test_only_admins_manage_webhooks(api: Api, db: Session, scene: Scene, role):
    token = scene.tokens[role]
    assert api.get("/api/v1/webhooks", token).status_code == 403
    assert api.post("/api/v1/webhooks", token, BODY).status_code == 403
    assert api.delete("/api/v1/webhooks/1", token).status_code == 403
    assert count(db, WebhookEndpoint) == 0


def test_the_operations_are_in_the_openapi_document(api: Api, scene: Scene):
    doc = api.get("/api/v1/openapi.json").get_json()
    assert set(doc["paths"]["/api/v1/webhooks"]) == {"get", "post"}
    assert "delete" in doc["paths"]["/api/v1/webhooks/{endpoint_id}"]
    assert "post" in doc["paths"]["/api/v1/webhooks/{endpoint_id}/rotate-secret"]
    listed = doc["paths"]["/api/v1/webhooks"]["get"]["responses"]["200"]
    assert listed["content"]["application/json"]["schema"]["$ref"].endswith("/WebhooksOut")
    assert "items" in doc["components"]["schemas"]["WebhooksOut"]["properties"]
