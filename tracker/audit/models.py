"""The audit trail: who changed which record, when, from what to what."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, CheckConstraint, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from tracker.audit.rules import (
    ACCOUNT_EVENT_KINDS,
    ACCOUNT_EVENT_METHODS,
    MAX_EVENT_ADDRESS_LENGTH,
    MAX_EVENT_EMAIL_LENGTH,
)
from tracker.clock import utcnow
from tracker.db import Base


class AuditEvent(Base):
    """One change to one record."""

    __tablename__ = "audit_events"
    __table_args__ = (
        Index("ix_audit_events_entity", "entity", "entity_id"),
        # A person's events (their data's export): those about them, those they made.
        Index("ix_audit_events_engineer", "engineer_id"),
        Index("ix_audit_events_actor", "actor_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # None when the change came from the CLI or a job.
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("engineers.id", ondelete="SET NULL"))
    entity: Mapped[str] = mapped_column(String(40))
    entity_id: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16))
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # The person the event is about (services.about_whom), written with the event: a
    # person's events are found by an index, not in every row's snapshots. No foreign
    # key: it says what the snapshots say, as they do, and an event's insert takes no
    # lock on the person.
    engineer_id: Mapped[int | None] = mapped_column(Integer)


def _in(column: str, values: dict[str, str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class AccountEvent(Base):
    """One thing that happened to an account: a sign-in, a provisioning or a role change."""

    __tablename__ = "account_events"
    __table_args__ = (
        Index("ix_account_events_at", "at"),
        Index("ix_account_events_engineer", "engineer_id", "at"),
        CheckConstraint(_in("kind", ACCOUNT_EVENT_KINDS), name="account_event_kind_known"),
        CheckConstraint(
            "method IS NULL OR " + _in("method", ACCOUNT_EVENT_METHODS),
            name="account_event_method_known",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # The account; None for a refused sign-in to an address nobody has.
    engineer_id: Mapped[int | None] = mapped_column(ForeignKey("engineers.id", ondelete="SET NULL"))
    # The address as typed or provisioned: kept when the account is gone.
    email: Mapped[str] = mapped_column(String(MAX_EVENT_EMAIL_LENGTH), default="")
    kind: Mapped[str] = mapped_column(String(24))
    method: Mapped[str | None] = mapped_column(String(16))
    # Who made the change; None for the person themself, a job or the command line.
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("engineers.id", ondelete="SET NULL"))
    address: Mapped[str] = mapped_column(String(MAX_EVENT_ADDRESS_LENGTH), default="")
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON)
