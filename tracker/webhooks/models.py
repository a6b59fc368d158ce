"""Webhook endpoints and their deliveries: the webhooks' outbox, queued with what causes them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tracker.clock import utcnow
from tracker.db import Base
from tracker.webhooks.rules import DELIVERY_STATUSES, FORMATS, MAX_URL_LENGTH


def _one_of(column: str, values: tuple[str, ...]) -> str:
    """Return the SQL condition that `column` holds one of `values`."""
    listed = ", ".join(f"'{value}'" for value in values)
    return f"{column} IN ({listed})"


class WebhookEndpoint(Base):
    """A URL that receives the events it subscribes to, signed with its secret."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (CheckConstraint(_one_of("format", FORMATS), name="format_known"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(String(MAX_URL_LENGTH))
    # The events' names joined by commas (rules.EVENT_SEPARATOR), in rules.EVENTS' order.
    events: Mapped[str] = mapped_column(String(500))
    format: Mapped[str] = mapped_column(String(16), default="generic", server_default="generic")
    secret: Mapped[str] = mapped_column(String(100))
    # The secret before the latest rotation: it signs too until previous_until.
    previous_secret: Mapped[str | None] = mapped_column(String(100))
    previous_until: Mapped[dt.datetime | None] = mapped_column(DateTime)
    active: Mapped[bool] = mapped_column(Boolean, default=True, server_default=text("true"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    @property
    def event_names(self) -> list[str]:
        return [name for name in self.events.split(",") if name]


class WebhookDelivery(Base):
    """One event to POST to one endpoint, at least once: the same webhook-id every attempt."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        CheckConstraint(_one_of("status", DELIVERY_STATUSES), name="status_known"),
        CheckConstraint("attempts >= 0", name="attempts_not_negative"),
        # The queue, as the mail's (ix_notifications_due): only rows still to send,
        # in the order senders take them.
        Index(
            "ix_webhook_deliveries_due",
            "next_attempt_at",
            "id",
            postgresql_where=text("status IN ('pending', 'sending')"),
            sqlite_where=text("status IN ('pending', 'sending')"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    endpoint_id: Mapped[int] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), index=True
    )
    event: Mapped[str] = mapped_column(String(40))
    # The Standard Webhooks message id (msg_...): the receiver's key to drop a repeat.
    webhook_id: Mapped[str] = mapped_column(String(80), unique=True)
    # The generic body ({"type", "timestamp", "data"}); Slack's and Teams' follow from it.
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="pending", server_default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    next_attempt_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(120))
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime)

    endpoint: Mapped[WebhookEndpoint] = relationship()
