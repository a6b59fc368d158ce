"""A real HTTP receiver on 127.0.0.1 that verifies each delivery with `standardwebhooks`."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from tests.helpers import WEBHOOK_HOSTS
from tracker.clock import utcnow
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint
from tracker.webhooks.services.delivery import WebhookReport, deliver
from tracker.webhooks.services.endpoints import add_endpoint

# The status that makes the receiver close the connection without an answer.
HANG_UP = 0


@dataclass
class Received:
    """One request the receiver took: its headers, its body, and whether it verified."""

    headers: dict[str, str]
    body: bytes
    verified_with: list[str]
    status: int

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]


@dataclass
class Receiver:
    """The receiver's URL, the secrets it verifies with, what it answers next and got."""

    url: str
    secrets: list[str] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    # Where a redirect answered points: the receiver itself unless set.
    redirect_to: str | None = None

    def answer_next(self, *statuses: int) -> None:
        """Answer the next requests with these statuses (then 2xx again)."""
        self.answers.extend(statuses)

    def verify(self, body: bytes, headers: dict[str, str]) -> list[str]:
        """Return the secrets under which `standardwebhooks` accepts the delivery."""
        good = []
        for secret in self.secrets:
            try:
                Webhook(secret).verify(body, headers)
            except WebhookVerificationError:
                continue
            good.append(secret)
        return good


@contextmanager
def serving(address: str) -> Iterator[Receiver]:
    """Run a receiver on an ephemeral port of `address`, in a thread, until the block ends.

    A delivery no secret verifies is answered 401, as a real receiver would; the
    statuses queued with answer_next() come first (a redirect's Location is
    `redirect_to`, else the receiver itself; HANG_UP closes the connection
    unanswered). A GET is taken too, so a redirect followed as one shows.
    """
    state: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            me = state["receiver"]
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            verified = me.verify(body, headers)
            status = me.answers.pop(0) if me.answers else (204 if verified else 401)
            me.received.append(Received(headers, body, verified, status))
            if status == HANG_UP:
                self.close_connection = True
                return
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", me.redirect_to or me.url)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        do_GET = do_POST

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((address, 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    state["receiver"] = Receiver(url=f"http://{host}:{port}/hooks")
    try:
        yield state["receiver"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A receiver on 127.0.0.1, which the suite's TRACKER_WEBHOOK_ALLOW_HOSTS lets through."""
    with serving("127.0.0.1") as running:
        yield running


@pytest.fixture
def inside() -> Iterator[Receiver]:
    """A receiver on 127.0.0.2: a host inside the network that no setting lets through."""
    with serving("127.0.0.2") as running:
        yield running


def endpoint_for(
    db: Session, receiver: Receiver, events: list[str], format_: str = "generic"
) -> WebhookEndpoint:
    """Register the receiver for `events`; it verifies with the endpoint's secret."""
    endpoint = add_endpoint(db, receiver.url, events, format_, allow_hosts=WEBHOOK_HOSTS)
    receiver.secrets.append(endpoint.secret)
    return endpoint


def send(
    app: Flask,
    now: dt.datetime | None = None,
    force: bool = False,
    allow_hosts: frozenset[str] | None = None,
) -> WebhookReport:
    """Run the webhook sender, as the scheduler does, on the test's database.

    The hosts allowed are the app's setting (the suite's: tests.helpers.WEBHOOK_HOSTS)
    unless `allow_hosts` is given.
    """
    return deliver(
        app.extensions["tracker.sessions"],
        now or utcnow(),
        force=force,
        timeout=5,
        allow_hosts=app.config["WEBHOOK_ALLOW_HOSTS"] if allow_hosts is None else allow_hosts,
    )


def deliveries(db: Session, event: str | None = None) -> list[WebhookDelivery]:
    db.expire_all()
    query = select(WebhookDelivery).order_by(WebhookDelivery.id)
    if event is not None:
        query = query.where(WebhookDelivery.event == event)
    return list(db.scalars(query))
