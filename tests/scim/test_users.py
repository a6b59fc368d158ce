"""SCIM Users: a person's e-mail is their userName, their name name.formatted; writes go through
the people services; meta and ETags; PATCH with and without a path (RFC 7644 §3.5.2)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select

from tests import factories
from tests.scim.conftest import USER, error_of, user_body
from tracker.people.models import Engineer, LevelChange
from tracker.people.services.reads import find_engineer
from tracker.scim.models import ScimUser


def test_create_adds_a_person_with_meta_location_and_etag(scim, db):
    response = scim.post("/Users", user_body("Ada@Example.com", externalId="00u1"))
    assert response.status_code == 201
    assert response.mimetype == "application/scim+json"
    body = response.get_json(force=True)
    person = find_engineer(db, "ada@example.com")
    assert person is not None and person.name == "Ada Lovelace" and person.active
    assert person.access_role == "engineer" and person.password_hash is None
    # The first level is recorded, as create_person does for everyone.
    assert db.scalars(select(LevelChange).where(LevelChange.engineer_id == person.id)).one()
    assert body["id"] == str(person.id)
    assert body["userName"] == "ada@example.com"
    assert body["displayName"] == "Ada Lovelace"
    assert body["emails"] == [{"value": "ada@example.com", "type": "work", "primary": True}]
    assert body["externalId"] == "00u1"
    meta = body["meta"]
    assert meta["resourceType"] == "User"
    assert meta["location"] == f"http://localhost/scim/v2/Users/{person.id}"
    assert response.headers["Location"] == meta["location"]
    assert response.headers["ETag"] == meta["version"] and meta["version"].startswith('W/"')
    assert meta["created"] and meta["lastModified"]


def test_user_name_is_unique_regardless_of_case(scim):
    scim.create_user("grace@example.com")
    detail = error_of(scim.post("/Users", user_body("GRACE@example.com")), 409, "uniqueness")
    assert "grace@example.com" in detail


def test_a_user_name_that_is_no_email_address_is_refused_and_nothing_stored(scim, db):
    before = db.query(Engineer).count()
    detail = error_of(scim.post("/Users", user_body("bjensen")), 400, "invalidValue")
    assert detail.startswith("userName: not a valid email address")
    assert db.query(Engineer).count() == before


def test_text_no_database_can_hold_is_refused_and_nothing_stored(scim, db):
    made = scim.create_user("held@example.com")
    before = db.query(Engineer).count()
    for text in ("Ada\x00Lovelace", "Ada \ud800"):
        for method, path in (("POST", "/Users"), ("PUT", f"/Users/{made['id']}")):
            body = user_body("nul@example.com", name=text)
            detail = error_of(scim.call(method, path, body), 400, "invalidValue")
            assert detail == "text must not contain NUL characters or unpaired surrogates"
    assert db.query(Engineer).count() == before
    assert scim.get(f"/Users/{made['id']}").get_json(force=True)["userName"] == "held@example.com"


def test_missing_user_name_and_bad_json_are_refused(scim):
    error_of(
        scim.post("/Users", {"schemas": [USER], "name": {"formatted": "X"}}), 400, "invalidValue"
    )
    response = scim.client.post(
        "/scim/v2/Users",
        data="{not json",
        headers={"Authorization": f"Bearer {scim.token}", "Content-Type": "application/scim+json"},
    )
    error_of(response, 400, "invalidSyntax")
    # Nested deeper than the parser follows: bad JSON too, not a server error.
    response = scim.client.post(
        "/scim/v2/Users",
        data="[" * 100_000,
        headers={"Authorization": f"Bearer {scim.token}", "Content-Type": "application/scim+json"},
    )
    error_of(response, 400, "invalidSyntax")


def test_name_comes_from_display_name_or_given_and_family_names(scim):
    body = {"schemas": [USER], "userName": "okta@example.com", "displayName": "Okta Person"}
    assert scim.post("/Users", body).get_json(force=True)["name"]["formatted"] == "Okta Person"
    body = {
        "schemas": [USER],
        "userName": "entra@example.com",
        "name": {"givenName": "Barbara", "familyName": "Jensen"},
        # What the tracker does not keep is accepted and ignored.
        "phoneNumbers": [{"value": "555", "type": "work"}],
        "emails": [{"value": "other@example.com", "primary": True}],
    }
    created = scim.post("/Users", body).get_json(force=True)
    assert created["name"]["formatted"] == "Barbara Jensen"
    assert created["emails"][0]["value"] == "entra@example.com"
    assert "phoneNumbers" not in created


def test_a_user_created_inactive_cannot_sign_in(scim, db):
    scim.create_user("late@example.com", active=False)
    assert find_engineer(db, "late@example.com").active is False


def test_get_answers_the_user_and_404_for_unknown_ids(scim, db):
    person = factories.engineer(db)
    response = scim.get(f"/Users/{person.id}")
    assert response.status_code == 200
    assert response.get_json(force=True)["userName"] == person.email
    for unknown in ("999999", "abc", "1" * 20):
        error_of(scim.get(f"/Users/{unknown}"), 404)


def test_if_none_match_answers_304_and_if_match_guards_writes(scim):
    created = scim.create_user("etag@example.com")
    path, version = f"/Users/{created['id']}", created["meta"]["version"]
    assert scim.get(path, **{"If-None-Match": version}).status_code == 304
    stale = scim.patch(
        path, {"op": "replace", "path": "externalId", "value": "x"}, **{"If-Match": 'W/"old"'}
    )
    error_of(stale, 412)
    fresh = scim.patch(
        path, {"op": "replace", "path": "externalId", "value": "x"}, **{"If-Match": version}
    )
    assert fresh.status_code == 200
    assert fresh.headers["ETag"] != version
    assert scim.get(path, **{"If-None-Match": version}).status_code == 200


def test_put_replaces_email_name_and_external_id(scim, db):
    created = scim.create_user("old@example.com", externalId="a")
    response = scim.put(f"/Users/{created['id']}", user_body("New@Example.com", "Ada King"))
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json(force=True)
    assert body["userName"] == "new@example.com"
    assert body["name"]["formatted"] == "Ada King"
    assert "externalId" not in body
    person = db.get(Engineer, int(created["id"]))
    assert (person.email, person.name) == ("new@example.com", "Ada King")
    # Left out, active keeps what it was: a PUT that forgets it reactivates no one.
    assert person.active


def test_put_to_another_persons_email_is_a_uniqueness_error(scim):
    scim.create_user("one@example.com")
    two = scim.create_user("two@example.com")
    error_of(scim.put(f"/Users/{two['id']}", user_body("ONE@example.com")), 409, "uniqueness")


def test_patch_replace_active_with_a_path(scim, db):
    created = scim.create_user("p1@example.com")
    response = scim.patch(
        f"/Users/{created['id']}", {"op": "replace", "path": "active", "value": False}
    )
    assert response.status_code == 200
    assert response.get_json(force=True)["active"] is False
    assert db.get(Engineer, int(created["id"])).active is False


def test_patch_replace_active_without_a_path(scim, db):
    created = scim.create_user("p2@example.com")
    response = scim.patch(f"/Users/{created['id']}", {"op": "replace", "value": {"active": False}})
    assert response.status_code == 200
    assert db.get(Engineer, int(created["id"])).active is False
    scim.patch(f"/Users/{created['id']}", {"op": "replace", "value": {"active": True}})
    assert db.get(Engineer, int(created["id"])).active is True


def test_patch_as_entra_sends_it(scim, db):
    """Capitalised ops, a boolean as a string, the displayName it sends on every change."""
    created = scim.create_user("entra2@example.com")
    response = scim.patch(
        f"/Users/{created['id']}",
        {"op": "Replace", "path": "active", "value": "False"},
        {"op": "Replace", "path": "displayName", "value": "Ignored"},
        {"op": "Add", "path": 'emails[type eq "work"].value', "value": "entra2@example.com"},
        {"op": "Replace", "path": "name.formatted", "value": "Renamed Person"},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    person = db.get(Engineer, int(created["id"]))
    assert person.active is False and person.name == "Renamed Person"


def test_patch_add_and_remove_external_id(scim, db):
    created = scim.create_user("p3@example.com")
    path = f"/Users/{created['id']}"
    assert (
        scim.patch(path, {"op": "add", "path": "externalId", "value": "ext-1"}).status_code == 200
    )
    assert db.get(ScimUser, int(created["id"])).external_id == "ext-1"
    response = scim.patch(path, {"op": "remove", "path": "externalId"})
    assert "externalId" not in response.get_json(force=True)
    assert db.get(ScimUser, int(created["id"])).external_id is None


def test_patch_user_name_case_insensitive_attribute_names(scim, db):
    created = scim.create_user("p4@example.com")
    path = f"/Users/{created['id']}"
    response = scim.patch(
        path, {"op": "replace", "path": "USERNAME", "value": "P4-new@example.com"}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    assert db.get(Engineer, int(created["id"])).email == "p4-new@example.com"


def test_patch_refusals_name_the_rule(scim):
    created = scim.create_user("p5@example.com")
    path = f"/Users/{created['id']}"
    error_of(scim.patch(path, {"op": "remove", "path": "userName"}), 400, "mutability")
    error_of(
        scim.patch(path, {"op": "replace", "path": "userName", "value": "nope"}),
        400,
        "invalidValue",
    )
    error_of(
        scim.patch(path, {"op": "frobnicate", "path": "active", "value": True}), 400, "invalidValue"
    )
    too_long = "x" * 300
    detail = error_of(
        scim.patch(path, {"op": "add", "path": "externalId", "value": too_long}),
        400,
        "invalidValue",
    )
    assert "externalId" in detail


def test_people_the_tracker_had_before_are_users(scim, db):
    admin = factories.engineer(db, access_role="admin", name="Existing Admin")
    found = scim.get(f'/Users?filter=userName eq "{admin.email}"').get_json(force=True)
    assert found["totalResults"] == 1
    assert found["Resources"][0]["displayName"] == "Existing Admin"


def test_delete_deactivates_hides_and_keeps_the_record(scim, db):
    created = scim.create_user("gone@example.com")
    path = f"/Users/{created['id']}"
    response = scim.delete(path)
    assert response.status_code == 204
    assert (response.data, response.headers.get("Content-Type")) == (b"", None)
    person = db.get(Engineer, int(created["id"]))
    assert person is not None and person.active is False
    error_of(scim.get(path), 404)
    error_of(scim.patch(path, {"op": "replace", "path": "active", "value": True}), 404)
    listed = scim.get('/Users?filter=userName eq "gone@example.com"').get_json(force=True)
    assert listed["totalResults"] == 0


def test_creating_a_deleted_person_again_brings_them_back(scim, db):
    created = scim.create_user("rehire@example.com", "First Name")
    scim.delete(f"/Users/{created['id']}")
    again = scim.post("/Users", user_body("rehire@example.com", "Second Name"))
    assert again.status_code == 201
    body = again.get_json(force=True)
    assert body["id"] == created["id"] and body["active"] is True
    assert db.get(Engineer, int(created["id"])).name == "Second Name"


def test_last_modified_moves_with_a_change(scim, db, monkeypatch):
    created = scim.create_user("moved@example.com")
    person = db.get(Engineer, int(created["id"]))
    person.updated_at = person.updated_at + dt.timedelta(hours=1)
    db.flush()
    again = scim.get(f"/Users/{created['id']}").get_json(force=True)
    assert again["meta"]["lastModified"] > created["meta"]["lastModified"]
    assert again["meta"]["created"] == created["meta"]["created"]
