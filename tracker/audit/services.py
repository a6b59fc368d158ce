"""Writing the audit trail."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from sqlalchemy import inspect
from sqlalchemy.orm import Session

from tracker.audit.models import AuditEvent
from tracker.db import Base


def snapshot(obj: Base) -> dict[str, Any]:
    """Return a JSON-ready copy of a row's column values."""
    values: dict[str, Any] = {}
    for attr in inspect(obj).mapper.column_attrs:
        value = getattr(obj, attr.key)
        if isinstance(value, dt.date | dt.datetime):
            value = value.isoformat()
        elif isinstance(value, Decimal):
            value = str(value)
        values[attr.key] = value
    return values


def record(
    session: Session,
    actor_id: int | None,
    obj: Base,
    action: str,
    before: dict[str, Any] | None = None,
) -> AuditEvent:
    """Record that `actor_id` did `action` to `obj`; `before` is its snapshot before a change."""
    event = AuditEvent(
        actor_id=actor_id,
        entity=type(obj).__tablename__,
        entity_id=inspect(obj).identity[0] if inspect(obj).identity else obj.id,
        action=action,
        before=before,
        after=None if action == "delete" else snapshot(obj),
    )
    session.add(event)
    return event
