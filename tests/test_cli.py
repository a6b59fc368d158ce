"""The `tracker` command: init (with and without the demo), a second init, serve."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import inspect, select, text

from tests import factories
from tests.live import free_port
from tracker import create_app
from tracker.cli import own_url
from tracker.clock import today_in
from tracker.config import SecretKeys, secret_keys
from tracker.db import Base, make_engine
from tracker.issuer.services import keys
from tracker.people.services.totp import decrypt_secret, new_secret, set_secret

REKEYED_AT = dt.datetime(2026, 12, 5, 9, 0)


@pytest.fixture
def fresh_app(fresh_url: str) -> Iterator[Flask]:
    app = create_app({"DATABASE_URL": fresh_url, "SECRET_KEY": "x"})
    yield app
    app.extensions["tracker.engine"].dispose()


def dump(url: str) -> dict[str, list[tuple]]:
    """Return every row of every table, ordered, to compare whole databases."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return {
                name: [tuple(r) for r in conn.execute(text(f'SELECT * FROM "{name}" ORDER BY 1'))]
                for name in inspect(conn).get_table_names()
            }
    finally:
        engine.dispose()


def test_init_reaches_head_with_every_table_and_a_second_init_changes_nothing(fresh_app, fresh_url):
    runner = fresh_app.test_cli_runner()
    first = runner.invoke(args=["init"])
    assert first.exit_code == 0, first.output
    assert "database at revision" in first.output
    # Every row is counted once and none is missed (counts by identity, kept alive).
    for count in (
        "7 courses",
        "19 credentials",
        "3 exams",
        "8 job_roles",
        "2 learning_paths",
        "5 levels",
        "7 roi_lines",
        "13 specialities",
        "3 team_templates",
        "4 training_strategies",
    ):
        assert f"{count} created" in first.output
    engine = make_engine(fresh_url)
    assert set(inspect(engine).get_table_names()) == set(Base.metadata.tables) | {"alembic_version"}
    engine.dispose()
    before = dump(fresh_url)

    second = runner.invoke(args=["init"])
    assert second.exit_code == 0, second.output
    assert "catalog unchanged" in second.output
    assert dump(fresh_url) == before


def test_init_demo_builds_an_organisation_and_prints_its_logins(fresh_app, fresh_url):
    from tracker.db import make_session_factory
    from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET
    from tracker.people.models import Engineer, Team
    from tracker.progress.models import Certification, ExamAttempt, HourLog
    from tracker.progress.services.validity import Status, status_on

    runner = fresh_app.test_cli_runner()
    result = runner.invoke(args=["init", "--demo"])
    assert result.exit_code == 0, result.output
    assert "admin@example.com" in result.output
    assert "tracker-demo" in result.output
    # The admin's second step: the app secret is printed, and it is the admin's.
    assert DEMO_ADMIN_TOTP_SECRET in result.output

    engine = make_engine(fresh_url)
    with make_session_factory(engine)() as session:
        teams = session.scalars(select(Team)).all()
        bands = {
            ("small" if t.gpus < 100 else "medium" if t.gpus < 1000 else "large") for t in teams
        }
        assert bands == {"small", "medium", "large"}
        engineers = session.scalars(select(Engineer)).all()
        assert len(engineers) >= 12
        assert {e.level for e in engineers} == {1, 2, 3, 4, 5}
        assert {e.access_role for e in engineers} == {"engineer", "manager", "admin"}
        stored = {e.email: e.totp_secret for e in engineers if e.totp_secret}
        assert list(stored) == ["admin@example.com"]
        # Stored encrypted with the app's secret key, as any app secret.
        assert DEMO_ADMIN_TOTP_SECRET not in stored["admin@example.com"]
        assert (
            decrypt_secret(stored["admin@example.com"], secret_keys(fresh_app.config))
            == DEMO_ADMIN_TOTP_SECRET
        )
        assert len({code for e in engineers for code in e.job_role_codes}) >= 6
        attempts = session.scalars(select(ExamAttempt)).all()
        assert {a.passed for a in attempts} == {True, False}
        assert session.scalar(select(HourLog.id).limit(1)) is not None
        # The demo is built relative to the day it runs.
        on = today_in(fresh_app.config)
        states = {status_on(c, on) for c in session.scalars(select(Certification))}
        assert {Status.VALID, Status.EXPIRING, Status.EXPIRED} <= states
    engine.dispose()

    # A second run keeps the organisation as it is.
    before = dump(fresh_url)
    again = runner.invoke(args=["init", "--demo"])
    assert again.exit_code == 0, again.output
    assert dump(fresh_url) == before


def _sign_in_over_http(port: int) -> None:
    import http.cookiejar
    import re
    import urllib.parse

    from tests.factories import PASSWORD

    base = f"http://127.0.0.1:{port}"
    # Two browsers one after the other: each must get a session cookie of its own.
    for _ in range(2):
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(f"{base}/login", timeout=5) as response:
            page = response.read().decode()
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)[1]
        assert any(cookie.name == "session" for cookie in jar)
    body = urllib.parse.urlencode(
        {"csrf_token": token, "email": "server@example.com", "password": PASSWORD}
    ).encode()
    with opener.open(f"{base}/login", data=body, timeout=5) as response:
        assert response.url.endswith("/dashboard"), response.url
        assert "Your progress" in response.read().decode()


@pytest.mark.parametrize(
    ("host", "url"),
    [("127.0.0.1", "http://127.0.0.1:5111"), ("::1", "http://[::1]:5111")],
)
def test_a_server_without_a_public_url_hands_out_its_own(host, url):
    assert own_url(host, 5111) == url


def test_serve_runs_a_real_wsgi_server(fresh_app, fresh_url, tmp_path: Path):
    runner = fresh_app.test_cli_runner()
    assert runner.invoke(args=["init"]).exit_code == 0
    from tests.factories import PASSWORD

    added = runner.invoke(
        args=["user", "add", "server@example.com", "--name", "Server Test", "--password", PASSWORD]
    )
    assert added.exit_code == 0, added.output
    port = free_port()
    env = {**os.environ, "TRACKER_DATABASE_URL": fresh_url, "TRACKER_SECRET_KEY": "x"}
    # Without a public URL set, the links the server hands out are its own address.
    env.pop("TRACKER_BASE_URL", None)
    tracker = Path(sys.executable).with_name("tracker")
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [str(tracker), "serve", "--port", str(port)], env=env, stdout=log, stderr=log
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                    body = response.read().decode()
                    server = response.headers.get("Server", "")
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail((tmp_path / "serve.log").read_text())
                time.sleep(0.2)
        assert "Foundations" in body and "NCA-AIIO" in body
        assert "gunicorn" in server
        # Requests must not share state: a fresh CSRF token in a session cookie
        # each time, and a sign-in that goes through.
        _sign_in_over_http(port)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/did.json", timeout=5) as response:
            assert json.load(response)["id"] == f"did:web:127.0.0.1%3A{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


# --- rekey ---------------------------------------------------------------------------


def test_rekey_stores_every_secret_and_issuer_key_under_the_new_key_and_reports_it(
    runner, db, rotated: SecretKeys
):
    person = factories.engineer(db)
    secret = new_secret()
    set_secret(db, person, secret, secret_key=factories.SECRET_KEY)
    row = keys.create_key(db, factories.SECRET_KEY, REKEYED_AT)
    db.flush()

    result = runner.invoke(args=["rekey"])
    assert result.exit_code == 0, result.output
    assert "1 two-step sign-in secret(s) and 1 issuer key(s) encrypted under the current key" in (
        result.output
    )
    db.expire_all()
    new_only = SecretKeys(rotated.current)
    assert person.totp_secret is not None
    assert decrypt_secret(person.totp_secret, new_only) == secret
    assert keys.private_key(row, new_only) is not None

    again = runner.invoke(args=["rekey"])
    assert again.exit_code == 0, again.output
    assert "0 two-step sign-in secret(s) and 0 issuer key(s)" in again.output


def test_rekey_names_what_no_key_opens_and_fails(runner, db, rotated: SecretKeys):
    lost = factories.engineer(db)
    set_secret(db, lost, new_secret(), secret_key="a key older than both")
    row = keys.create_key(db, "a key older than both", REKEYED_AT)
    db.flush()

    result = runner.invoke(args=["rekey"])
    assert result.exit_code == 1
    assert f"the authenticator secret of {lost.email}" in result.output
    assert f"the issuer's signing key {keys.method_name(row)}" in result.output
    assert "tracker user reset-totp EMAIL" in result.output
