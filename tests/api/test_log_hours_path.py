"""POST /api/v1/hours takes a lean path (Core statements, issue 6): the same answers and trail.

The entry, its audit event and the answer must be what the ORM path
(services.log_hours) gives; a day still holds at most 24 hours when requests
race (SQLite: its writers take turns at BEGIN IMMEDIATE; PostgreSQL: the
engineer's row lock, when the suite runs on it). An engineer
logging their own hours has their token looked up in the statement that locks
them and finds the course; the token rules stay those of every other request.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import event, make_url, select, text, update
from sqlalchemy.orm import Session, sessionmaker

from tests import factories
from tests.api.conftest import NOW, Api, Scene, row_counts
from tracker import create_app
from tracker.api.tokens import caller_locked_for_hours
from tracker.audit import services as audit
from tracker.audit.models import AuditEvent
from tracker.catalog.services import load_seed
from tracker.cli import run_migrations
from tracker.config import PROJECT_ROOT
from tracker.db import make_engine, session_scope
from tracker.people.models import ApiToken
from tracker.people.services import create_token, revoke_token, set_active
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


@contextmanager
def _statements(app: Flask) -> Iterator[list[str]]:
    """Collect the statements sent (savepoints and rollbacks aside)."""
    statements: list[str] = []
    engine = app.extensions["tracker.engine"]

    def count(conn, cursor, statement, *args) -> None:
        if not statement.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def _postgresql(app: Flask) -> bool:
    return app.extensions["tracker.engine"].dialect.name == "postgresql"


def test_a_logged_hour_costs_few_statements(app: Flask, api: Api, db: Session, scene: Scene):
    """Token with lock and course, insert (with its audit event on PostgreSQL): issue 6."""
    api.post(
        "/api/v1/hours", scene.tokens["self"], {"course": "FDL", "date": "2026-11-19", "hours": 1}
    )
    with _statements(app) as statements:
        response = api.post(
            "/api/v1/hours",
            scene.tokens["self"],
            {"course": "FDL", "date": "2026-11-20", "hours": 1},
        )
    assert response.status_code == 201
    assert len(statements) == (2 if _postgresql(app) else 3), statements
    first = statements[0]
    assert "api_tokens" in first and "courses" in first
    if _postgresql(app):
        assert "FOR UPDATE OF engineers" in first


def test_an_admin_logging_for_someone_locks_that_engineer(
    app: Flask, api: Api, db: Session, scene: Scene
) -> None:
    body = {"engineer": scene.target.id, "course": "FDL", "date": "2026-11-20", "hours": 1}
    with _statements(app) as statements:
        response = api.post("/api/v1/hours", scene.tokens["admin"], body)
    assert response.status_code == 201
    assert response.get_json()["engineer"]["id"] == scene.target.id
    entry = db.get(HourLog, response.get_json()["id"])
    assert entry is not None and entry.engineer_id == scene.target.id
    event = db.scalars(
        select(AuditEvent).where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry.id)
    ).one()
    assert event.actor_id == scene.admin.id
    # The token first (nothing locked), then the engineer named, locked.
    assert "FOR UPDATE" not in statements[0] and "api_tokens" in statements[0]
    if _postgresql(app):
        assert any("FOR UPDATE OF engineers" in s for s in statements[1:]), statements


def test_a_revoked_token_or_deactivated_account_stops_logging_at_once(
    api: Api, db: Session, scene: Scene
) -> None:
    token, secret = create_token(db, scene.target, "script")
    body = {"course": "FDL", "date": "2026-11-20", "hours": 1}
    assert api.post("/api/v1/hours", secret, body).status_code == 201
    revoke_token(db, token, NOW)
    before = row_counts(db)
    response = api.post("/api/v1/hours", secret, body)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert row_counts(db) == before

    secret = scene.tokens["self"]
    assert api.post("/api/v1/hours", secret, body).status_code == 201
    set_active(db, scene.target, False)
    before = row_counts(db)
    assert api.post("/api/v1/hours", secret, body).status_code == 401
    assert row_counts(db) == before


@pytest.mark.parametrize(
    "body",
    [
        {"course": "FDL", "date": "2026-11-20", "hours": 1},  # would be stored
        {"course": "NOPE", "date": "2026-11-20", "hours": 1},  # unknown course
        {"course": "FDL", "date": "not a date", "hours": 1},  # invalid field
        {"course": "FDL", "date": "2026-11-20", "hours": 1, "colour": "red"},  # unknown field
        {"engineer": 1, "course": "FDL", "date": "2026-11-20", "hours": 1},  # for someone
        "not an object",
    ],
)
@pytest.mark.parametrize("role", ["revoked token", "deactivated"])
def test_a_dead_token_is_refused_before_the_body(
    api: Api, db: Session, scene: Scene, role: str, body: object
) -> None:
    before = row_counts(db)
    response = api.post("/api/v1/hours", scene.tokens[role], body)
    assert response.status_code == 401, response.get_json()
    assert set(response.get_json()["errors"]) == {"token"}
    assert row_counts(db) == before
    response = api.call(
        "POST",
        "/api/v1/hours",
        scene.tokens[role],
        data="{}",
        headers={"Content-Type": "text/plain"},
    )
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"course": "NOPE", "date": "2026-11-20", "hours": 1}, "course"),
        ({"course_id": 999_999, "date": "2026-11-20", "hours": 1}, "course_id"),
        ({"course": "FDL", "date": "2026-11-20", "hours": 25}, "hours"),
        ({"course": "FDL", "date": "2099-01-01", "hours": 1}, "date"),
        ({"date": "2026-11-20", "hours": 1}, "course"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field_and_stores_nothing(
    api: Api, db: Session, scene: Scene, body: dict, field: str
) -> None:
    before = row_counts(db)
    response = api.post("/api/v1/hours", scene.tokens["self"], body)
    assert response.status_code == 400
    assert field in response.get_json()["errors"]
    assert row_counts(db) == before


def test_logging_hours_records_the_token_use_to_the_minute(
    api: Api, db: Session, scene: Scene
) -> None:
    token, secret = create_token(db, scene.target, "script")
    body = {"course": "FDL", "date": "2026-11-20", "hours": 1}
    assert api.post("/api/v1/hours", secret, body).status_code == 201
    db.expire(token)
    first = token.last_used_at
    assert first is not None
    assert api.post("/api/v1/hours", secret, body).status_code == 201
    db.expire(token)
    assert token.last_used_at == first  # within the minute: not written again
    stale = first - dt.timedelta(minutes=5)
    db.execute(
        ApiToken.__table__.update().where(ApiToken.id == token.id).values(last_used_at=stale)
    )
    db.commit()
    assert api.post("/api/v1/hours", secret, body).status_code == 201
    db.expire(token)
    assert token.last_used_at > stale


def _fresh_database(url: str) -> None:
    run_migrations(url)
    engine = make_engine(url)
    try:
        with session_scope(sessionmaker(bind=engine)) as session:
            load_seed(session, PROJECT_ROOT / "seed" / "catalog.toml")
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, seeded database of its own, where requests commit and race.

    SQLite always; PostgreSQL when the suite runs on it (TRACKER_TEST_DATABASE_URL),
    as a scratch database beside the suite's, dropped afterwards.
    """
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'race.db'}"
        _fresh_database(url)
        yield url
        return
    suite_url = make_url(os.environ.get("TRACKER_TEST_DATABASE_URL") or "sqlite://")
    if suite_url.get_backend_name() != "postgresql":
        pytest.skip("PostgreSQL only (set TRACKER_TEST_DATABASE_URL)")
    name = f"{suite_url.database}_race"
    admin = make_engine(suite_url.render_as_string(hide_password=False))
    try:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = suite_url.set(database=name).render_as_string(hide_password=False)
        _fresh_database(url)
        yield url
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def test_logging_hours_never_waits_for_a_token_row_while_holding_the_lock(
    fresh_url: str,
) -> None:
    """Other requests lock the token row (recording its use), then the engineer.

    POST /hours locks the engineer first, so it must not then wait for the
    token row: that would deadlock with such a request.
    """
    if not fresh_url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL only (SQLite's writers take turns)")
    engine = make_engine(fresh_url)
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            who = factories.engineer(session)
            token, secret = create_token(session, who, "lock order")
        with engine.connect() as other:  # a request that recorded the token's use
            other.execute(update(ApiToken).where(ApiToken.id == token.id).values(last_used_at=NOW))
            with Session(engine) as session:
                session.execute(text("SET LOCAL lock_timeout = '2s'"))
                found = caller_locked_for_hours(
                    session, secret, dt.datetime(2026, 11, 29, 13, 0), "FDL", None
                )
                assert found is not None and found[0].id == who.id
                assert found[1].code == "FDL"
                session.commit()
            other.commit()
    finally:
        engine.dispose()


def test_racing_requests_never_fill_a_day_past_24_hours(fresh_url: str) -> None:
    app = create_app(
        {"DATABASE_URL": fresh_url, "SECRET_KEY": "race", "TESTING": True, "TODAY": factories.TODAY}
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
