"""Writing the account trail: sign-ins, provisioning, role and level changes."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy.orm import Session

from tracker.audit.models import AccountEvent
from tracker.audit.rules import (
    ACCOUNT_EVENT_KINDS,
    ACCOUNT_EVENT_METHODS,
    MAX_EVENT_ADDRESS_LENGTH,
    MAX_EVENT_EMAIL_LENGTH,
)
from tracker.clock import utcnow


def record_account_event(
    session: Session,
    kind: str,
    *,
    engineer_id: int | None = None,
    email: str = "",
    method: str | None = None,
    actor_id: int | None = None,
    address: str = "",
    detail: dict[str, Any] | None = None,
    at: dt.datetime | None = None,
) -> AccountEvent:
    """Add one event to the account trail (flushed with the caller's transaction)."""
    if kind not in ACCOUNT_EVENT_KINDS:
        raise ValueError(f"unknown account event kind {kind!r}")
    if method is not None and method not in ACCOUNT_EVENT_METHODS:
        raise ValueError(f"unknown account event method {method!r}")
    event = AccountEvent(
        at=at or utcnow(),
        engineer_id=engineer_id,
        email=email.strip().lower()[:MAX_EVENT_EMAIL_LENGTH],
        kind=kind,
        method=method,
        actor_id=actor_id,
        address=address[:MAX_EVENT_ADDRESS_LENGTH],
        detail=detail,
    )
    session.add(event)
    return event
