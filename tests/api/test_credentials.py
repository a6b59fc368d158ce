"""/api/v1/credentials: a credential of the catalog recorded, and one from outside it."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tests.api.conftest import Scene
from tests.helpers import Api
from tracker.catalog.models.credentials import Credential


def test_record_a_catalog_credential(api: Api, db: Session, scene: Scene) -> None:
    response = api.post(
        "/api/v1/credentials",
        scene.tokens["self"],
        {
            "code": "cka",
            "issued_on": "2026-03-01",
            "expires_on": "2026-12-15",
            "evidence": "LF-1234",
        },
    )
    assert response.status_code == 201
    cert = response.get_json()
    assert cert["credential"]["code"] == "CKA"
    assert cert["earned_on"] == "2026-03-01"
    assert cert["expires_on"] == "2026-12-15"
    assert cert["status"] == "expiring"
    assert cert["days_left"] == 16
    assert cert["evidence"] == "LF-1234"
    assert cert["attempt_id"] is None


def test_record_a_credential_outside_the_catalog(api: Api, db: Session, scene: Scene) -> None:
    body = {
        "name": "Liquid Cooling Practitioner",
        "issuer": "CoolCo",
        "issued_on": "2026-05-01",
        "evidence": "https://coolco.example/cert/42",
    }
    response = api.post("/api/v1/credentials", scene.tokens["self"], body)
    assert response.status_code == 201
    cert = response.get_json()
    credential = db.get(Credential, cert["credential"]["id"])
    assert credential.kind == "external"
    assert credential.origin == "engineer"
    assert credential.code.startswith("X-LIQUID-COOLING")
    assert credential.name == "Liquid Cooling Practitioner"
    assert cert["expires_on"] is None
    assert cert["status"] == "valid"

    # The same name and issuer again (another person) reuse the row.
    again = api.post(
        "/api/v1/credentials",
        scene.tokens["other engineer"],
        {**body, "name": "liquid cooling practitioner", "issuer": "coolco"},
    )
    assert again.status_code == 201
    assert again.get_json()["credential"]["id"] == credential.id
