"""Waiting for a PostgreSQL backend to block on a lock, for tests that stage a race."""

from __future__ import annotations

import time

from sqlalchemy import text
from sqlalchemy.engine import Engine


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
