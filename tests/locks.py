"""Waiting for a PostgreSQL backend to block on a lock, for tests that stage a race."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import pytest
from flask import Flask
from sqlalchemy import Executable, text
from sqlalchemy.engine import Engine

from tests import factories
from tracker import create_app
from tracker.db import make_engine

T = TypeVar("T")


def wait_until_one_waits_for_a_lock(engine: Engine, timeout: float = 10.0) -> None:
    """Return once a session of the engine's database waits for a lock another holds."""
    deadline = time.monotonic() + timeout
    with engine.connect() as conn:
        while time.monotonic() < deadline:
            waiting = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
            ).scalar_one()
            conn.rollback()
            if waiting:
                return
            time.sleep(0.01)
    raise AssertionError("no session waited for a lock")


def while_another_writes(
    engine: Engine, change: Executable | tuple[Executable, ...], write: Callable[[], T]
) -> T:
    """Run `write` while another transaction holds `change` uncommitted; return its result.

    The change commits once `write` waits for a lock: a `write` that never waits
    (it holds nothing the change holds) fails the wait.
    """
    results: list[T] = []
    with engine.connect() as other:
        for statement in change if isinstance(change, tuple) else (change,):
            other.execute(statement)
        thread = threading.Thread(target=lambda: results.append(write()))
        thread.start()
        try:
            wait_until_one_waits_for_a_lock(engine)
        finally:
            other.commit()
            thread.join()
    (result,) = results
    return result


def racing_engine(url: str) -> Engine:
    """Return an engine on `url`; skip unless it is PostgreSQL."""
    _postgresql_only(url)
    return make_engine(url)


def racing_app(url: str, **config: object) -> Flask:
    """Return an app on `url` whose requests commit; skip unless it is PostgreSQL."""
    _postgresql_only(url)
    return committing_app(url, **config)


def committing_app(url: str, **config: object) -> Flask:
    """Return an app on `url` whose requests commit, on either database."""
    return create_app(
        {
            "DATABASE_URL": url,
            "SECRET_KEY": "race",
            "TESTING": True,
            "TODAY": factories.TODAY,
            "WTF_CSRF_ENABLED": False,
            **config,
        }
    )


def _postgresql_only(url: str) -> None:
    # SQLite's writers take turns for the whole transaction: nothing to race.
    if not url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL only (SQLite's writers take turns)")


# How long another writer waits for what a request might hold before giving up.
PATIENCE_MS = 2000


def impatient_engine(url: str) -> Engine:
    """Return an engine on `url` for another writer, which waits PATIENCE_MS at most."""
    return make_engine(url, sqlite_busy_timeout_ms=PATIENCE_MS)


def writing_meanwhile(engine: Engine, change: Executable, done: list[str]) -> Callable[[], None]:
    """Return what commits `change` on `engine` at once (noting it in `done`), or gives up."""

    def write() -> None:
        with engine.begin() as conn:
            if engine.dialect.name == "postgresql":
                conn.execute(text(f"SET LOCAL lock_timeout = {PATIENCE_MS}"))
            conn.execute(change)
        done.append("committed")

    return write
