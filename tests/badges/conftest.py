"""A real HTTP server for the badge tests: it serves the paths a test gives it.

One server (a thread on 127.0.0.1) for the session; each test says which paths
answer what (a body, a status, headers) and sees the requests it got.
`issuer` publishes Open Badges 2.0 assertions, badge classes and issuers on it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tracker.badges.services.mapping import map_badge_class
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.progress.services.certifications import credential_for_entry, record_credential


@dataclass
class Answer:
    """What a path answers."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    # Run before answering: what happens elsewhere while an issuer is asked.
    before: Callable[[], None] | None = None


@dataclass
class Seen:
    """A request the server got."""

    path: str
    headers: dict[str, str]


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A client that stops reading (a body over its limit) is expected, not an error."""


class PathServer:
    """Serves given paths with given bodies and statuses; 404 for any other."""

    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}
        self.seen: list[Seen] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}))
                answer = server.answers.get(self.path, Answer(b"not here", 404))
                if answer.before is not None:
                    answer.before()
                self.send_response(answer.status)
                headers = {"Content-Type": "application/json", **answer.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return self.base + path

    def serve(
        self,
        path: str,
        body: bytes | str | dict[str, Any] | list[Any] = b"",
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> str:
        """Answer GET `path` with `body` (a dict or list as JSON) and `status`; return its URL."""
        if isinstance(body, dict | list):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        self.answers[path] = Answer(body, status, headers or {})
        return self.url(path)

    def clear(self) -> None:
        self.answers.clear()
        self.seen.clear()


@pytest.fixture(scope="session")
def _path_server() -> Iterator[PathServer]:
    server = PathServer()
    server.thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


@pytest.fixture
def served(_path_server: PathServer) -> Iterator[PathServer]:
    """The badge tests' HTTP server, with no paths yet."""
    _path_server.clear()
    yield _path_server
    _path_server.clear()


OB2_CONTEXT = "https://w3id.org/openbadges/v2"


def hashed(email: str, salt: str = "deadsea", algorithm: str = "sha256") -> str:
    return f"{algorithm}${hashlib.new(algorithm, (email + salt).encode()).hexdigest()}"


class Issuer:
    """An Open Badges 2.0 issuer on the test server: its profile, badge classes, assertions."""

    def __init__(self, server: PathServer, name: str = "Example Academy") -> None:
        self.server = server
        self.profile: dict[str, Any] = {
            "@context": OB2_CONTEXT,
            "type": "Issuer",
            "id": server.url("/issuer"),
            "name": name,
            "url": server.base,
            "email": "badges@example.org",
        }
        self.publish_profile()
        self.badge_class("/badges/gpu-ops", "GPU Operations Practitioner")

    def publish_profile(self) -> None:
        self.server.serve("/issuer", self.profile)

    def badge_class(self, path: str, name: str, issuer: str | None = None) -> str:
        return self.server.serve(
            path,
            {
                "@context": OB2_CONTEXT,
                "type": "BadgeClass",
                "id": self.server.url(path),
                "name": name,
                "description": "Operates GPU clusters.",
                "image": self.server.url("/image.png"),
                "criteria": {"narrative": "Pass the practical."},
                "issuer": issuer or self.server.url("/issuer"),
            },
        )

    def assertion(
        self,
        path: str,
        email: str,
        *,
        hash_with: str | None = "sha256",
        issued: str = "2026-03-15T10:00:00+00:00",
        expires: str | None = None,
        badge: str = "/badges/gpu-ops",
        status: int = 200,
        **extra: Any,
    ) -> dict[str, Any]:
        """Publish an assertion at `path` for `email`; return its JSON."""
        recipient: dict[str, Any] = {"type": "email", "hashed": hash_with is not None}
        if hash_with is None:
            recipient["identity"] = email
        else:
            recipient["salt"] = "deadsea"
            recipient["identity"] = hashed(email, "deadsea", hash_with)
        document: dict[str, Any] = {
            "@context": OB2_CONTEXT,
            "type": "Assertion",
            "id": self.server.url(path),
            "recipient": recipient,
            "badge": self.server.url(badge),
            "issuedOn": issued,
            "verification": {"type": "hosted"},
            **extra,
        }
        if expires is not None:
            document["expires"] = expires
        self.server.serve(path, document, status)
        return document


@pytest.fixture
def issuer(served: PathServer) -> Issuer:
    """An issuer on the test server with one badge class, /badges/gpu-ops."""
    return Issuer(served)


TODAY = dt.date(2026, 11, 29)


def entered_by_hand(
    db: Session, issuer: Issuer, who: Engineer, code: str | None = None, path: str = "/a/1"
) -> Certification:
    """Record by hand what `who`'s badge at `path` (issued 2026-03-15) proves; publish the badge.

    `code`: the catalog credential the badge class is mapped to; else one by name and issuer.
    """
    issuer.assertion(path, who.email, issued="2026-03-15")
    if code is None:
        credential = credential_for_entry(
            db, name="GPU Operations Practitioner", issuer=issuer.profile["name"]
        )
    else:
        map_badge_class(db, issuer.server.url("/badges/gpu-ops"), code)
        credential = factories.credential(db, code)
    return record_credential(
        db, who, credential, dt.date(2026, 3, 15), TODAY, evidence="certificate 123"
    )
