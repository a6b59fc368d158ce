"""`tracker serve` at its defaults against idle, stalled and oversized clients, over TCP.

Idle connections and uploads stalled mid-body must not hold the threads that
serve everyone else; a body over MAX_CONTENT_LENGTH is answered 413 even to a
client that sends it whole before reading (urllib, curl), not reset.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.live import LiveServer, run_tracker, start_server, tracker_env
from tracker.config import Config

PASSWORD = "a long serve-test password"
OVERSIZED = 5 * 1024 * 1024


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`tracker serve` with no options but its port, on a database with one engineer."""
    folder = tmp_path_factory.mktemp("serve")
    env = tracker_env(f"sqlite:///{folder / 'tracker.db'}")
    run_tracker(env, "init")
    run_tracker(
        env, "user", "add", "lee@example.com", "--name", "Lee", "--role", "engineer",
        "--hired", "2020-01-01", "--password", PASSWORD,
    )  # fmt: skip
    server = start_server(env, folder / "serve.log", None)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def api_token(served: LiveServer) -> str:
    return served.tracker("token", "create", "lee@example.com", "--name", "big").split()[-1]


def _address(server: LiveServer) -> tuple[str, int]:
    parts = urlsplit(server.url)
    assert parts.hostname and parts.port
    return parts.hostname, parts.port


def _timed_get(url: str) -> float:
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        response.read()
    return time.monotonic() - start


def _stalled_upload(address: tuple[str, int], length: int = 200_000) -> socket.socket:
    """Open a form post that declares `length` bytes, send half of them, and stop."""
    sock = socket.create_connection(address, timeout=10)
    sock.sendall(
        b"POST /login HTTP/1.1\r\nHost: tracker\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        + f"Content-Length: {length}\r\n\r\n".encode()
        + b"e" * (length // 2)
    )
    return sock


def test_idle_and_stalled_clients_do_not_delay_a_request(served: LiveServer):
    address = _address(served)
    assert _timed_get(f"{served.url}/login") < 1.0
    idle = [socket.create_connection(address, timeout=10) for _ in range(50)]
    stalled = [_stalled_upload(address) for _ in range(10)]
    # Heads cut short hold nothing either.
    slow_heads = [socket.create_connection(address, timeout=10) for _ in range(5)]
    for sock in slow_heads:
        sock.sendall(b"GET /login HTTP/1.1\r\nHost: tra")
    try:
        time.sleep(0.5)  # the server has accepted and read them all
        timings = [_timed_get(f"{served.url}/login") for _ in range(5)]
        assert max(timings) < 1.0, (timings, served.log.read_text()[-3000:])
        # A stalled upload that goes on is answered as any other request.
        sock = stalled[0]
        sock.sendall(b"e" * 100_000)
        status_line = sock.recv(4096).split(b"\r\n", 1)[0]
        assert re.fullmatch(rb"HTTP/1\.1 [1-4]\d\d .*", status_line), status_line
    finally:
        for sock in idle + stalled + slow_heads:
            sock.close()
    assert "Traceback" not in served.log.read_text()


def _urllib_post(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        with error:
            error.read()
            return error.code


FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def test_urllib_gets_413_for_a_5_mb_body(served: LiveServer, api_token: str):
    assert OVERSIZED > Config().MAX_CONTENT_LENGTH
    form = b"email=lee%40example.com&password=" + b"p" * OVERSIZED
    assert _urllib_post(f"{served.url}/login", form, FORM) == 413
    note = json.dumps({"course": "FDL", "date": "2026-01-05", "hours": 1, "note": "n" * OVERSIZED})
    api = {"Content-Type": "application/json", "Authorization": f"Bearer {api_token}"}
    assert _urllib_post(f"{served.url}/api/v1/hours", note.encode(), api) == 413
    # Without a token too: the size is judged before anything else.
    assert (
        _urllib_post(f"{served.url}/api/v1/hours", note.encode(), api | {"Authorization": ""})
        == 413
    )


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_gets_413_for_a_5_mb_body(served: LiveServer, api_token: str, tmp_path: Path):
    body = tmp_path / "body"
    body.write_bytes(b"email=lee%40example.com&password=" + b"p" * OVERSIZED)

    def curl(path: str, *headers: str) -> str:
        args = ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "30"]
        for header in headers:
            args += ["-H", header]
        args += ["--data-binary", f"@{body}", f"{served.url}{path}"]
        result = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert curl("/login", "Content-Type: application/x-www-form-urlencoded") == "413"
    bearer = f"Authorization: Bearer {api_token}"
    assert curl("/api/v1/hours", "Content-Type: application/json", bearer) == "413"
    # And without `Expect: 100-continue`: the whole body goes out before any answer.
    assert curl("/api/v1/hours", "Content-Type: application/json", bearer, "Expect:") == "413"


def test_a_body_under_the_limit_is_read_whole(served: LiveServer, api_token: str):
    """A large upload that the server buffers reaches the app intact (with curl's Expect)."""
    note = "n" * 300
    padding = " " * (1024 * 1024 + 100_000)  # over curl's Expect threshold, under the limit
    payload = json.dumps({"course": "FDL", "date": "2026-01-05", "hours": 1, "note": note})
    body = payload[:-1] + padding + "}"
    request = urllib.request.Request(
        f"{served.url}/api/v1/hours",
        data=body.encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {api_token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 201
    except urllib.error.HTTPError as error:
        with error:
            raise AssertionError(error.read()) from None
    if shutil.which("curl"):
        start = time.monotonic()
        result = subprocess.run(
            ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "30",
             "-H", "Content-Type: application/json", "-H", f"Authorization: Bearer {api_token}",
             "--data-binary", "@-", f"{served.url}/api/v1/hours"],
            input=body.replace('"2026-01-05"', '"2026-01-06"'), capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        assert result.stdout == "201", result.stderr
        # The server answered curl's `Expect: 100-continue` itself, without its 1 s wait.
        assert time.monotonic() - start < 1.0


def test_several_workers_and_the_scheduler_serve(tmp_path: Path):
    env = tracker_env(f"sqlite:///{tmp_path / 'tracker.db'}")
    run_tracker(env, "init")
    server = start_server(env, tmp_path / "serve.log", 2, "--scheduler")
    try:
        for _ in range(4):
            assert _timed_get(f"{server.url}/login") < 1.0
    finally:
        server.stop()
    log = server.log.read_text()
    assert "Traceback" not in log, log
    assert "2 worker(s)" in log


def test_kept_alive_and_pipelined_requests_are_all_answered(served: LiveServer):
    sock = socket.create_connection(_address(served), timeout=10)
    with sock:
        # Two requests in one packet: the second is read with the first.
        sock.sendall(
            b"GET /login HTTP/1.1\r\nHost: tracker\r\n\r\n"
            b"GET /login HTTP/1.1\r\nHost: tracker\r\nConnection: close\r\n\r\n"
        )
        answers = b""
        while chunk := sock.recv(65536):
            answers += chunk
    assert answers.count(b"HTTP/1.1 200 OK\r\n") == 2


SPANISH = b"Accept-Language: es-ES,es;q=0.9\r\n"


@pytest.mark.parametrize(
    ("request_bytes", "status", "message"),
    [
        # A request line past gunicorn's 4094 bytes: the URL is too long.
        (
            b"GET /api/v1/me?" + b"a" * 5000 + b" HTTP/1.1\r\nHost: tracker\r\n\r\n",
            414,
            "the URL is longer than the server reads: at most 4,094 bytes for the method, URL"
            " and HTTP version together",
        ),
        # A header past 8190 bytes, or more than 100 of them; in the head's language.
        (
            b"GET /api/v1/me HTTP/1.1\r\nHost: tracker\r\n"
            + SPANISH
            + b"X-Big: "
            + b"a" * 9000
            + b"\r\n\r\n",
            431,
            "las cabeceras superan en número o tamaño lo que lee el servidor: como máximo 100"
            " cabeceras, de 8.190 bytes cada una como máximo",
        ),
        (
            b"GET /api/v1/me HTTP/1.1\r\n" + SPANISH + b"X-Many: 1\r\n" * 101 + b"\r\n",
            431,
            "las cabeceras superan en número o tamaño lo que lee el servidor: como máximo 100"
            " cabeceras, de 8.190 bytes cada una como máximo",
        ),
        # Not HTTP: a header name with a space.
        (
            b"GET /api/v1/me HTTP/1.1\r\nHost: tracker\r\nBad Name: 1\r\n\r\n",
            400,
            "the request is not well-formed HTTP",
        ),
    ],
    ids=["long URL", "large header", "many headers", "malformed header"],
)
def test_what_the_server_cannot_read_is_refused_as_the_api_refuses(
    served: LiveServer, request_bytes: bytes, status: int, message: str
):
    """JSON `{"errors": {"request": ...}}`, as every API refusal, not gunicorn's HTML page."""
    with socket.create_connection(_address(served), timeout=10) as sock:
        sock.sendall(request_bytes)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode()), head
    assert b"\r\nContent-Type: application/json\r\n" in head
    assert json.loads(body) == {"errors": {"request": message}}
