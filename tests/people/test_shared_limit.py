"""The sign-in limit holds across workers and hosts through shared storage (Redis)."""

from __future__ import annotations

import socket
import uuid

import pytest

from tracker.extensions import SignInLimiter

REDIS = "redis://127.0.0.1:6379/15"


def _redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _redis_up(), reason="Redis is not reachable on 127.0.0.1:6379")


def test_failures_counted_by_one_worker_block_sign_in_at_another():
    """Two workers (two limiters on one Redis) share the per-account count."""
    email = f"{uuid.uuid4().hex}@example.com"
    worker_a = SignInLimiter(REDIS, "5/15minutes", "30/15minutes")
    worker_b = SignInLimiter(REDIS, "5/15minutes", "30/15minutes")
    for attempt in range(5):
        limiter = worker_a if attempt % 2 else worker_b
        assert not limiter.blocked(email, "10.9.0.1")
        limiter.failed(email, "10.9.0.1")
    assert worker_a.blocked(email, "10.9.0.2")
    assert worker_b.blocked(email, "10.9.0.3")


def test_the_app_uses_the_configured_storage(app):
    limiter = app.extensions["tracker.signin_limiter"]
    assert limiter is not None
    shared = SignInLimiter(REDIS, app.config["SIGNIN_LIMIT_PER_ACCOUNT"], "30/15minutes")
    assert type(shared.limiter.storage).__name__.lower().startswith("redis")
