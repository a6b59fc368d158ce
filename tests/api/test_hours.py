"""/api/v1/hours: log, list, update and delete hours, for oneself and as a manager or admin."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.helpers import Api
from tracker.audit.models import AuditEvent
from tracker.progress.models import HourLog
from tracker.progress.services.hours import log_hours

D = dt.date


def test_log_list_update_and_delete_hours(api: Api, db: Session, scene: Scene) -> None:
    token = scene.tokens["self"]
    response = api.post(
        "/api/v1/hours",
        token,
        {"course": "fdl", "date": "2026-11-20", "hours": 1.5, "note": "  chapter 1  "},
    )
    assert response.status_code == 201
    entry = response.get_json()
    assert entry["hours"] == 1.5
    assert entry["date"] == "2026-11-20"
    assert entry["note"] == "chapter 1"
    assert entry["course"]["code"] == "FDL"
    assert entry["engineer"] == {"id": scene.target.id, "name": "Target"}
    assert response.headers["Location"].endswith(f"/api/v1/hours/{entry['id']}")

    gpu = factories.course(db, "GPU-ARCH")
    response = api.post(
        "/api/v1/hours", token, {"course_id": gpu.id, "date": "2026-11-21", "hours": 8}
    )
    assert response.status_code == 201
    assert response.get_json()["hours"] == 8

    listed = api.get("/api/v1/hours", token).get_json()
    assert {e["engineer"]["id"] for e in listed["items"]} == {scene.target.id}
    assert [(e["date"], e["hours"]) for e in listed["items"]] == [
        ("2026-11-21", 8),
        ("2026-11-20", 1.5),
    ]
    assert listed["next"] is None

    url = f"/api/v1/hours/{entry['id']}"
    response = api.put(url, token, {"course": "FDL", "date": "2026-11-19", "hours": 2.25})
    assert response.status_code == 200
    assert response.get_json()["hours"] == 2.25
    assert response.get_json()["note"] == ""
    assert api.get(url, token).get_json()["date"] == "2026-11-19"

    deleted = api.delete(url, token)
    assert deleted.status_code == 204
    # No body, so nothing to name a type of.
    assert (deleted.data, deleted.headers.get("Content-Type")) == (b"", None)
    assert api.get(url, token).status_code == 404
    assert len(api.get("/api/v1/hours", token).get_json()["items"]) == 1

    events = db.scalars(
        select(AuditEvent)
        .where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry["id"])
        .order_by(AuditEvent.id)
    ).all()
    assert [e.action for e in events] == ["create", "update", "delete"]
    assert {e.actor_id for e in events} == {scene.target.id}
    assert events[1].before["hours"] == "1.50"
    assert events[2].before["logged_on"] == "2026-11-19"


def test_an_admin_logs_hours_for_someone(api: Api, db: Session, scene: Scene) -> None:
    response = api.post(
        "/api/v1/hours",
        scene.tokens["admin"],
        {"engineer": scene.target.id, "course": "FDL", "date": "2026-11-20", "hours": 2},
    )
    assert response.status_code == 201
    entry = db.get(HourLog, response.get_json()["id"])
    assert entry.engineer_id == scene.target.id
    event = db.scalars(
        select(AuditEvent).where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry.id)
    ).one()
    assert event.actor_id == scene.admin.id


def test_a_manager_reads_a_reports_hours(api: Api, db: Session, scene: Scene) -> None:
    log_hours(
        db, scene.target, factories.course(db, "FDL"), D(2026, 11, 2), factories.hours(3), D.max
    )
    response = api.get(f"/api/v1/hours?engineer={scene.target.id}", scene.tokens["manager"])
    assert response.status_code == 200
    assert [e["hours"] for e in response.get_json()["items"]] == [3]
    # Without ?engineer the manager sees their own (empty) log.
    own = api.get("/api/v1/hours", scene.tokens["manager"]).get_json()
    assert own == {"items": [], "next": None}
