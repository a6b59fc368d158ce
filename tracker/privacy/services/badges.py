"""A person's badges in the file: those they imported, and those the tracker issued them."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.orm import Session

from tracker.badges.models import ImportedBadge
from tracker.issuer.models import IssuedCredential
from tracker.people.models import Engineer
from tracker.privacy.services.values import Json, moment, names_of, person_ref, rows_of


def imported_badges(session: Session, engineer: Engineer) -> list[Json]:
    """Return the badges the person imported, verified by their issuers, the oldest first."""
    rows = rows_of(
        session, ImportedBadge, ImportedBadge.engineer_id == engineer.id, ImportedBadge.verified_at
    )
    return [
        {
            "id": row.id,
            "certification_id": row.certification_id,
            "format": row.format,
            "source": row.source,
            "assertion_id": row.assertion_id,
            "badge_class_id": row.badge_class_id,
            "badge_name": row.badge_name,
            "issuer_id": row.issuer_id,
            "issuer_name": row.issuer_name,
            "recipient": row.recipient,
            "verified_at": moment(row.verified_at),
            "checked_at": moment(row.checked_at),
            "last_problem": row.last_problem,
            "revoked_at": moment(row.revoked_at),
            "revocation_reason": row.revocation_reason,
            # As its issuer gave it: JSON, or a compact JWS (text).
            "document": row.document,
        }
        for row in rows
    ]


def _document(text: str) -> Any:
    """Return a signed credential as the JSON it is, so the file carries it whole."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def issued_credentials(session: Session, engineer: Engineer) -> list[Json]:
    """Return the Open Badges the tracker signed for the person, with each signed credential."""
    rows = rows_of(
        session,
        IssuedCredential,
        IssuedCredential.engineer_id == engineer.id,
        IssuedCredential.issued_at,
    )
    names = names_of(session, (row.revoked_by_id for row in rows))
    return [
        {
            "id": row.id,
            "certification_id": row.certification_id,
            "credential_uri": row.credential_uri,
            "shows_name": row.show_name,
            "issued_at": moment(row.issued_at),
            "revoked_at": moment(row.revoked_at),
            "revoked_by": person_ref(row.revoked_by_id, names),
            "document": _document(row.document),
        }
        for row in rows
    ]
