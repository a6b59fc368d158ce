"""Scoped and expiring tokens: a read token reads everything and writes nothing; expiry is 401.

The write routes are enumerated from the app's URL map, so a route added
later is covered without editing this file.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.orm import Session
from werkzeug.routing import Rule

from tests import factories
from tests.api.conftest import Scene, row_counts
from tests.helpers import WEBHOOK_HOSTS, Api, routes
from tracker.people.models import ApiToken, Engineer
from tracker.people.rules import READ_ONLY_TOKEN_RULE, READ_SCOPE
from tracker.people.services.accounts import create_token
from tracker.webhooks.services.endpoints import add_endpoint

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
API_ROUTES = [
    (endpoint, rule, method) for endpoint, rule, method in routes() if rule.startswith("/api/v1/")
]
WRITES = [route for route in API_ROUTES if route[2] in WRITE_METHODS]
READS = [route for route in API_ROUTES if route[2] == "GET"]
READ_ONLY = {"errors": {"token": READ_ONLY_TOKEN_RULE}}
HOURS = {"course": "FDL", "date": "2026-11-20", "hours": 1}
# A personal-data download is of its moment: it notes each download in the account trail,
# and the tokens' last use is the call's own.
OF_THE_MOMENT = {"generated_at", "account_events", "api_tokens"}


def _token(db: Session, who: Engineer, **kwargs: Any) -> tuple[ApiToken, str]:
    return create_token(db, who, "scoped", today=factories.TODAY, **kwargs)


def _url(app: Flask, db: Session, scene: Scene, endpoint: str, method: str) -> str:
    """The route's URL, its ids those of records that exist and the admin may change."""
    assert scene.entry is not None and scene.other.team_id is not None
    known = {"engineer_id": scene.target.id, "entry_id": scene.entry.id}
    known["team_id"] = scene.other.team_id
    if "<int:endpoint_id>" in next(iter(app.url_map.iter_rules(endpoint))).rule:
        known["endpoint_id"] = add_endpoint(
            db, "https://hooks.example.com/in", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS
        ).id
    rule: Rule = next(r for r in app.url_map.iter_rules(endpoint) if method in r.methods)
    values = {name: known.get(name, "networking") for name in rule.arguments}
    with app.test_request_context():
        return app.url_map.bind("localhost").build(endpoint, values, method=method)


def test_the_routes_are_found():
    assert ("api.log_hours", "/api/v1/hours", "POST") in WRITES
    assert ("api.me", "/api/v1/me", "GET") in READS
    assert {method for _, _, method in API_ROUTES} <= WRITE_METHODS | {"GET"}


@pytest.mark.parametrize(("endpoint", "rule", "method"), WRITES)
def test_a_read_token_is_refused_every_write_with_403(
    app: Flask,
    api: Api,
    db: Session,
    scene_with_entry: Scene,
    endpoint: str,
    rule: str,
    method: str,
) -> None:
    """Even an admin's read token, with a body that a write token would have stored."""
    _, secret = _token(db, scene_with_entry.admin, scope=READ_SCOPE)
    url = _url(app, db, scene_with_entry, endpoint, method)
    before = row_counts(db)
    response = api.call(method, url, secret, HOURS)
    assert response.status_code == 403, response.get_data(as_text=True)
    assert response.get_json() == READ_ONLY
    assert 'error="insufficient_scope"' in response.headers["WWW-Authenticate"]
    assert row_counts(db) == before


def _lasting(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key not in OF_THE_MOMENT}


@pytest.mark.parametrize(("endpoint", "rule", "method"), READS)
def test_a_read_token_reads_what_a_write_token_reads(
    app: Flask,
    api: Api,
    db: Session,
    scene_with_entry: Scene,
    endpoint: str,
    rule: str,
    method: str,
) -> None:
    _, read = _token(db, scene_with_entry.admin, scope=READ_SCOPE)
    _, write = _token(db, scene_with_entry.admin)
    url = _url(app, db, scene_with_entry, endpoint, method)
    response = api.get(url, read)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert _lasting(response.get_json()) == _lasting(api.get(url, write).get_json())
    assert api.call("HEAD", url, read).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        HOURS,  # would be stored
        {**HOURS, "course": "NOPE"},  # unknown course
        {**HOURS, "hours": 25},  # too many hours
        {**HOURS, "date": "not a date"},  # invalid field
        {**HOURS, "engineer": 1},  # for someone
        "not an object",
    ],
)
def test_an_engineer_logging_own_hours_with_a_read_token_is_refused_before_the_body(
    api: Api, db: Session, scene: Scene, body: object
) -> None:
    """The one-statement path too: its statement writes nothing for a read token."""
    _, secret = _token(db, scene.target, scope=READ_SCOPE)
    before = row_counts(db)
    response = api.post("/api/v1/hours", secret, body)
    assert response.status_code == 403, response.get_json()
    assert response.get_json() == READ_ONLY
    assert row_counts(db) == before


def test_a_write_token_still_writes(api: Api, db: Session, scene: Scene) -> None:
    _, secret = _token(db, scene.target)
    assert api.post("/api/v1/hours", secret, HOURS).status_code == 201


# --- expiry ---------------------------------------------------------------------------


def _expiring(db: Session, who: Engineer, on: dt.date, **kwargs: Any) -> str:
    """Return the secret of a token of `who` that expires on `on` (which may be past)."""
    token, secret = _token(db, who, expires_on=factories.TODAY, **kwargs)
    token.expires_on = on  # the service refuses a past date; the clock moved on since
    db.flush()
    return secret


@pytest.mark.parametrize("scope", ["write", READ_SCOPE])
def test_an_expired_token_is_401_like_an_unknown_one(
    api: Api, db: Session, scene: Scene, scope: str
) -> None:
    secret = _expiring(db, scene.target, factories.TODAY - dt.timedelta(days=1), scope=scope)
    unknown = api.get("/api/v1/me", "trk_not-a-real-token")
    before = row_counts(db)
    for response in (
        api.get("/api/v1/me", secret),
        api.post("/api/v1/hours", secret, HOURS),
        api.post("/api/v1/hours", secret, "not an object"),
        api.delete(f"/api/v1/hours/{scene.target.id}", secret),
    ):
        assert response.status_code == 401
        assert response.get_json() == unknown.get_json()
        assert response.headers["WWW-Authenticate"] == unknown.headers["WWW-Authenticate"]
    assert row_counts(db) == before


def test_a_token_works_through_its_expiry_day(
    app: Flask, api: Api, db: Session, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, secret = _token(db, scene.target, expires_on=factories.TODAY)
    assert api.get("/api/v1/me", secret).status_code == 200
    assert api.post("/api/v1/hours", secret, HOURS).status_code == 201
    monkeypatch.setitem(app.config, "TODAY", factories.TODAY + dt.timedelta(days=1))
    before = row_counts(db)
    assert api.get("/api/v1/me", secret).status_code == 401
    assert api.post("/api/v1/hours", secret, HOURS).status_code == 401
    assert row_counts(db) == before


def test_an_admin_logging_for_someone_with_an_expired_token_is_401(
    api: Api, db: Session, scene: Scene
) -> None:
    secret = _expiring(db, scene.admin, factories.TODAY - dt.timedelta(days=1))
    before = row_counts(db)
    response = api.post("/api/v1/hours", secret, {**HOURS, "engineer": scene.target.id})
    assert response.status_code == 401
    assert row_counts(db) == before
