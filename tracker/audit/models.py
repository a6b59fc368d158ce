"""The audit trail: who changed which record, when, from what to what."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from tracker.clock import utcnow
from tracker.db import Base


class AuditEvent(Base):
    """One change to one record."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_entity", "entity", "entity_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # None when the change came from the CLI or a job.
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("engineers.id", ondelete="SET NULL"))
    entity: Mapped[str] = mapped_column(String(40))
    entity_id: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16))
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
