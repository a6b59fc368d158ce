"""The daily re-check of imported badges: a revocation is recorded, and stops the credential.

Each badge is verified again from the document kept at import, as the issuer
serves it now. "revoked" marks the certification revoked from that day, which
changes its team's readiness (the flush bumps the team's revision) and its
bonuses; any other refusal is noted and leaves the certification as it was,
since an issuer may only be down.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from tracker.audit import services as audit
from tracker.badges.models import ImportedBadge
from tracker.badges.rules import MAX_REASON_LENGTH
from tracker.badges.services.verification import reverify
from tracker.badges.services.verified import BadgeRefused, Fetch
from tracker.clock import utcnow
from tracker.people.schemas import PersonRef
from tracker.progress.models import Certification
from tracker.webhooks.schemas import CertificationRef, RevokedData
from tracker.webhooks.services import events as webhooks

REVOKED = "certification.revoked"

Outcome = Literal["verified", "revoked", "problem"]


def due_for_recheck(session: Session, today: dt.date) -> list[int]:
    """Return the ids of the imported badges to check again: not revoked, not expired."""
    return list(
        session.scalars(
            select(ImportedBadge.id)
            .join(Certification, Certification.id == ImportedBadge.certification_id)
            .where(
                Certification.revoked_on.is_(None),
                or_(Certification.expires_on.is_(None), Certification.expires_on >= today),
            )
            .order_by(ImportedBadge.checked_at, ImportedBadge.id)
        )
    )


@dataclass(frozen=True)
class Kept:
    """What an imported badge is verified again from: the document and recipient kept."""

    format: str
    document: str
    recipient: str

    @classmethod
    def of(cls, badge: ImportedBadge) -> Kept:
        return cls(badge.format, badge.document, badge.recipient)


def ask_issuer(kept: Kept, today: dt.date, fetch: Fetch) -> BadgeRefused | None:
    """Verify a badge again with its issuer, as it serves it now; its refusal, or None."""
    try:
        reverify(kept.format, kept.document, [kept.recipient], today, fetch)
    except BadgeRefused as refused:
        return refused
    return None


def record_recheck(
    session: Session, badge: ImportedBadge, refused: BadgeRefused | None, today: dt.date
) -> Outcome:
    """Record what the issuer answered of a badge: a revocation, a problem noted, or neither."""
    badge.checked_at = utcnow()
    if refused is not None:
        reason = str(refused.reason)[:MAX_REASON_LENGTH]
        if refused.kind == "revoked":
            revoke(session, badge, today, reason)
            return "revoked"
        badge.last_problem = reason
        session.flush()
        return "problem"
    badge.last_problem = ""
    session.flush()
    return "verified"


def revoke(session: Session, badge: ImportedBadge, today: dt.date, reason: str) -> None:
    """Mark a badge and its certification revoked from `today`."""
    cert = badge.certification
    before = {"revoked_on": None}
    cert.revoked_on = today
    badge.revoked_at = utcnow()
    badge.revocation_reason = reason
    badge.last_problem = reason
    session.flush()
    audit.record(session, None, cert, "update", before)
    if webhooks.subscribers(session, REVOKED):
        data = RevokedData(
            certification=CertificationRef.of(cert),
            engineer=PersonRef.of(cert.engineer),
            revoked_on=today,
            reason=reason,
        )
        webhooks.queue_event(session, REVOKED, data)
