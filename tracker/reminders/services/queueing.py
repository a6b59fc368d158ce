"""Queueing notices in the outbox: the pass's report, the mail settings, when a row is due."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from tracker.i18n import DEFAULT_LOCALE
from tracker.reminders.models import Notification


@dataclass
class PassReport:
    """What a pass queued: the notices themselves (unless `keep` is off) and counts by kind."""

    queued: list[Notification] = field(default_factory=list)
    keep: bool = True
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, notification: Notification) -> None:
        self.count_one(notification.kind)
        if self.keep:
            self.queued.append(notification)

    def count_one(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return sum(self.counts.values())
        return self.counts.get(kind, 0)


@dataclass(frozen=True)
class Mail:
    """What a pass needs to write and sign links, address mail and choose its language."""

    base_url: str
    domain: str
    # The deployment's secret key: it signs the digest's unsubscribe links.
    signing_key: str
    # TRACKER_DEFAULT_LOCALE: mail to a person whose setting is "as my browser asks".
    locale: str = DEFAULT_LOCALE

    def message_id(self, key: str) -> str:
        safe = key.replace(":", ".")
        return f"<{safe}.{uuid.uuid4().hex[:12]}@{self.domain}>"


def insert_new(session: Session, report: PassReport, rows: list[dict[str, Any]]) -> None:
    """Insert the notices whose key is new (the unique key settles races); report those.

    Read back as entities only when the report keeps them (else their kinds).
    """
    if not rows:
        return
    statement = dialect_insert(session, Notification).on_conflict_do_nothing()
    if not report.keep:
        for kind in session.scalars(statement.returning(Notification.kind), rows):
            report.count_one(kind)
        return
    for notification in session.scalars(statement.returning(Notification), rows):
        report.add(notification)


def dialect_insert(session: Session, entity: Any) -> postgresql.Insert | sqlite.Insert:
    """Return the database's own INSERT of `entity` (the one with ON CONFLICT)."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(entity)
    return sqlite.insert(entity)


def due_at(day: dt.date) -> dt.datetime:
    """Return when a notice queued on `day` becomes due: at once, in every time zone.

    `day` is the deployment's local date; the sender compares in UTC. The start
    of the day before is earlier than "now" wherever the deployment runs.
    """
    return dt.datetime.combine(day - dt.timedelta(days=1), dt.time())


def queued_on(notification: Notification) -> dt.date:
    """Return the day the pass queued a notice for (see `due_at`); composing reads it."""
    return notification.next_attempt_at.date() + dt.timedelta(days=1)
