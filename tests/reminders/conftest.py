"""A real SMTP server in the test process (aiosmtpd) and a separate database for threads.

The mailbox is an aiosmtpd handler: it records what each connection delivers
and can be told to answer DATA with a 4xx or 5xx, or to refuse chosen
recipients at RCPT, so delivery is tested against real SMTP replies.
"""

from __future__ import annotations

import email
import email.policy
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy.orm import Session, sessionmaker

from tests.factories import SEED
from tests.live import free_port
from tracker.catalog.services.seed_loading import load_seed
from tracker.db import make_engine, make_session_factory, run_migrations, session_scope
from tracker.reminders.services.delivery import SmtpSettings

MAIL_FROM = "tracker@example.com"


@dataclass
class Received:
    """One DATA the server answered: the envelope, the bytes, and which connection."""

    mail_from: str
    rcpt_tos: list[str]
    content: bytes
    connection: int
    accepted: bool

    @property
    def message(self) -> EmailMessage:
        return email.message_from_bytes(self.content, policy=email.policy.default)  # type: ignore[return-value]

    @property
    def message_id(self) -> str:
        return str(self.message["Message-ID"])

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])


@dataclass
class Mailbox:
    """The aiosmtpd handler: records deliveries; configurable replies."""

    data_reply: str | None = None  # e.g. "451 try later" or "550 no such user"
    # One-off answers to the next DATAs, in order (None accepts); then data_reply.
    next_replies: list[str | None] = field(default_factory=list)
    refuse: dict[str, str] = field(default_factory=dict)  # address -> RCPT reply
    connections: int = 0
    attempts: list[Received] = field(default_factory=list)  # every DATA, accepted or not
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def received(self) -> list[Received]:
        """Return the messages the server accepted (250 to DATA)."""
        with self.lock:
            return [r for r in self.attempts if r.accepted]

    def by_message_id(self) -> dict[str, list[Received]]:
        out: dict[str, list[Received]] = {}
        for r in self.received:
            out.setdefault(r.message_id, []).append(r)
        return out

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        with self.lock:
            self.connections += 1
            session.connection_number = self.connections
        return responses

    async def handle_HELO(self, server, session, envelope, hostname):
        session.host_name = hostname
        with self.lock:
            self.connections += 1
            session.connection_number = self.connections
        return f"250 {server.hostname}"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        reply = self.refuse.get(address)
        if reply is not None:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            reply = self.next_replies.pop(0) if self.next_replies else self.data_reply
            accepted = reply is None
            self.attempts.append(
                Received(
                    mail_from=envelope.mail_from,
                    rcpt_tos=list(envelope.rcpt_tos),
                    content=bytes(envelope.content),
                    connection=getattr(session, "connection_number", 0),
                    accepted=accepted,
                )
            )
        return "250 OK" if reply is None else reply


def settings_for(port: int, timeout: float = 5) -> SmtpSettings:
    return SmtpSettings(host="127.0.0.1", port=port, mail_from=MAIL_FROM, timeout=timeout)


@dataclass
class SmtpServer:
    mailbox: Mailbox
    port: int

    @property
    def settings(self) -> SmtpSettings:
        return settings_for(self.port)


@pytest.fixture
def factory(app, db):
    """The app's session factory, bound to the test's connection (savepoints)."""
    return app.extensions["tracker.sessions"]


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    """Run a real SMTP server on 127.0.0.1 for one test."""
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SmtpServer(mailbox, port)
    finally:
        controller.stop()


@pytest.fixture
def smtp_down() -> SmtpSettings:
    """Return settings for a port where nothing listens: the SMTP server is down."""
    return settings_for(free_port())


@pytest.fixture
def separate_db(fresh_url: str) -> Iterator[sessionmaker[Session]]:
    """Return a session factory on a migrated, seeded SQLite file of this test's own.

    The shared test connection is not safe across threads; tests that run
    senders or passes concurrently use this database and commit for real.
    """
    run_migrations(fresh_url)
    engine = make_engine(fresh_url)
    factory = make_session_factory(engine)
    with session_scope(factory) as session:
        load_seed(session, SEED)
    try:
        yield factory
    finally:
        engine.dispose()


@pytest.fixture
def committing_db(racing_url: str) -> Iterator[sessionmaker[Session]]:
    """Return a session factory on a database of this test's own, whose transactions commit.

    A SQLite file, and a PostgreSQL database too when the suite runs on it: for
    senders and passes that race (row locks, the pass lock, a claim's RETURNING).
    """
    engine = make_engine(racing_url)
    try:
        yield make_session_factory(engine)
    finally:
        engine.dispose()
