"""The sign-in limit holds across workers and hosts through shared storage (Redis).

Each test signs in as an account and from addresses of its own, and clears what it
counted, so runs that share the Redis cannot count against each other.
"""

from __future__ import annotations

import ipaddress
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tracker import create_app
from tracker.extensions import SignInLimiter

REDIS = "redis://127.0.0.1:6379/15"
PER_ACCOUNT = "5/15minutes"
PER_ADDRESS = "30/15minutes"


def _redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _redis_up(), reason="Redis is not reachable on 127.0.0.1:6379")


@dataclass
class Caller:
    email: str
    addresses: tuple[str, ...]


@pytest.fixture
def caller() -> Iterator[Caller]:
    """Yield an account and three addresses no other run uses; clear their counts after."""
    run = uuid.uuid4()
    addresses = tuple(str(ipaddress.IPv6Address((run.int + n) % 2**128)) for n in range(3))
    found = Caller(f"{run.hex}@example.com", addresses)
    yield found
    storage = SignInLimiter(REDIS, PER_ACCOUNT, PER_ADDRESS)
    for address in found.addresses:
        for limit, kind, key in storage._keys(found.email, address):
            storage.limiter.clear(limit, "signin", kind, key)


def test_failures_counted_by_one_worker_block_sign_in_at_another(caller: Caller) -> None:
    """Two workers (two limiters on one Redis) share the per-account count."""
    first, second, third = caller.addresses
    worker_a = SignInLimiter(REDIS, PER_ACCOUNT, PER_ADDRESS)
    worker_b = SignInLimiter(REDIS, PER_ACCOUNT, PER_ADDRESS)
    for attempt in range(5):
        limiter = worker_a if attempt % 2 else worker_b
        assert not limiter.blocked(caller.email, first)
        limiter.failed(caller.email, first)
    assert worker_a.blocked(caller.email, second)
    assert worker_b.blocked(caller.email, third)


def test_the_app_counts_in_the_configured_storage(caller: Caller) -> None:
    """An app set up with a Redis URL counts failures where another worker reads them."""
    app = create_app(
        {
            "DATABASE_URL": "sqlite://",
            "SECRET_KEY": "x",
            "RATELIMIT_STORAGE_URL": REDIS,
            "SIGNIN_LIMIT_PER_ACCOUNT": PER_ACCOUNT,
            "SIGNIN_LIMIT_PER_ADDRESS": PER_ADDRESS,
        }
    )
    try:
        limiter = app.extensions["tracker.signin_limiter"]
        assert type(limiter.limiter.storage).__name__.lower().startswith("redis")
        other_worker = SignInLimiter(REDIS, PER_ACCOUNT, PER_ADDRESS)
        first, second, _ = caller.addresses
        for _attempt in range(5):
            limiter.failed(caller.email, first)
        assert other_worker.blocked(caller.email, second)
    finally:
        app.extensions["tracker.engine"].dispose()
