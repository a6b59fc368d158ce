"""The engines' pools: a connection kept for each thread of a worker."""

from __future__ import annotations

import os
import threading

import pytest
from sqlalchemy import event, make_url, text

from tracker import create_app
from tracker.config import Config
from tracker.db import DEFAULT_POOL_SIZE, make_engine


def test_threads_up_to_the_pool_size_reuse_their_connections(fresh_url: str):
    engine = make_engine(fresh_url, pool_size=4)
    opened: list[object] = []
    event.listen(engine, "connect", lambda *args: opened.append(args))
    together = threading.Barrier(4)

    def work() -> None:
        for _ in range(3):
            with engine.connect():
                together.wait(timeout=10)  # all four hold one at once
            together.wait(timeout=10)

    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        engine.dispose()
    # Past the pool's size, a connection would be closed when returned and opened again.
    assert len(opened) == 4


def test_the_pool_size_is_configurable(monkeypatch: pytest.MonkeyPatch, fresh_url: str):
    monkeypatch.delenv("TRACKER_DATABASE_POOL_SIZE", raising=False)
    assert Config(SECRET_KEY="x").DATABASE_POOL_SIZE == DEFAULT_POOL_SIZE == 8
    monkeypatch.setenv("TRACKER_DATABASE_POOL_SIZE", "12")
    assert Config(SECRET_KEY="x").DATABASE_POOL_SIZE == 12
    app = create_app({"DATABASE_URL": fresh_url, "SECRET_KEY": "x", "DATABASE_POOL_SIZE": 3})
    try:
        assert app.extensions["tracker.engine"].pool.size() == 3
    finally:
        app.extensions["tracker.engine"].dispose()


@pytest.mark.parametrize("value", ["eight", "0", "-1", "2.5"])
def test_a_pool_size_that_is_not_a_whole_number_stops_the_start(monkeypatch, value) -> None:
    monkeypatch.setenv("TRACKER_DATABASE_POOL_SIZE", value)
    with pytest.raises(ValueError, match="TRACKER_DATABASE_POOL_SIZE must be a whole number"):
        Config(SECRET_KEY="x")


def test_a_pool_size_given_is_the_pool_s(monkeypatch) -> None:
    monkeypatch.setenv("TRACKER_DATABASE_POOL_SIZE", " 12 ")
    assert Config(SECRET_KEY="x").DATABASE_POOL_SIZE == 12


def _suite_postgres_url() -> str:
    url = os.environ.get("TRACKER_TEST_DATABASE_URL", "")
    if not url.startswith("postgresql"):
        pytest.skip("PostgreSQL only (set TRACKER_TEST_DATABASE_URL)")
    return url


def _parallel_workers(url: str) -> str:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text("SHOW max_parallel_workers_per_gather")).scalar_one()
    finally:
        engine.dispose()


def test_postgresql_plans_without_parallel_workers() -> None:
    assert _parallel_workers(_suite_postgres_url()) == "0"


def test_a_url_that_sets_its_own_options_keeps_them() -> None:
    url = make_url(_suite_postgres_url())
    own = url.update_query_dict({"options": "-c max_parallel_workers_per_gather=1"})
    assert _parallel_workers(own.render_as_string(hide_password=False)) == "1"
