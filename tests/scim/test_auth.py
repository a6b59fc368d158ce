"""Who may call /scim/v2: a live provisioning token only, refused in SCIM's error shape."""

from __future__ import annotations

from tests import factories
from tests.helpers import token_for
from tests.scim.conftest import USER, Scim, error_of
from tracker.clock import utcnow
from tracker.scim.models import ScimToken
from tracker.scim.services.tokens import create_scim_token, revoke_scim_token


def test_without_a_token_the_answer_is_401_in_scim_shape(client):
    response = Scim(client, None).get("/Users")
    assert "Authorization: Bearer" in error_of(response, 401)
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_unknown_or_malformed_token_is_401(client):
    for token in ("scim_not-a-token", "x" * 500):
        error_of(Scim(client, token).get("/Users"), 401)
    response = client.get("/scim/v2/Users", headers={"Authorization": "Basic abc"})
    error_of(response, 401)


def test_a_revoked_token_stops_at_once(client, db):
    token, secret = create_scim_token(db, "okta")
    scim = Scim(client, secret)
    assert scim.get("/Users").status_code == 200
    revoke_scim_token(db, token, utcnow())
    error_of(scim.get("/Users"), 401)


def test_an_api_token_is_not_a_scim_token_and_the_other_way_round(client, db, scim_token):
    admin = factories.engineer(db, access_role="admin")
    error_of(Scim(client, token_for(db, admin)).get("/Users"), 401)
    response = client.get("/api/v1/me", headers={"Authorization": f"Bearer {scim_token}"})
    assert response.status_code == 401


def test_a_use_is_recorded(scim, db):
    scim.get("/ServiceProviderConfig")
    (token,) = db.query(ScimToken).all()
    assert token.last_used_at is not None


def test_writes_need_no_csrf_token(scim, csrf_enabled):
    response = scim.post(
        "/Users", {"schemas": [USER], "userName": "csrf@example.com", "name": {"formatted": "C"}}
    )
    assert response.status_code == 201, response.get_data(as_text=True)


def test_answers_are_scim_json_and_unknown_paths_scim_404(scim):
    response = scim.get("/ServiceProviderConfig")
    assert response.mimetype == "application/scim+json"
    body = response.get_json(force=True)
    assert body["patch"] == {"supported": True}
    assert body["etag"] == {"supported": True}
    assert body["filter"]["supported"] is True
    error_of(scim.get("/Nope"), 404)
    error_of(scim.post("/ServiceProviderConfig", {}), 405)
    error_of(scim.post("/.search", {}), 501)


def test_discovery_publishes_what_the_tracker_keeps(scim):
    types = scim.get("/ResourceTypes").get_json(force=True)
    assert {t["endpoint"] for t in types["Resources"]} == {"/Users", "/Groups"}
    user = scim.get(f"/Schemas/{USER}").get_json(force=True)
    names = {a["name"]: a for a in user["attributes"]}
    assert set(names) == {"userName", "name", "displayName", "emails", "active"}
    assert names["userName"]["uniqueness"] == "server"
    assert names["emails"]["mutability"] == "readOnly"
    assert scim.get("/ResourceTypes/User").get_json(force=True)["schema"] == USER
    error_of(scim.get("/Schemas/urn:nope"), 404)
