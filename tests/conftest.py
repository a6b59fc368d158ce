"""Fixtures after flaskr: app, client, runner; plus db, a per-test rolled-back session.

The database is migrated (not create_all) and seeded once per run; each test
runs inside a transaction on one connection that is rolled back afterwards,
so tests see the seeded catalog and leave nothing behind.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlalchemy import make_url, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from tests.factories import NEW_SECRET_KEY, PASSWORD, SECRET_KEY, SEED, TODAY
from tests.helpers import WEBHOOK_HOSTS, post_login, sign_in
from tests.locks import impatient_engine
from tracker import TRANSLATIONS_DIR, create_app
from tracker.catalog.services.seed_loading import load_seed
from tracker.config import SecretKeys, secret_keys
from tracker.db import make_engine, run_migrations, session_scope
from tracker.extensions import SignInLimiter
from tracker.people.models import Engineer

# Tests that serve the tracker on a SQLite file of their own, or check pages with
# outside tools: the suite's database changes nothing they check, so CI runs
# them once (`-m "not once"` on its second database).
RUN_ONCE = (
    "browser/",
    "serve/",
    "security/test_live.py",
    "test_html_validity.py",
    "identity/test_html_validity.py",
    "issuer/test_html_validity.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests that CI runs on one database only."""
    here = Path(__file__).parent
    once = pytest.mark.once
    for item in items:
        where = Path(str(item.fspath)).relative_to(here).as_posix()
        if where.startswith(RUN_ONCE):
            item.add_marker(once)


def _prepare(url: str) -> None:
    """Migrate an empty database to head and load the seed catalog."""
    engine = make_engine(url)
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    run_migrations(url)
    with session_scope(sessionmaker(bind=engine)) as session:
        load_seed(session, SEED)
    engine.dispose()


def _worker_database(url: str) -> str:
    """Return a PostgreSQL database of this xdist worker's own beside the suite's `url`."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    suite = make_url(url)
    if not worker:
        return url
    name = f"{suite.database}_{worker}"
    admin = make_engine(url)
    try:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return suite.set(database=name).render_as_string(hide_password=False)


def compile_catalogues(directory: Path) -> None:
    """Compile each catalogue (.po) whose .mo is missing or older, as `make translations` does."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in directory.glob("*/LC_MESSAGES/*.po"):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source)
        # Written aside and renamed: xdist workers compile side by side.
        partial = mo.with_name(f"{mo.name}.{os.getpid()}")
        with partial.open("wb") as target:
            write_mo(target, catalog)
        os.replace(partial, mo)


@pytest.fixture(autouse=True, scope="session")
def compiled_translations() -> None:
    """Give a bare `pytest` run (and the servers it starts) the compiled catalogues."""
    compile_catalogues(TRANSLATIONS_DIR)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    # Workers running side by side each migrate and roll back in a database of their own.
    suite = os.environ.get("TRACKER_TEST_DATABASE_URL")
    url = _worker_database(suite) if suite else f"sqlite:///{tmp_path_factory.mktemp('db')}/test.db"
    _prepare(url)
    return url


@pytest.fixture(scope="session")
def app(database_url: str) -> Iterator[Flask]:
    application = create_app(
        {
            "DATABASE_URL": database_url,
            "TESTING": True,
            "SECRET_KEY": SECRET_KEY,
            "SEED_PATH": str(SEED),
            # Forms post without tokens; the csrf_enabled fixture turns it on.
            "WTF_CSRF_ENABLED": False,
            # The badge tests' issuer is a server on this machine (tests/badges/conftest.py).
            "BADGE_ALLOW_HOSTS": "127.0.0.1",
            "WEBHOOK_ALLOW_HOSTS": WEBHOOK_HOSTS,
        }
    )
    yield application
    # Close pooled connections now, not at interpreter exit (a ResourceWarning).
    application.extensions["tracker.engine"].dispose()


@pytest.fixture
def db(app: Flask) -> Iterator[Session]:
    """Yield a session whose work is rolled back after the test; the app shares it."""
    engine = app.extensions["tracker.engine"]
    saved = app.extensions["tracker.sessions"]
    connection = engine.connect()
    outer = connection.begin()
    factory = sessionmaker(
        bind=connection, join_transaction_mode="create_savepoint", expire_on_commit=False
    )
    app.extensions["tracker.sessions"] = factory
    session = factory()
    try:
        yield session
    finally:
        session.close()
        app.extensions["tracker.sessions"] = saved
        outer.rollback()
        connection.close()


@pytest.fixture
def client(app: Flask, db: Session) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask, db: Session) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture(autouse=True, scope="session")
def cheap_password_hashing() -> Iterator[None]:
    """Hash test passwords with few iterations; production uses scrypt."""
    from tracker.people.services import accounts

    saved = accounts.PASSWORD_METHOD
    accounts.PASSWORD_METHOD = "pbkdf2:sha256:1000"
    yield
    accounts.PASSWORD_METHOD = saved


@pytest.fixture
def csrf_enabled(app: Flask) -> Iterator[None]:
    """Turn CSRF protection on for one test (the suite posts forms without tokens)."""
    app.config["WTF_CSRF_ENABLED"] = True
    yield
    app.config["WTF_CSRF_ENABLED"] = False


def _keys_for_one_test(app: Flask, current: str, fallbacks: list[str]) -> Iterator[SecretKeys]:
    saved = app.config["SECRET_KEY"], app.config["SECRET_KEY_FALLBACKS"]
    app.config["SECRET_KEY"], app.config["SECRET_KEY_FALLBACKS"] = current, fallbacks
    try:
        yield secret_keys(app.config)
    finally:
        app.config["SECRET_KEY"], app.config["SECRET_KEY_FALLBACKS"] = saved


@pytest.fixture
def rotated(app: Flask) -> Iterator[SecretKeys]:
    """Rotate the secret key for one test: a new key, the suite's kept as its fallback."""
    yield from _keys_for_one_test(app, NEW_SECRET_KEY, [SECRET_KEY])


@pytest.fixture
def replaced(app: Flask) -> Iterator[SecretKeys]:
    """Replace the secret key for one test with no fallback: the suite's opens nothing."""
    yield from _keys_for_one_test(app, NEW_SECRET_KEY, [])


class AuthActions:
    """Sign in and out through the real form, as flaskr's tests do."""

    def __init__(self, client: FlaskClient) -> None:
        self._client = client

    def login(self, email: str, password: str = PASSWORD):
        return post_login(self._client, email, password)

    def sign_in(self, who: Engineer | str, password: str = PASSWORD):
        return sign_in(self._client, who, password)

    def logout(self):
        return self._client.post("/logout")


@pytest.fixture
def auth(client: FlaskClient) -> AuthActions:
    return AuthActions(client)


@pytest.fixture
def today() -> dt.date:
    return TODAY


@pytest.fixture
def pinned_today(app: Flask, monkeypatch: pytest.MonkeyPatch) -> dt.date:
    """Pin the app's today, for pages and commands alike, to factories.TODAY."""
    monkeypatch.setitem(app.config, "TODAY", TODAY)
    return TODAY


@pytest.fixture
def limiter(app: Flask) -> Iterator[SignInLimiter]:
    """Give the app a sign-in limiter of this test's own, with the app's limits."""
    saved = app.extensions["tracker.signin_limiter"]
    fresh = SignInLimiter(
        "memory://", app.config["SIGNIN_LIMIT_PER_ACCOUNT"], app.config["SIGNIN_LIMIT_PER_ADDRESS"]
    )
    app.extensions["tracker.signin_limiter"] = fresh
    yield fresh
    app.extensions["tracker.signin_limiter"] = saved


@pytest.fixture
def totp_limiter(app: Flask) -> Iterator[SignInLimiter]:
    """Give the app a limiter of second-step codes of this test's own, with the app's limits."""
    saved = app.extensions["tracker.totp_limiter"]
    fresh = SignInLimiter(
        "memory://",
        app.config["SIGNIN_LIMIT_PER_ACCOUNT"],
        app.config["SIGNIN_LIMIT_PER_ADDRESS"],
        "totp",
    )
    app.extensions["tracker.totp_limiter"] = fresh
    yield fresh
    app.extensions["tracker.totp_limiter"] = saved


@pytest.fixture
def fresh_url(tmp_path: Path) -> str:
    """Return the URL of an empty SQLite file of this test's own."""
    return f"sqlite:///{tmp_path / 'fresh.db'}"


def _fresh_database(url: str) -> None:
    """Migrate and seed a database whose requests commit."""
    run_migrations(url)
    engine = make_engine(url)
    try:
        with session_scope(sessionmaker(bind=engine)) as session:
            load_seed(session, SEED)
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def scratch_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of its own, for a test that migrates it or whose requests commit.

    SQLite always; PostgreSQL when the suite runs on it (TRACKER_TEST_DATABASE_URL),
    as a scratch database beside the suite's, dropped afterwards.
    """
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'scratch.db'}"
        return
    suite_url = make_url(os.environ.get("TRACKER_TEST_DATABASE_URL") or "sqlite://")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if suite_url.get_backend_name() != "postgresql":
        pytest.skip("PostgreSQL only (set TRACKER_TEST_DATABASE_URL)")
    name = f"{suite_url.database}_{worker or 'main'}_scratch"
    admin = make_engine(suite_url.render_as_string(hide_password=False))
    try:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield suite_url.set(database=name).render_as_string(hide_password=False)
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture
def racing_url(scratch_url: str) -> str:
    """A migrated, seeded database of its own, where requests commit and race."""
    _fresh_database(scratch_url)
    return scratch_url


@pytest.fixture
def other_writer(racing_url: str) -> Iterator[Engine]:
    """Another process's connection to the racing database, which waits only so long."""
    engine = impatient_engine(racing_url)
    yield engine
    engine.dispose()
