"""POST /api/v1/credentials with a badge: by URL, as JSON, or a baked image uploaded."""

from __future__ import annotations

import io
import json

from tests import factories
from tests.badges.conftest import Issuer, entered_by_hand
from tests.helpers import Api, count, token_for
from tracker.badges.models import ImportedBadge
from tracker.progress.models import Certification


def test_a_badge_by_url_is_verified_and_answered_verified(
    db, client, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    issuer.assertion("/a/1", ada.email, issued="2026-03-15", expires="2028-03-15")
    response = Api(client).post(
        "/api/v1/credentials", token_for(db, ada), {"badge_url": issuer.server.url("/a/1")}
    )
    assert response.status_code == 201, response.json
    body = response.json
    assert body["verified"] is True and body["verified_at"] and body["revoked_on"] is None
    assert (body["earned_on"], body["expires_on"]) == ("2026-03-15", "2028-03-15")
    assert body["credential"]["name"] == "GPU Operations Practitioner"
    assert body["evidence"] == issuer.server.url("/a/1")
    listed = Api(client).get("/api/v1/certifications", token_for(db, ada)).json["items"]
    assert [c["verified"] for c in listed] == [True]


def test_a_badge_of_a_certification_entered_by_hand_verifies_it_with_200(
    db, client, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    by_hand = entered_by_hand(db, issuer, ada, "NCA-AIIO")
    response = Api(client).post(
        "/api/v1/credentials", token_for(db, ada), {"badge_url": issuer.server.url("/a/1")}
    )
    assert response.status_code == 200, response.json
    body = response.json
    assert (body["id"], body["verified"]) == (by_hand.id, True)
    assert (body["earned_on"], body["expires_on"]) == ("2026-03-15", str(by_hand.expires_on))
    assert body["evidence"] == issuer.server.url("/a/1")
    assert count(db, Certification) == 1 and count(db, ImportedBadge) == 1
    answers = Api(client).get("/api/v1/openapi.json").json["paths"]["/api/v1/credentials"]["post"]
    assert {"200", "201"} <= set(answers["responses"])


def test_a_badge_as_json_object_or_text(db, client, pinned_today, issuer: Issuer) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    token = token_for(db, ada)
    first = issuer.assertion("/a/1", ada.email)
    second = issuer.assertion("/a/2", ada.email)
    api = Api(client)
    assert api.post("/api/v1/credentials", token, {"badge_json": first}).status_code == 201
    assert (
        api.post("/api/v1/credentials", token, {"badge_json": json.dumps(second)}).status_code
        == 201
    )
    again = api.post("/api/v1/credentials", token, {"badge_json": first})
    assert again.status_code == 400
    assert again.json["errors"] == {"badge_json": "this badge is already recorded"}


def test_a_badge_object_with_fractions_is_read_as_its_text_would_be(
    db, client, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    token = token_for(db, ada)
    badge = {**issuer.assertion("/a/1", ada.email), "score": 97.5}
    api = Api(client)
    response = api.post("/api/v1/credentials", token, {"badge_json": badge})
    assert response.status_code == 201, response.json
    # A number no float holds is refused, naming the field, and stores nothing.
    huge = json.dumps({**issuer.assertion("/a/2", ada.email), "score": 0}).replace(
        '"score": 0', '"score": 1e400'
    )
    refused = client.post(
        "/api/v1/credentials",
        data=f'{{"badge_json": {huge}}}',
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert refused.status_code == 400, refused.json
    assert refused.json["errors"] == {"badge_json": "a number in the badge is out of range"}
    assert count(db, Certification) == 1


def test_a_baked_image_uploaded(db, client, pinned_today, issuer: Issuer) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    issuer.assertion("/a/1", ada.email)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org">'
        f'<openbadges:assertion verify="{issuer.server.url("/a/1")}"/></svg>'
    )
    response = Api(client).post(
        "/api/v1/credentials",
        token_for(db, ada),
        data={"badge_image": (io.BytesIO(svg.encode()), "badge.svg")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 201, response.json
    assert response.json["verified"] is True


def test_refusals_name_the_field_and_store_nothing(db, client, pinned_today, issuer) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    token = token_for(db, ada)
    api = Api(client)
    issuer.assertion("/revoked", ada.email, status=410)
    issuer.assertion("/expired", ada.email, issued="2020-01-01", expires="2021-01-01")
    issuer.assertion("/eve", "eve@example.com")
    port = issuer.server.base.rsplit(":", 1)[1]
    cases = {
        issuer.server.url("/revoked"): "the issuer revoked the badge",
        issuer.server.url("/expired"): "the badge expired on 2021-01-01",
        issuer.server.url("/eve"): "the badge was issued to someone else's e-mail address",
        f"http://127.0.0.2:{port}/eve": (
            "127.0.0.2 is a private or local address; it is not fetched"
        ),
    }
    before = count(db, Certification)
    for url, reason in cases.items():
        response = api.post("/api/v1/credentials", token, {"badge_url": url})
        assert (response.status_code, response.json["errors"]) == (400, {"badge_url": reason})
    assert count(db, Certification) == before and count(db, ImportedBadge) == 0
    image = api.post(
        "/api/v1/credentials",
        token,
        data={"badge_image": (io.BytesIO(b"GIF89a"), "x.gif")},
        content_type="multipart/form-data",
    )
    assert image.status_code == 400 and "badge_image" in image.json["errors"]


def test_a_badge_body_takes_nothing_else(db, client, pinned_today) -> None:
    ada = factories.engineer(db)
    api = Api(client)
    token = token_for(db, ada)
    both = api.post(
        "/api/v1/credentials", token, {"badge_url": "https://a.example/1", "badge_json": "{}"}
    )
    assert both.status_code == 400 and "badge_json" in both.json["errors"]
    mixed = api.post(
        "/api/v1/credentials", token, {"badge_url": "https://a.example/1", "code": "NCP-AII"}
    )
    assert mixed.status_code == 400 and "code" in mixed.json["errors"]
    plain = api.post("/api/v1/credentials", token, {"code": "NCP-AII"})
    assert plain.status_code == 400 and "issued_on" in plain.json["errors"]
    unknown = api.post(
        "/api/v1/credentials",
        token,
        data={"badge_image": (io.BytesIO(b"x"), "x.png"), "other": "1"},
        content_type="multipart/form-data",
    )
    assert unknown.status_code == 400 and "other" in unknown.json["errors"]


def test_no_one_imports_a_badge_for_someone_they_may_not_see(db, client, pinned_today) -> None:
    ada, bob = factories.engineer(db), factories.engineer(db)
    response = Api(client).post(
        "/api/v1/credentials",
        token_for(db, ada),
        data={"badge_image": (io.BytesIO(b"x"), "x.png"), "engineer": str(bob.id)},
        content_type="multipart/form-data",
    )
    assert response.status_code == 403


def test_the_document_declares_the_upload(client) -> None:
    document = client.get("/api/v1/openapi.json").json
    content = document["paths"]["/api/v1/credentials"]["post"]["requestBody"]["content"]
    assert set(content) == {"application/json", "multipart/form-data"}
    upload = document["components"]["schemas"]["BadgeUpload"]
    assert upload["properties"]["badge_image"]["format"] == "binary"
