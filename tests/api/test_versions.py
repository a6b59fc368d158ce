"""Versions of the API's records: an ETag on each answer, If-Match guards writes (412), 304."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests.api.conftest import Scene, row_counts
from tests.helpers import Api, count
from tracker.careers.models import SkillAssessment
from tracker.people.models import Engineer
from tracker.progress.models import HourLog
from tracker.webhooks.models import WebhookEndpoint

STALE = 'W/"0123456789abcdef0123"'
CHANGE = {"course": "FDL", "date": "2026-11-02", "hours": 2.5, "note": "lab"}


def _url(scene: Scene) -> str:
    assert scene.entry is not None
    return f"/api/v1/hours/{scene.entry.id}"


def test_a_read_answers_its_version_and_304_while_it_holds(api: Api, scene_with_entry: Scene):
    token, url = scene_with_entry.tokens["self"], _url(scene_with_entry)
    read = api.get(url, token)
    tag = read.headers["ETag"]
    assert tag.startswith('W/"') and tag.endswith('"')
    assert api.get(url, token).headers["ETag"] == tag  # a hash of what it says: the same again

    unchanged = api.get(url, token, headers={"If-None-Match": f'"other", {tag}'})
    assert unchanged.status_code == 304
    assert (unchanged.data, unchanged.headers["ETag"]) == (b"", tag)
    assert api.get(url, token, headers={"If-None-Match": STALE}).status_code == 200


def test_a_stale_if_match_is_refused_with_412_and_nothing_is_written(
    api: Api, db: Session, scene_with_entry: Scene
):
    token, url = scene_with_entry.tokens["self"], _url(scene_with_entry)
    before = api.get(url, token).get_json()
    counts = row_counts(db)
    for method in ("PUT", "DELETE"):
        refused = api.call(method, url, token, CHANGE, headers={"If-Match": STALE})
        assert refused.status_code == 412
        assert refused.get_json() == {
            "errors": {
                "If-Match": "the record changed since that version was read: nothing was"
                " written; read it again (GET) and send its new ETag"
            }
        }
    db.expire_all()
    assert api.get(url, token).get_json() == before
    assert row_counts(db) == counts  # no audit event either


def test_the_current_if_match_writes_and_answers_the_new_version(
    api: Api, db: Session, scene_with_entry: Scene
):
    token, url = scene_with_entry.tokens["self"], _url(scene_with_entry)
    tag = api.get(url, token).headers["ETag"]
    changed = api.put(url, token, CHANGE, headers={"If-Match": tag})
    assert changed.status_code == 200, changed.get_json()
    assert changed.get_json()["hours"] == 2.5
    assert changed.headers["ETag"] not in (tag, None)
    assert api.get(url, token).headers["ETag"] == changed.headers["ETag"]
    # The old version no longer deletes; the new one does, and `*` names any version.
    assert api.delete(url, token, headers={"If-Match": tag}).status_code == 412
    assert api.delete(url, token, headers={"If-Match": "*"}).status_code == 204
    assert db.get(HourLog, scene_with_entry.entry.id) is None  # type: ignore[union-attr]


def test_of_two_clients_the_one_that_read_an_older_version_is_refused(
    api: Api, db: Session, scene_with_entry: Scene
):
    """The engineer and an admin read the entry; the admin saves first; the engineer's PUT fails."""
    url = _url(scene_with_entry)
    mine, theirs = scene_with_entry.tokens["self"], scene_with_entry.tokens["admin"]
    my_tag = api.get(url, mine).headers["ETag"]
    their_tag = api.get(url, theirs).headers["ETag"]
    assert my_tag == their_tag
    assert api.put(url, theirs, CHANGE, headers={"If-Match": their_tag}).status_code == 200
    late = api.put(url, mine, {**CHANGE, "hours": 4}, headers={"If-Match": my_tag})
    assert late.status_code == 412
    db.expire_all()
    assert api.get(url, mine).get_json()["hours"] == 2.5
    # Read again, the change goes through.
    fresh = api.get(url, mine).headers["ETag"]
    again = api.put(url, mine, {**CHANGE, "hours": 4}, headers={"If-Match": fresh})
    assert again.status_code == 200


def test_without_if_match_a_write_is_unconditional(api: Api, scene_with_entry: Scene):
    token, url = scene_with_entry.tokens["self"], _url(scene_with_entry)
    assert api.put(url, token, CHANGE).status_code == 200
    # An If-Match left empty names no version: as without one.
    assert api.put(url, token, CHANGE, headers={"If-Match": " "}).status_code == 200


def test_an_engineers_settings_are_changed_only_at_the_version_read(
    api: Api, db: Session, scene: Scene
):
    token, url = scene.tokens["admin"], f"/api/v1/engineers/{scene.target.id}"
    tag = api.get(url, token).headers["ETag"]
    stale = api.call("PATCH", url, token, {"locale": "es"}, headers={"If-Match": STALE})
    assert stale.status_code == 412
    db.expire_all()
    assert db.get(Engineer, scene.target.id).locale != "es"  # type: ignore[union-attr]
    done = api.call("PATCH", url, token, {"locale": "es"}, headers={"If-Match": tag})
    assert done.status_code == 200
    assert done.headers["ETag"] == api.get(url, token).headers["ETag"] != tag
    assert api.get(url, token, headers={"If-None-Match": tag}).status_code == 200


def test_a_level_is_set_against_the_career_read(api: Api, db: Session, scene: Scene):
    career = f"/api/v1/engineers/{scene.target.id}/career"
    token = scene.tokens["manager"]
    tag = api.get(career, token).headers["ETag"]
    level = f"/api/v1/engineers/{scene.target.id}/level"
    assert api.put(level, token, {"level": 2}, headers={"If-Match": STALE}).status_code == 412
    db.expire_all()
    assert db.get(Engineer, scene.target.id).level == 1  # type: ignore[union-attr]
    done = api.put(level, token, {"level": 2}, headers={"If-Match": tag})
    assert done.status_code == 200
    assert done.headers["ETag"] == api.get(career, token).headers["ETag"]


def test_a_careers_version_is_of_what_it_says_in_the_language_read(
    api: Api, db: Session, scene: Scene
):
    """What the engineer lacks is worded in the request's language, and so hashed."""
    career = f"/api/v1/engineers/{scene.target.id}/career"
    token, spanish = scene.tokens["manager"], {"Accept-Language": "es"}
    tag = api.get(career, token, headers=spanish).headers["ETag"]
    assert tag != api.get(career, token).headers["ETag"]
    level = f"/api/v1/engineers/{scene.target.id}/level"
    # The Spanish version is not the English answer's: sent in English, it is refused.
    assert api.put(level, token, {"level": 2}, headers={"If-Match": tag}).status_code == 412
    db.expire_all()
    assert db.get(Engineer, scene.target.id).level == 1  # type: ignore[union-attr]
    done = api.put(level, token, {"level": 2}, headers={"If-Match": tag, **spanish})
    assert done.status_code == 200
    assert done.get_json()["lacks"][0].startswith("una NCP-AII vigente")
    assert done.headers["ETag"] == api.get(career, token, headers=spanish).headers["ETag"]


def test_a_webhook_is_read_one_at_a_time_and_removed_at_the_version_read(
    api: Api, db: Session, scene: Scene
):
    token = scene.tokens["admin"]
    body = {"url": "https://hooks.example.com/in", "events": ["hours.logged"], "format": "slack"}
    made = api.post("/api/v1/webhooks", token, body).get_json()
    url = f"/api/v1/webhooks/{made['id']}"
    read = api.get(url, token)
    assert read.get_json()["url"] == body["url"] and "secret" not in read.get_json()
    # Rotating the secret changes the endpoint: a removal sent with the old version fails.
    api.post(f"{url}/rotate-secret", token)
    assert api.delete(url, token, headers={"If-Match": read.headers["ETag"]}).status_code == 412
    assert db.get(WebhookEndpoint, made["id"]) is not None
    fresh = api.get(url, token).headers["ETag"]
    assert api.delete(url, token, headers={"If-Match": fresh}).status_code == 204
    assert api.get(url, scene.tokens["manager"]).status_code == 403


def test_a_proficiency_is_set_against_the_skills_read(api: Api, db: Session, scene: Scene):
    skills = f"/api/v1/engineers/{scene.target.id}/skills"
    token = scene.tokens["manager"]
    read = api.get(skills, token)
    tag = read.headers["ETag"]
    assert api.get(skills, token, headers={"If-None-Match": tag}).status_code == 304
    put = f"{skills}/nccl"
    stale = api.put(put, token, {"level": 3}, headers={"If-Match": STALE})
    assert stale.status_code == 412
    assert set(stale.get_json()["errors"]) == {"If-Match"}
    assert count(db, SkillAssessment) == 0
    done = api.put(put, token, {"level": 3}, headers={"If-Match": tag})
    assert done.status_code == 200, done.get_json()
    assert done.get_json()["level"] == 3
    # The answer's version is the skills' new one: the next write sends it.
    assert done.headers["ETag"] == api.get(skills, token).headers["ETag"] != tag
    assert api.put(put, token, {"level": 4}, headers={"If-Match": tag}).status_code == 412
    again = api.put(put, token, {"level": 4}, headers={"If-Match": done.headers["ETag"]})
    assert again.status_code == 200
    # Without If-Match (or with `*`), as every write: unconditional.
    assert api.put(put, token, {"level": 2}).status_code == 200
    assert api.put(put, token, {"level": 1}, headers={"If-Match": "*"}).status_code == 200
    assert count(db, SkillAssessment) == 4


def test_a_webhooks_secret_is_rotated_at_the_version_read(api: Api, db: Session, scene: Scene):
    token = scene.tokens["admin"]
    body = {"url": "https://hooks.example.com/in", "events": ["hours.logged"], "format": "slack"}
    made = api.post("/api/v1/webhooks", token, body).get_json()
    url = f"/api/v1/webhooks/{made['id']}"
    tag = api.get(url, token).headers["ETag"]
    rotate = f"{url}/rotate-secret"
    stale = api.post(rotate, token, headers={"If-Match": STALE})
    assert stale.status_code == 412
    assert set(stale.get_json()["errors"]) == {"If-Match"}
    db.expire_all()
    assert db.get(WebhookEndpoint, made["id"]).secret == made["secret"]  # type: ignore[union-attr]
    done = api.post(rotate, token, headers={"If-Match": tag})
    assert done.status_code == 200
    assert done.get_json()["secret"] != made["secret"]
    # The answer's version is the endpoint's (without its secret), as GET reads it.
    assert done.headers["ETag"] == api.get(url, token).headers["ETag"] != tag
    assert api.post(rotate, token, headers={"If-Match": tag}).status_code == 412
    # Without If-Match, as every write: unconditional.
    assert api.post(rotate, token).status_code == 200


def test_the_refusal_speaks_the_requests_language(api: Api, scene_with_entry: Scene):
    refused = api.put(
        _url(scene_with_entry),
        scene_with_entry.tokens["self"],
        CHANGE,
        headers={"If-Match": STALE, "Accept-Language": "es"},
    )
    assert refused.status_code == 412
    assert refused.get_json()["errors"]["If-Match"].startswith("el registro cambió")


@pytest.mark.parametrize(
    ("path", "method", "header"),
    [
        ("/api/v1/hours/{entry_id}", "get", "If-None-Match"),
        ("/api/v1/hours/{entry_id}", "put", "If-Match"),
        ("/api/v1/hours/{entry_id}", "delete", "If-Match"),
        ("/api/v1/engineers/{engineer_id}", "get", "If-None-Match"),
        ("/api/v1/engineers/{engineer_id}", "patch", "If-Match"),
        ("/api/v1/webhooks/{endpoint_id}", "delete", "If-Match"),
        ("/api/v1/webhooks/{endpoint_id}/rotate-secret", "post", "If-Match"),
        ("/api/v1/engineers/{engineer_id}/skills", "get", "If-None-Match"),
        ("/api/v1/engineers/{engineer_id}/skills/{speciality}", "put", "If-Match"),
    ],
)
def test_the_document_declares_versions(api: Api, path: str, method: str, header: str):
    spec = api.get("/api/v1/openapi.json").get_json()["paths"][path][method]
    (taken,) = [p for p in spec["parameters"] if p["in"] == "header"]
    assert (taken["name"], taken["required"]) == (header, False)
    answers = spec["responses"]
    if method == "get":
        assert "ETag" in answers["200"]["headers"] and "ETag" in answers["304"]["headers"]
    else:
        assert answers["412"] == {"$ref": "#/components/responses/PreconditionFailed"}
    if method in ("put", "patch", "post"):
        assert "ETag" in answers["200"]["headers"]
