"""POST /api/v1/hours takes a lean path (Core statements, issue 6): the same answers and trail.

The entry, its audit event and the answer must be what the ORM path
(services.log_hours) gives; a day still holds at most 24 hours when requests
race (on SQLite here: its writers take turns at BEGIN IMMEDIATE).
"""

from __future__ import annotations

import threading
from pathlib import Path

from flask import Flask
from sqlalchemy import event, select
from sqlalchemy.orm import Session, sessionmaker

from tests import factories
from tests.api.conftest import Api, Scene
from tracker import create_app
from tracker.audit import services as audit
from tracker.audit.models import AuditEvent
from tracker.catalog.services import load_seed
from tracker.cli import run_migrations
from tracker.config import PROJECT_ROOT
from tracker.db import make_engine, session_scope
from tracker.people.services import create_token
from tracker.progress.models import HourLog


def test_the_answer_and_the_audit_event_match_the_stored_entry(
    api: Api, db: Session, scene: Scene
) -> None:
    response = api.post(
        "/api/v1/hours",
        scene.tokens["self"],
        {"course": "fdl", "date": "2026-11-20", "hours": 1.50, "note": "  labs  "},
    )
    assert response.status_code == 201
    answer = response.get_json()
    entry = db.get(HourLog, answer["id"])
    assert entry is not None
    assert response.headers["Location"].endswith(f"/api/v1/hours/{entry.id}")
    # The answer is what GET gives for the entry.
    assert answer == api.get(f"/api/v1/hours/{entry.id}", scene.tokens["self"]).get_json()
    assert answer["course"]["code"] == "FDL"
    assert answer["note"] == "labs"
    event = db.scalars(
        select(AuditEvent).where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry.id)
    ).one()
    assert (event.action, event.actor_id, event.before) == ("create", scene.target.id, None)
    # As services.log_hours records it: the columns, hours as the client wrote them.
    assert event.after == {**audit.snapshot(entry), "hours": "1.5"}


def test_a_course_is_found_by_id_and_an_unknown_one_stores_nothing(
    api: Api, db: Session, scene: Scene
) -> None:
    course = factories.course(db, "FDL")
    body = {"course_id": course.id, "date": "2026-11-20", "hours": 2}
    response = api.post("/api/v1/hours", scene.tokens["self"], body)
    assert response.status_code == 201
    assert response.get_json()["course"] == {
        "id": course.id,
        "code": course.code,
        "title": course.title,
    }
    before = db.scalar(select(AuditEvent.id).order_by(AuditEvent.id.desc()).limit(1))
    response = api.post("/api/v1/hours", scene.tokens["self"], {**body, "course_id": 999_999})
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"course_id": "no course with id 999999"}}
    assert db.scalar(select(AuditEvent.id).order_by(AuditEvent.id.desc()).limit(1)) == before


def test_a_logged_hour_costs_few_statements(app: Flask, api: Api, db: Session, scene: Scene):
    """Token, lock with course, insert (with its audit event on PostgreSQL): issue 6."""
    api.post(
        "/api/v1/hours", scene.tokens["self"], {"course": "FDL", "date": "2026-11-19", "hours": 1}
    )
    statements: list[str] = []
    engine = app.extensions["tracker.engine"]

    def count(conn, cursor, statement, *args) -> None:
        if not statement.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        response = api.post(
            "/api/v1/hours",
            scene.tokens["self"],
            {"course": "FDL", "date": "2026-11-20", "hours": 1},
        )
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert response.status_code == 201
    assert len(statements) == (3 if engine.dialect.name == "postgresql" else 4), statements


def _fresh_database(url: str) -> None:
    run_migrations(url)
    engine = make_engine(url)
    try:
        with session_scope(sessionmaker(bind=engine)) as session:
            load_seed(session, PROJECT_ROOT / "seed" / "catalog.toml")
    finally:
        engine.dispose()


def test_racing_requests_never_fill_a_day_past_24_hours(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'race.db'}"
    _fresh_database(url)
    app = create_app(
        {"DATABASE_URL": url, "SECRET_KEY": "race", "TESTING": True, "TODAY": factories.TODAY}
    )
    engine = app.extensions["tracker.engine"]
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            who = factories.engineer(session)
            secret = create_token(session, who, "race")[1]
        racers = 6  # 6 x 5 h: four fit in a day, two must be refused
        start = threading.Barrier(racers)
        statuses: list[int] = []

        def post() -> None:
            client = app.test_client()
            start.wait()
            response = client.post(
                "/api/v1/hours",
                json={"course": "FDL", "date": "2026-11-20", "hours": 5},
                headers={"Authorization": f"Bearer {secret}"},
            )
            statuses.append(response.status_code)

        threads = [threading.Thread(target=post) for _ in range(racers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [201] * 4 + [400] * 2
        with engine.connect() as conn:
            hours = conn.execute(select(HourLog.hours).where(HourLog.engineer_id == who.id))
            assert sum(hours.scalars()) == 20
    finally:
        engine.dispose()
