"""HTTP clients of a running server: a bounded concurrent one, hour logs, signing in."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import random
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

Request = tuple[str, str, bytes | None, dict[str, str]]


@dataclass
class Hammered:
    """What a bounded client saw: statuses, errors, requests per second."""

    seconds: float
    statuses: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)

    @property
    def completed(self) -> int:
        return sum(self.statuses.values())

    @property
    def rps(self) -> float:
        return self.completed / self.seconds if self.seconds else 0.0

    def count(self, low: int, high: int) -> int:
        return sum(n for status, n in self.statuses.items() if low <= status < high)


def hammer(
    port: int,
    make_request: Callable[[random.Random, int], Request],
    seconds: float,
    clients: int,
    on_response: Callable[[int, Request, int, bytes], None] | None = None,
    seed: int = 11,
) -> Hammered:
    """Run `clients` threads sending requests for `seconds`; each thread keeps its connection."""
    result = Hammered(seconds)
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    start = threading.Barrier(clients + 1)

    def client(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        statuses: Counter = Counter()
        errors: Counter = Counter()
        latencies = []
        start.wait()
        while time.monotonic() < deadline:
            request = make_request(rng, number)
            method, path, body, headers = request
            began = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException) as exc:
                errors[type(exc).__name__] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            latencies.append(time.perf_counter() - began)
            statuses[response.status] += 1
            if on_response is not None:
                on_response(number, request, response.status, payload)
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
        conn.close()
        with lock:
            result.statuses.update(statuses)
            result.errors.update(errors)
            result.latencies.extend(latencies)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    began = time.monotonic()
    for t in threads:
        t.join()
    result.seconds = time.monotonic() - began
    return result


def hours_request(tokens, course: str, today: dt.date, spread_days: int = 365):
    """Return a request maker: POST /api/v1/hours of 0.25 h on a random day for a random token."""

    def make(rng: random.Random, client: int) -> Request:
        _, secret, hired_on = tokens[rng.randrange(len(tokens))]
        first = max(hired_on, today - dt.timedelta(days=spread_days))
        day = first + dt.timedelta(days=rng.randint(0, max(0, (today - first).days)))
        body = json.dumps(
            {"course": course, "date": day.isoformat(), "hours": 0.25, "note": "bench"}
        ).encode()
        return (
            "POST",
            "/api/v1/hours",
            body,
            {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
        )

    return make


def sign_in(port: int, email: str, password: str) -> str:
    """Sign in through the form of a running server (with its CSRF token); return the cookie."""
    import re

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/login")
    response = conn.getresponse()
    page = response.read().decode()
    cookie = response.getheader("Set-Cookie", "").split(";")[0]
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    fields = {"email": email, "password": password}
    if match:
        fields["csrf_token"] = match.group(1)
    body = urllib.parse.urlencode(fields)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(
        "POST",
        "/login",
        body=body.encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
    )
    response = conn.getresponse()
    response.read()
    if response.status not in (302, 303):
        raise RuntimeError(f"sign-in as {email} answered {response.status}")
    cookie = response.getheader("Set-Cookie", "").split(";")[0] or cookie
    if urllib.parse.urlsplit(response.getheader("Location", "")).path == "/login/totp":
        cookie = _second_step(port, cookie)
    return cookie


def _second_step(port: int, cookie: str) -> str:
    """Give the generated admin's code (the demo's known app secret); return the cookie."""
    import re

    import pyotp

    from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/login/totp", headers={"Cookie": cookie})
    page = conn.getresponse().read().decode()
    fields = {"code": pyotp.TOTP(DEMO_ADMIN_TOTP_SECRET).now()}
    if match := re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page):
        fields["csrf_token"] = match.group(1)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(
        "POST",
        "/login/totp",
        body=urllib.parse.urlencode(fields).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
    )
    response = conn.getresponse()
    response.read()
    if response.status not in (302, 303):
        raise RuntimeError(f"the second step answered {response.status}")
    return response.getheader("Set-Cookie", "").split(";")[0] or cookie


def get(port: int, path: str, cookie: str = "", timeout: float = 300) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    response = conn.getresponse()
    return response.status, response.read()
