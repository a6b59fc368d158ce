"""The outbox: every notice to send, queued in the transaction that decided it."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.clock import utcnow
from tracker.db import Base
from tracker.i18n import DEFAULT_LOCALE, LOCALES
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.reminders.rules import NOTIFICATION_KINDS, NOTIFICATION_STATUSES


def _one_of(column: str, values: tuple[str, ...]) -> str:
    """Return the SQL condition that `column` holds one of `values`."""
    listed = ", ".join(f"'{value}'" for value in values)
    return f"{column} IN ({listed})"


class Notification(Base):
    """One e-mail to send, at most once."""

    __tablename__ = "notifications"
    __table_args__ = (
        CheckConstraint(_one_of("kind", NOTIFICATION_KINDS), name="kind_known"),
        CheckConstraint(_one_of("status", NOTIFICATION_STATUSES), name="status_known"),
        CheckConstraint("attempts >= 0", name="attempts_not_negative"),
        CheckConstraint(_one_of("locale", LOCALES), name="locale_known"),
        # The queue: only rows still to send, in the order senders take them
        # (services.delivery._claim), so a claim reads its batch off the front of the
        # index instead of sorting every pending row.
        Index(
            "ix_notifications_due",
            "next_attempt_at",
            "id",
            postgresql_where=text("status IN ('pending', 'sending')"),
            sqlite_where=text("status IN ('pending', 'sending')"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # What makes this notice unique, ever: "reminder:<cert>:<window>",
    # "digest:<manager>:<iso week>", ... A second pass cannot queue it twice.
    dedupe_key: Mapped[str] = mapped_column(String(120), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    certification_id: Mapped[int | None] = mapped_column(
        ForeignKey("certifications.id", ondelete="CASCADE"), index=True
    )
    # Days before expiry (negative after it) of the window that queued it.
    window_days: Mapped[int | None] = mapped_column(Integer)
    engineer_id: Mapped[int | None] = mapped_column(
        ForeignKey("engineers.id", ondelete="CASCADE"), index=True
    )
    to_addrs: Mapped[str] = mapped_column(Text)
    cc_addrs: Mapped[str] = mapped_column(Text, default="")
    subject: Mapped[str] = mapped_column(String(300))
    # None until the notice is composed: the pass decides and queues, and
    # composing (text, HTML, .ics) follows it, before the sender takes the row.
    body_text: Mapped[str | None] = mapped_column(Text)
    body_html: Mapped[str] = mapped_column(Text, default="")
    ics: Mapped[str | None] = mapped_column(Text)
    # The one-click unsubscribe URL of a bulk notice (the weekly digest), sent as its
    # List-Unsubscribe header; None for the rest, which are not bulk mail.
    unsubscribe_url: Mapped[str | None] = mapped_column(Text)
    # The language it is written in: its recipients' (the pass queues one
    # notice per language among them; see services.reminders_sql).
    locale: Mapped[str] = mapped_column(
        String(8), default=DEFAULT_LOCALE, server_default=DEFAULT_LOCALE
    )
    message_id: Mapped[str] = mapped_column(String(200), unique=True)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(120))
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime)

    certification: Mapped[Certification | None] = relationship()
    engineer: Mapped[Engineer | None] = relationship()

    @property
    def composed(self) -> bool:
        """Whether its text is written: until then its subject is the pass's English placeholder."""
        return self.body_text is not None


class ReminderRun(Base):
    """A piece of the pass done once per period: the digests of an ISO week ("digest",
    "2026-W49"), the lapses judged under a catalog version ("catalog", its stamp)."""

    __tablename__ = "reminder_runs"
    __table_args__ = (UniqueConstraint("kind", "period"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    period: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
