"""Badge-class mappings: which catalog credential an issuer's badge class is."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from tracker.badges.models import BadgeMapping
from tracker.badges.rules import MAX_URL_LENGTH
from tracker.catalog.models.credentials import Credential
from tracker.errors import ValidationError
from tracker.i18n import N_, msg
from tracker.progress.services.certifications import credential_for_entry


def mappings(session: Session) -> list[BadgeMapping]:
    """Return every mapping, by badge class."""
    return list(
        session.scalars(
            select(BadgeMapping)
            .options(selectinload(BadgeMapping.credential))
            .order_by(BadgeMapping.badge_class_id)
        )
    )


def mapped_credential(session: Session, badge_class_id: str) -> Credential | None:
    """Return the catalog credential a badge class is mapped to, if any."""
    return session.scalars(
        select(Credential)
        .join(BadgeMapping, BadgeMapping.credential_id == Credential.id)
        .where(BadgeMapping.badge_class_id == badge_class_id)
    ).first()


def map_badge_class(session: Session, badge_class_id: str, code: str) -> BadgeMapping:
    """Map a badge class (its URL) to the catalog credential `code`; a new code replaces one."""
    badge_class_id = badge_class_id.strip()
    if not badge_class_id.lower().startswith(("http://", "https://")):
        raise ValidationError({"badge_class": N_("the badge class must be an http or https URL")})
    if len(badge_class_id) > MAX_URL_LENGTH:
        raise ValidationError(
            {
                "badge_class": msg(
                    "the badge class URL must be at most %(most)s characters", most=MAX_URL_LENGTH
                )
            }
        )
    credential = credential_for_entry(session, code=code)
    mapping = session.scalars(
        select(BadgeMapping).where(BadgeMapping.badge_class_id == badge_class_id)
    ).first()
    if mapping is None:
        mapping = BadgeMapping(badge_class_id=badge_class_id, credential_id=credential.id)
        session.add(mapping)
    else:
        mapping.credential_id = credential.id
    session.flush()
    return mapping


def unmap_badge_class(session: Session, mapping_id: int) -> None:
    """Remove a mapping; badges imported under it keep their certifications."""
    mapping = session.get(BadgeMapping, mapping_id)
    if mapping is not None:
        session.delete(mapping)
        session.flush()
