"""Importing an Open Badges 3.0 credential: the import's dispatcher hands it to the 3.0 verifier."""

from __future__ import annotations

import json

from sqlalchemy import select

from tests import factories
from tests.helpers import Api, count, token_for
from tests.issuer.vc_node import Signer, badge, hashed
from tracker.badges.models import ImportedBadge
from tracker.progress.models import Certification

KEY_SEED = bytes(range(7, 39))
SALT = "salt-of-the-earth"


def test_a_signed_open_badge_3_is_recorded_verified_with_its_dates(db, client, pinned_today):
    ada = factories.engineer(db, email="ada@example.com")
    signer = Signer(KEY_SEED)
    (signed,) = signer.sign(
        badge(
            signer.did,
            hashed(ada.email, SALT),
            valid_from="2026-02-01T00:00:00Z",
            valid_until="2028-02-01T00:00:00Z",
        )
    )
    response = Api(client).post(
        "/api/v1/credentials", token_for(db, ada), {"badge_json": json.dumps(signed)}
    )
    assert response.status_code == 201, response.json
    body = response.json
    assert body["verified"] is True and body["revoked_on"] is None
    assert (body["earned_on"], body["expires_on"]) == ("2026-02-01", "2028-02-01")
    assert body["credential"]["name"] == "GPU cluster operations"
    imported = db.scalars(select(ImportedBadge)).one()
    assert (imported.format, imported.assertion_id) == ("ob3", signed["id"])


def test_a_tampered_open_badge_3_is_refused_and_nothing_is_stored(db, client, pinned_today):
    ada = factories.engineer(db, email="ada@example.com")
    signer = Signer(KEY_SEED)
    (signed,) = signer.sign(badge(signer.did, hashed(ada.email, SALT)))
    signed["validFrom"] = "2025-01-01T00:00:00Z"
    response = Api(client).post(
        "/api/v1/credentials", token_for(db, ada), {"badge_json": json.dumps(signed)}
    )
    assert response.status_code == 400
    assert "badge_json" in response.json["errors"]
    assert count(db, Certification) == 0 and count(db, ImportedBadge) == 0


def test_an_open_badge_3_of_someone_else_is_refused_as_theirs(db, client, pinned_today):
    ada = factories.engineer(db, email="ada@example.com")
    signer = Signer(KEY_SEED)
    (signed,) = signer.sign(badge(signer.did, hashed("grace@example.com", SALT)))
    response = Api(client).post("/api/v1/credentials", token_for(db, ada), {"badge_json": signed})
    assert response.status_code == 400
    assert count(db, Certification) == 0
