"""The engines' pools: a connection kept for each thread of a worker."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import event

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
