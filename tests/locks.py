"""Waiting for a PostgreSQL backend to block on a lock, for tests that stage a race."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Executable, text
from sqlalchemy.engine import Engine

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
