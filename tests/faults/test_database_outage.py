"""The database unavailable, locked or lost in the middle of a request.

Each answer is a clear 503 (a page for the browser, `{"errors": {"database":
...}}` for the API), never a 500 with a traceback, and nothing of the
request's work is kept: what it had flushed is rolled back.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import PASSWORD, TODAY
from tests.live import free_port
from tracker import create_app
from tracker.config import Config
from tracker.db import session_scope
from tracker.people.services.accounts import create_token
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.web.database import DATABASE_UNAVAILABLE

SECRET = "fault-suite-secret"


def _app(url: str, **config: object) -> Flask:
    return create_app(
        {
            "DATABASE_URL": url,
            "SECRET_KEY": SECRET,
            "WTF_CSRF_ENABLED": False,
            "TODAY": TODAY,
            **config,
        }
    )


def assert_unavailable_page(response) -> None:
    assert response.status_code == 503
    assert response.mimetype == "text/html"
    body = response.get_data(as_text=True)
    assert DATABASE_UNAVAILABLE in body
    assert "Traceback" not in body
    assert response.headers["Retry-After"] == "60"
    assert response.headers["X-Frame-Options"] == "DENY"


def assert_unavailable_json(response) -> None:
    assert response.status_code == 503
    assert response.get_json() == {"errors": {"database": DATABASE_UNAVAILABLE}}


# --- a database that cannot be reached ----------------------------------------------------


def _signed_in_cookie(database_url: str, email: str) -> str:
    """Sign in on a working app with the same secret; return its session cookie."""
    app = _app(database_url)
    try:
        client = app.test_client()
        assert client.post("/login", data={"email": email, "password": PASSWORD}).status_code == 302
        return client.get_cookie("session").value
    finally:
        app.extensions["tracker.engine"].dispose()


@pytest.fixture
def working_url(fresh_url: str) -> Iterator[str]:
    """A migrated, seeded database holding one engineer (lee@example.com)."""
    app = _app(fresh_url)
    assert app.test_cli_runner().invoke(args=["init"]).exit_code == 0
    with session_scope(app.extensions["tracker.sessions"]) as session:
        factories.engineer(session, email="lee@example.com")
    app.extensions["tracker.engine"].dispose()
    yield fresh_url


def _unreachable_urls(tmp_path: Path) -> list[str]:
    urls = [f"sqlite:///{tmp_path / 'no-such-folder' / 'tracker.db'}"]
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return urls
    urls.append(f"postgresql+psycopg://tracker@127.0.0.1:{free_port()}/tracker?connect_timeout=2")
    return urls


def test_an_unreachable_database_answers_503_everywhere(tmp_path: Path, working_url: str):
    cookie = _signed_in_cookie(working_url, "lee@example.com")
    for url in _unreachable_urls(tmp_path):
        app = _app(url)
        try:
            client = app.test_client()
            assert_unavailable_page(client.get("/catalog"))
            assert_unavailable_page(client.post("/login", data={"email": "a@b.c", "password": "x"}))
            assert_unavailable_json(
                client.get("/api/v1/me", headers={"Authorization": "Bearer trk_x"})
            )
            # A signed-in visitor: loading the user is the query that fails; the page
            # is still drawn (for no one in particular) without a second try.
            client.set_cookie("session", cookie)
            response = client.get("/dashboard")
            assert_unavailable_page(response)
            assert "Sign in" in response.get_data(as_text=True)
            response = client.post("/hours", data={"course": "1", "hours": "1"})
            assert_unavailable_page(response)
        finally:
            app.extensions["tracker.engine"].dispose()


# --- a database locked by another writer -----------------------------------------------------


@pytest.fixture
def locked_app(working_url: str) -> Iterator[tuple[Flask, str]]:
    app = _app(working_url, SQLITE_BUSY_TIMEOUT_MS=300)
    try:
        yield app, working_url.removeprefix("sqlite:///")
    finally:
        app.extensions["tracker.engine"].dispose()


def _hour_count(path: str) -> int:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT COUNT(*) FROM hour_logs").fetchone()[0]


def test_a_locked_database_answers_503_and_writes_nothing(locked_app):
    app, path = locked_app
    client = app.test_client()
    assert (
        client.post("/login", data={"email": "lee@example.com", "password": PASSWORD}).status_code
        == 302
    )
    with app.app_context(), session_scope(app.extensions["tracker.sessions"]) as session:
        from tracker.people.services.reads import find_engineer

        token = create_token(session, find_engineer(session, "lee@example.com"), "fault")[1]
        course_id = factories.course(session, "FDL").id
    form = {"course": str(course_id), "logged_on": TODAY.isoformat(), "hours": "2", "note": "x"}
    body = {"course": "FDL", "date": TODAY.isoformat(), "hours": 2}
    bearer = {"Authorization": f"Bearer {token}"}

    holder = sqlite3.connect(path, isolation_level=None, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        response = client.post("/hours", data=form)
        waited = time.monotonic() - started
        assert_unavailable_page(response)
        assert 0.25 <= waited < 5, "the writer waits SQLITE_BUSY_TIMEOUT_MS, then gives up"
        assert_unavailable_json(client.post("/api/v1/hours", json=body, headers=bearer))
        # Readers are not blocked (WAL): the pages still show.
        assert client.get("/hours").status_code == 200
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    assert _hour_count(path) == 0
    # No "Logged 2 h" message was left behind for the next page to show.
    assert "Logged" not in client.get("/hours").get_data(as_text=True)
    # The lock gone, the same requests go through.
    assert client.post("/hours", data=form).status_code == 302
    assert client.post("/api/v1/hours", json=body, headers=bearer).status_code == 201
    assert _hour_count(path) == 2


def test_the_busy_timeout_is_configurable(monkeypatch: pytest.MonkeyPatch, fresh_url: str):
    monkeypatch.delenv("TRACKER_SQLITE_BUSY_TIMEOUT_MS", raising=False)
    assert Config(SECRET_KEY="x").SQLITE_BUSY_TIMEOUT_MS == 15000
    monkeypatch.setenv("TRACKER_SQLITE_BUSY_TIMEOUT_MS", "2500")
    assert Config(SECRET_KEY="x").SQLITE_BUSY_TIMEOUT_MS == 2500
    app = _app(fresh_url, SQLITE_BUSY_TIMEOUT_MS=1234)
    try:
        with app.extensions["tracker.engine"].connect() as connection:
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 1234
    finally:
        app.extensions["tracker.engine"].dispose()


# --- the connection lost in the middle of a request --------------------------------------------


def _lost(*args, **kwargs):
    raise OperationalError(
        "INSERT INTO audit_events ...",
        {},
        Exception("server closed the connection unexpectedly"),
        connection_invalidated=True,
    )


@pytest.fixture
def engineer(db: Session, pinned_today):
    return factories.engineer(db)


def _counts(db: Session) -> tuple[int, ...]:
    db.expire_all()
    return tuple(
        db.scalar(select(func.count()).select_from(m))
        for m in (HourLog, ExamAttempt, Certification)
    )


def test_a_connection_lost_after_the_rows_were_flushed_keeps_none_of_them(
    client: FlaskClient, db: Session, engineer, monkeypatch: pytest.MonkeyPatch
):
    token = create_token(db, engineer, "fault")[1]
    assert (
        client.post("/login", data={"email": engineer.email, "password": PASSWORD}).status_code
        == 302
    )
    before = _counts(db)
    # The hour log and the attempt (with its certification) are flushed; the audit
    # record that follows them loses the connection.
    monkeypatch.setattr("tracker.audit.services.record", _lost)
    monkeypatch.setattr("tracker.audit.services.record_row", _lost)
    form = {
        "course": str(factories.course(db, "FDL").id),
        "logged_on": TODAY.isoformat(),
        "hours": "1",
    }
    assert_unavailable_page(client.post("/hours", data=form))
    response = client.post(
        "/api/v1/exam-attempts",
        json={"exam": "NCA-AIIO", "date": TODAY.isoformat(), "score": 90, "passed": True},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert_unavailable_json(response)
    assert _counts(db) == before


def test_a_commit_that_fails_answers_503_and_keeps_nothing(
    client: FlaskClient, db: Session, engineer, monkeypatch: pytest.MonkeyPatch
):
    assert (
        client.post("/login", data={"email": engineer.email, "password": PASSWORD}).status_code
        == 302
    )
    before = _counts(db)
    factory = client.application.extensions["tracker.sessions"]
    monkeypatch.setattr(factory.class_, "commit", _lost)
    response = client.post(
        "/hours",
        data={
            "course": str(factories.course(db, "FDL").id),
            "logged_on": (TODAY - dt.timedelta(days=1)).isoformat(),
            "hours": "3",
        },
    )
    monkeypatch.undo()
    assert_unavailable_page(response)
    assert _counts(db) == before


def test_other_database_errors_are_not_hidden_as_outages(
    client: FlaskClient, db: Session, engineer, monkeypatch: pytest.MonkeyPatch
):
    """A broken constraint is a bug: it is not dressed up as "try again later"."""
    assert (
        client.post("/login", data={"email": engineer.email, "password": PASSWORD}).status_code
        == 302
    )

    def broken(*args, **kwargs):
        raise IntegrityError("INSERT ...", {}, Exception("constraint failed"))

    monkeypatch.setattr("tracker.audit.services.record_row", broken)
    with pytest.raises(IntegrityError):  # TESTING propagates what would be a 500
        client.post(
            "/hours",
            data={
                "course": str(factories.course(db, "FDL").id),
                "logged_on": TODAY.isoformat(),
                "hours": "1",
            },
        )
