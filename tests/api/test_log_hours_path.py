"""POST /api/v1/hours takes a lean path (Core statements): the same answers and trail.

The entry, its audit event and the answer must be what the ORM path
(services.log_hours) gives; a day still holds at most 24 hours when requests
race (hour_days' check: the racing writers take turns on the day's row). On
PostgreSQL an engineer logging their own hours has their token looked up in
the statement that writes the entry; the token rules stay those of every
other request.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import pytest
from flask import Flask
from sqlalchemy import event, insert, select, text, update
from sqlalchemy.orm import Session, sessionmaker

from tests import factories
from tests.api.conftest import NOW, Scene, row_counts
from tests.helpers import Api
from tests.locks import wait_until_one_waits_for_a_lock
from tracker import create_app
from tracker.api.tokens import log_own_hours
from tracker.audit import services as audit
from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Course
from tracker.db import autocommit_engine, make_engine, session_scope
from tracker.people.models import ApiToken, Engineer
from tracker.people.services.accounts import create_token, revoke_token
from tracker.people.services.persons import set_active
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
    """PostgreSQL: one statement; SQLite: token and course, entry, audit event."""
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
    assert len(statements) == (1 if _postgresql(app) else 3), statements
    first = statements[0]
    assert "api_tokens" in first and "courses" in first
    if _postgresql(app):
        assert "INSERT INTO hour_logs" in first and "INSERT INTO audit_events" in first
    assert not any("FOR UPDATE" in s for s in statements), "nothing locks the engineer"


@pytest.mark.parametrize("token", ["read", "expired"])
def test_a_read_or_expired_token_is_refused_by_the_same_one_statement(
    app: Flask, api: Api, db: Session, scene: Scene, token: str
) -> None:
    """The scope and the expiry day are the statement's: no lookup before or after it."""
    today = factories.TODAY
    found, secret = create_token(
        db,
        scene.target,
        "scoped",
        scope="read" if token == "read" else "write",
        expires_on=today,
        today=today,
    )
    assert api.get("/api/v1/me", secret).status_code == 200  # its use is recorded
    if token == "expired":
        found.expires_on = today - dt.timedelta(days=1)
        db.flush()
    body = {"course": "FDL", "date": "2026-11-20", "hours": 1}
    before = row_counts(db)
    with _statements(app) as statements:
        response = api.post("/api/v1/hours", secret, body)
    assert response.status_code == (403 if token == "read" else 401)
    assert len(statements) == 1, statements
    assert "api_tokens" in statements[0]
    assert row_counts(db) == before


def test_an_admin_logging_for_someone_is_the_actor_of_the_entry(
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
    assert event.after == {**audit.snapshot(entry), "hours": "1"}
    # The token first, then the engineer named.
    assert "api_tokens" in statements[0] and "hour_logs" not in statements[0]


def test_a_full_day_is_refused_with_its_total_on_every_path(
    api: Api, db: Session, scene: Scene
) -> None:
    body = {"course": "FDL", "date": "2026-11-20", "hours": 20}
    assert api.post("/api/v1/hours", scene.tokens["self"], body).status_code == 201
    before = row_counts(db)
    for token, extra in (
        (scene.tokens["self"], {}),
        (scene.tokens["admin"], {"engineer": scene.target.id}),
    ):
        response = api.post("/api/v1/hours", token, {**body, "hours": 4.25, **extra})
        assert response.status_code == 400
        assert response.get_json() == {
            "errors": {
                "hours": "a day holds at most 24 hours; 20 h are already logged on 2026-11-20"
            }
        }
    assert row_counts(db) == before
    assert api.post("/api/v1/hours", scene.tokens["self"], {**body, "hours": 4}).status_code == 201


def test_a_date_before_the_hire_date_is_refused_by_the_statement(
    api: Api, db: Session, scene: Scene
) -> None:
    scene.target.hired_on = dt.date(2026, 11, 1)
    db.flush()
    before = row_counts(db)
    body = {"course": "FDL", "date": "2026-10-31", "hours": 1}
    response = api.post("/api/v1/hours", scene.tokens["self"], body)
    assert response.status_code == 400
    assert response.get_json() == {
        "errors": {"date": "date must not be before the hire date 2026-11-01"}
    }
    assert row_counts(db) == before


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


def test_logging_hours_never_waits_for_a_token_row_while_holding_the_day(
    racing_url: str,
) -> None:
    """Other requests lock the token row (recording its use), then may write a day's hours.

    POST /hours writes the day first, so it must not then wait for the token
    row: that would deadlock with such a request.
    """
    if not racing_url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL only (SQLite's writers take turns)")
    engine = make_engine(racing_url)
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            who = factories.engineer(session)
            token, secret = create_token(session, who, "lock order")
        with engine.connect() as other:  # a request that recorded the token's use
            other.execute(update(ApiToken).where(ApiToken.id == token.id).values(last_used_at=NOW))
            with Session(engine) as session:
                session.execute(text("SET LOCAL lock_timeout = '2s'"))
                found = log_own_hours(
                    lambda: session,
                    autocommit_engine(engine),
                    secret,
                    dt.datetime(2026, 11, 29, 13, 0),
                    "FDL",
                    None,
                    dt.date(2026, 11, 20),
                    Decimal(1),
                    "",
                    factories.TODAY,
                )
                assert found is not None and found[0].id == who.id
                assert found[1].course_code == "FDL"
                session.commit()
            other.commit()
    finally:
        engine.dispose()


def _racing_app(url: str) -> tuple[Flask, Engineer, str]:
    """An app on a database where requests commit, with an engineer and their token's secret."""
    app = create_app(
        {"DATABASE_URL": url, "SECRET_KEY": "race", "TESTING": True, "TODAY": factories.TODAY}
    )
    factory = sessionmaker(bind=app.extensions["tracker.engine"], expire_on_commit=False)
    with session_scope(factory) as session:
        who = factories.engineer(session)
        secret = create_token(session, who, "race")[1]
    return app, who, secret


def test_racing_requests_never_fill_a_day_past_24_hours(racing_url: str) -> None:
    app, who, secret = _racing_app(racing_url)
    engine = app.extensions["tracker.engine"]
    try:
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


def test_a_request_that_loses_the_race_for_a_day_is_refused_with_its_total(
    racing_url: str,
) -> None:
    """The statement waits on the day's row; when the other writer commits, the check refuses.

    The request saw an empty day when it began: hour_days' check, not the
    statement's own test of the day, is what refuses the entry.
    """
    if not racing_url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL only (SQLite's writers take turns)")
    app, who, secret = _racing_app(racing_url)
    engine = app.extensions["tracker.engine"]
    try:
        with engine.connect() as conn:
            course_id = conn.execute(select(Course.id).where(Course.code == "FDL")).scalar_one()
        answers = []
        with engine.connect() as first:
            first.execute(
                insert(HourLog).values(
                    engineer_id=who.id,
                    course_id=course_id,
                    logged_on=dt.date(2026, 11, 20),
                    hours=20,
                )
            )
            thread = threading.Thread(
                target=lambda: answers.append(
                    app.test_client().post(
                        "/api/v1/hours",
                        json={"course": "FDL", "date": "2026-11-20", "hours": 5},
                        headers={"Authorization": f"Bearer {secret}"},
                    )
                )
            )
            thread.start()
            wait_until_one_waits_for_a_lock(engine)
            first.commit()
            thread.join()
        assert answers[0].status_code == 400
        assert answers[0].get_json() == {
            "errors": {
                "hours": "a day holds at most 24 hours; 20 h are already logged on 2026-11-20"
            }
        }
        with engine.connect() as conn:
            hours = conn.execute(select(HourLog.hours).where(HourLog.engineer_id == who.id))
            assert list(hours.scalars()) == [20]
    finally:
        engine.dispose()
