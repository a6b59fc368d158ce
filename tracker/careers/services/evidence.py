"""Level-5 evidence: patents, publications and deployments led."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.careers.models import Evidence
from tracker.careers.rules import (
    EARLIEST_DATE,
    EVIDENCE_KINDS,
    MAX_EVIDENCE_NOTE,
    MAX_EVIDENCE_TITLE,
)
from tracker.errors import ValidationError
from tracker.i18n import N_, day, msg
from tracker.people.models import Engineer
from tracker.people.services.access import can_view


def can_record_evidence(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may record evidence for `engineer` (self, manager, admin)."""
    return can_view(actor, engineer)


def record_evidence(
    session: Session,
    engineer: Engineer,
    kind: str,
    title: str,
    occurred_on: dt.date | None,
    today: dt.date,
    note: str = "",
) -> Evidence:
    """Record a patent, publication or deployment led: the level-5 evidence."""
    errors: dict[str, str] = {}
    if kind not in EVIDENCE_KINDS:
        errors["kind"] = msg("kind must be one of %(kinds)s", kinds=", ".join(EVIDENCE_KINDS))
    title = (title or "").strip()
    if not title:
        errors["title"] = N_("a title is required (the patent, publication or deployment)")
    elif len(title) > MAX_EVIDENCE_TITLE:
        errors["title"] = msg("title must be at most %(max)s characters", max=MAX_EVIDENCE_TITLE)
    if not isinstance(occurred_on, dt.date):
        errors["occurred_on"] = N_("a date is required (YYYY-MM-DD)")
    elif occurred_on > today:
        errors["occurred_on"] = N_("date must not be in the future")
    elif occurred_on < EARLIEST_DATE:
        errors["occurred_on"] = msg(
            "date must not be before %(earliest)s", earliest=day(EARLIEST_DATE)
        )
    note = (note or "").strip()
    if len(note) > MAX_EVIDENCE_NOTE:
        errors["note"] = msg("note must be at most %(max)s characters", max=MAX_EVIDENCE_NOTE)
    if errors:
        raise ValidationError(errors)
    entry = Evidence(
        engineer_id=engineer.id, kind=kind, title=title, occurred_on=occurred_on, note=note
    )
    session.add(entry)
    session.flush()
    return entry


def evidence_of(session: Session, engineer_id: int) -> list[Evidence]:
    """Return an engineer's evidence, newest first."""
    return list(
        session.scalars(
            select(Evidence)
            .where(Evidence.engineer_id == engineer_id)
            .order_by(Evidence.occurred_on.desc(), Evidence.id.desc())
        )
    )
