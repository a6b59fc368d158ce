"""/health and /health/live: what a load balancer, an orchestrator or a monitor asks."""

from __future__ import annotations

import datetime as dt

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import WEBHOOK_HOSTS
from tracker import create_app
from tracker.clock import utcnow
from tracker.health import services
from tracker.issuer.services import keys
from tracker.reminders.models import Notification
from tracker.reminders.scheduler import SchedulerLock
from tracker.webhooks.services.endpoints import add_endpoint

HEALTH_JSON = "application/health+json"


@pytest.fixture
def no_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    """No scheduler holds the lock, whatever other tests' schedulers do meanwhile."""
    monkeypatch.setattr(SchedulerLock, "held", lambda self: False)


def _statuses(body: dict) -> dict[str, str]:
    return {name: found[0]["status"] for name, found in body["checks"].items()}


def test_live_answers_without_asking_the_database(client: FlaskClient) -> None:
    response = client.get("/health/live")

    assert response.status_code == 200
    assert response.mimetype == HEALTH_JSON
    assert response.headers["Cache-Control"] == "no-store"
    assert response.get_json() == {"status": "pass"}


@pytest.mark.usefixtures("no_scheduler")
def test_ready_passes_and_warns_while_no_scheduler_runs(client: FlaskClient, db: Session):
    response = client.get("/health")

    body = response.get_json()
    assert response.status_code == 200 and response.mimetype == HEALTH_JSON
    assert response.headers["Cache-Control"] == "no-store"
    assert body["status"] == "warn"
    assert _statuses(body) == {
        "database:connection": "pass",
        "database:schema": "pass",
        "mail:outbox": "pass",
        "webhooks:outbox": "pass",
        "issuer:key": "pass",
        "scheduler:lock": "warn",
    }
    assert "run `tracker scheduler`" in body["checks"]["scheduler:lock"][0]["output"]


def test_ready_passes_while_a_scheduler_runs(
    client: FlaskClient, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SchedulerLock, "held", lambda self: True)

    body = client.get("/health").get_json()

    assert body["status"] == "pass"
    assert set(_statuses(body).values()) == {"pass"}


@pytest.mark.usefixtures("no_scheduler")
def test_mail_and_webhooks_due_for_too_long_are_a_warning(client: FlaskClient, db: Session):
    now = utcnow()
    for minutes, key in ((125, "late"), (5, "due now")):
        db.add(
            Notification(
                dedupe_key=key,
                kind="reminder",
                to_addrs="ops@example.com",
                subject=key,
                body_text=key,
                message_id=f"<{key.replace(' ', '-')}@example.com>",
                status="pending",
                next_attempt_at=now - dt.timedelta(minutes=minutes),
            )
        )
    endpoint = add_endpoint(
        db, "https://hooks.example.com/health", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS
    )
    factories.webhook_delivery(
        db, endpoint, status="sending", next_attempt_at=now - dt.timedelta(minutes=40)
    )
    factories.webhook_delivery(
        db, endpoint, status="delivered", next_attempt_at=now - dt.timedelta(days=2)
    )
    db.flush()

    body = client.get("/health").get_json()

    mail, hooks = body["checks"]["mail:outbox"][0], body["checks"]["webhooks:outbox"][0]
    assert (mail["status"], mail["observedValue"], mail["observedUnit"]) == ("warn", 1, "notices")
    assert mail["output"].startswith("1 due for more than 30 minutes, the oldest for 12")
    assert "is the scheduler running" in mail["output"]
    assert (hooks["status"], hooks["observedValue"]) == ("warn", 1)
    assert body["status"] == "warn"


@pytest.mark.usefixtures("no_scheduler")
def test_a_signing_key_no_secret_key_opens_is_a_warning(client: FlaskClient, db: Session):
    keys.create_key(db, factories.SECRET_KEY, utcnow())
    assert client.get("/health").get_json()["checks"]["issuer:key"][0]["status"] == "pass"
    keys.create_key(db, "a secret key lost since", utcnow())  # the newest signs

    response = client.get("/health")

    body = response.get_json()
    assert response.status_code == 200 and body["status"] == "warn"
    assert body["checks"]["issuer:key"][0] == {
        "componentType": "component",
        "status": "warn",
        "output": "Open Badges cannot be signed until an admin runs"
        " `tracker issuer init-key --rotate` (or restores the secret key the signing key"
        " is stored under).",
    }


def test_a_database_behind_the_code_fails_so_requests_go_elsewhere(
    client: FlaskClient, db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "head_revision", lambda: "a_later_one")

    response = client.get("/health")

    body = response.get_json()
    assert response.status_code == 503 and body["status"] == "fail"
    schema = body["checks"]["database:schema"][0]
    assert schema["status"] == "fail"
    assert schema["output"].endswith("this version expects a_later_one: run `tracker init`")
    assert "mail:outbox" not in body["checks"]


def test_a_database_that_does_not_answer_fails() -> None:
    app = create_app(
        {"DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:1/none", "SECRET_KEY": "x"}
    )
    try:
        response = app.test_client().get("/health")
        live = app.test_client().get("/health/live")
    finally:
        app.extensions["tracker.engine"].dispose()

    assert response.status_code == 503
    assert response.get_json() == {
        "status": "fail",
        "checks": {
            "database:connection": [
                {
                    "componentType": "datastore",
                    "status": "fail",
                    "output": "the database does not answer",
                }
            ]
        },
    }
    assert live.status_code == 200


def test_the_scheduler_lock_is_seen_held_without_being_taken(racing_url: str) -> None:
    app = create_app({"DATABASE_URL": racing_url, "SECRET_KEY": "x"})
    scheduler, probe = SchedulerLock(app), SchedulerLock(app)
    try:
        assert not probe.held()
        assert scheduler.acquire()
        assert probe.held() and probe.held()  # asking takes nothing from the holder
        scheduler.release()
        assert not probe.held()
        assert probe.acquire()  # nor is anything left behind
        probe.release()
    finally:
        app.extensions["tracker.engine"].dispose()


def test_health_is_open_to_probes_and_names_no_one(app: Flask, client: FlaskClient) -> None:
    for path in ("/health", "/health/live"):
        response = client.get(path)
        assert response.status_code in (200, 503)
        assert "Set-Cookie" not in response.headers
