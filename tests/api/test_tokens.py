"""Bearer tokens: /me answers their owner; each use recorded; revoked or deactivated, 401."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tests.api.conftest import NOW, Scene
from tests.helpers import Api, token_for
from tracker.people.models import ApiToken
from tracker.people.services.accounts import create_token, revoke_token
from tracker.people.services.persons import set_active


def test_me(api: Api, db: Session, scene: Scene) -> None:
    response = api.get("/api/v1/me", scene.tokens["self"])
    assert response.status_code == 200
    me = response.get_json()
    assert me["id"] == scene.target.id
    assert me["name"] == "Target"
    assert me["access_role"] == "engineer"
    assert me["manager"] == {"id": scene.manager.id, "name": "Manager"}
    assert me["hired_on"] == "2021-01-01"
    assert me["job_roles"] == ["operations"]
    # 2021-01-01 to 2026-11-29: 70 whole months.
    assert me["experience_months"] == 70
    assert "password_hash" not in me


def test_a_token_records_its_use(api: Api, db: Session, scene: Scene) -> None:
    token, secret = create_token(db, scene.target, "script")
    assert token.last_used_at is None
    assert api.get("/api/v1/me", secret).status_code == 200
    db.expire(token)
    assert token.last_used_at is not None


def test_a_revoked_token_stops_working_at_once(api: Api, db: Session, scene: Scene) -> None:
    token, secret = create_token(db, scene.target, "script")
    other_secret = token_for(db, scene.target)
    assert api.get("/api/v1/me", secret).status_code == 200

    revoke_token(db, token, NOW)

    response = api.get("/api/v1/me", secret)
    assert response.status_code == 401
    assert response.get_json() == {
        "errors": {
            "token": "the token is not valid: unknown, revoked, expired,"
            " or its account is deactivated"
        }
    }
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    # Writes too, and the engineer's other tokens keep working.
    hours = {"course": "FDL", "date": "2026-11-20", "hours": 1}
    assert api.post("/api/v1/hours", secret, hours).status_code == 401
    assert api.get("/api/v1/me", other_secret).status_code == 200


def test_deactivation_stops_every_token_of_the_account(api: Api, db: Session, scene: Scene) -> None:
    secret = scene.tokens["self"]
    assert api.get("/api/v1/me", secret).status_code == 200
    set_active(db, scene.target, False)
    assert api.get("/api/v1/me", secret).status_code == 401
    set_active(db, scene.target, True)
    assert api.get("/api/v1/me", secret).status_code == 200


def test_tokens_are_stored_hashed(db: Session, scene: Scene) -> None:
    secret = scene.tokens["self"]
    stored = db.scalars(select(ApiToken.token_hash)).all()
    assert secret not in stored
