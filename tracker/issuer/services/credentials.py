"""Issue Open Badges 3.0 credentials for internal-track certifications; revoke them."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, exists, or_, select
from sqlalchemy.orm import Session, aliased, selectinload

from tracker.audit import services as audit
from tracker.badges.services import proofs
from tracker.catalog.models.credentials import Credential
from tracker.config import SecretKeys
from tracker.errors import ValidationError
from tracker.issuer.models import IssuedCredential
from tracker.issuer.rules import (
    ALREADY_ISSUED,
    FULL_LIST,
    ISSUED_KIND,
    ISSUED_ORIGIN,
    NOT_ISSUABLE,
    PUBLIC_TOKEN_BYTES,
    STATUS_LIST_BITS,
    STATUS_PURPOSE,
)
from tracker.issuer.services import keys
from tracker.people.models import Engineer
from tracker.progress.models import Certification

CONTEXT = [
    "https://www.w3.org/ns/credentials/v2",
    "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json",
]


@dataclass(frozen=True)
class Issuer:
    """Who signs: the tracker at its public URL, under the organisation's name."""

    base_url: str
    name: str
    # The current key encrypts a new signing key; any of them opens one.
    secret_keys: SecretKeys

    @property
    def root(self) -> str:
        return self.base_url.rstrip("/")

    @property
    def did(self) -> str:
        return proofs.did_web(self.root)

    @property
    def status_list_url(self) -> str:
        return f"{self.root}/ob/status"

    def achievement_url(self, credential: Credential) -> str:
        return f"{self.root}/ob/achievements/{credential.code}"

    def profile(self) -> dict[str, Any]:
        return {"id": self.did, "type": ["Profile"], "name": self.name, "url": self.root}


def issuable(cert: Certification) -> bool:
    """Return whether a certification is one of the internal track's (the tracker's own)."""
    return cert.credential.origin == ISSUED_ORIGIN and cert.credential.kind == ISSUED_KIND


def issuable_certifications(session: Session, engineer: Engineer) -> list[Certification]:
    """Return an engineer's internal-track certifications, newest first."""
    return list(
        session.scalars(
            select(Certification)
            .join(Certification.credential)
            .where(
                Certification.engineer_id == engineer.id,
                Credential.origin == ISSUED_ORIGIN,
                Credential.kind == ISSUED_KIND,
            )
            .options(selectinload(Certification.credential), selectinload(Certification.renewed_by))
            .order_by(Certification.earned_on.desc(), Certification.id.desc())
        )
    )


def issued_for(session: Session, certification_ids: list[int]) -> dict[int, IssuedCredential]:
    """Return the credentials issued for these certifications, by certification id."""
    rows = session.scalars(
        select(IssuedCredential).where(IssuedCredential.certification_id.in_(certification_ids))
    )
    return {row.certification_id: row for row in rows if row.certification_id is not None}


def _free_index(session: Session) -> int:
    taken = set(session.scalars(select(IssuedCredential.status_index)))
    if len(taken) >= STATUS_LIST_BITS:
        raise ValidationError({"certification": FULL_LIST})
    # A random place in the list, so that neighbouring entries say nothing about who
    # was issued when.
    while True:
        index = secrets.randbelow(STATUS_LIST_BITS)
        if index not in taken:
            return index


def _identity(email: str) -> dict[str, Any]:
    salt = secrets.token_hex(16)
    digest = hashlib.sha256((email.strip().lower() + salt).encode()).hexdigest()
    return {
        "type": "IdentityObject",
        "identityType": "emailAddress",
        "hashed": True,
        "salt": salt,
        "identityHash": f"sha256${digest}",
    }


def _moment(day: dt.date, end: bool = False) -> str:
    # Valid through its expiry day, as the tracker counts it.
    return f"{day.isoformat()}T{'23:59:59' if end else '00:00:00'}Z"


def achievement(issuer: Issuer, credential: Credential) -> dict[str, Any]:
    """Return the OB 3.0 Achievement of an internal-track credential."""
    return {
        "id": issuer.achievement_url(credential),
        "type": ["Achievement"],
        "achievementType": "Certification",
        "name": credential.name,
        "description": credential.description or credential.name,
        "criteria": {"narrative": f"Passed the internal exam {credential.code} of {issuer.name}."},
        "creator": issuer.profile(),
    }


def issue(
    session: Session,
    cert: Certification,
    issuer: Issuer,
    now: dt.datetime,
    *,
    show_name: bool = False,
) -> IssuedCredential:
    """Sign an OpenBadgeCredential for an internal-track certification (its holder's)."""
    if not issuable(cert):
        raise ValidationError({"certification": NOT_ISSUABLE})
    if issued_for(session, [cert.id]):
        raise ValidationError({"certification": ALREADY_ISSUED})
    index = _free_index(session)
    credential_uri = f"urn:uuid:{uuid.uuid4()}"
    document: dict[str, Any] = {
        "@context": CONTEXT,
        "id": credential_uri,
        "type": ["VerifiableCredential", "OpenBadgeCredential"],
        "issuer": issuer.profile(),
        "validFrom": _moment(cert.earned_on),
        "name": cert.credential.name,
        "credentialSubject": {
            "type": ["AchievementSubject"],
            "identifier": [_identity(cert.engineer.email)],
            "achievement": achievement(issuer, cert.credential),
        },
        "credentialStatus": {
            "id": f"{issuer.status_list_url}#{index}",
            "type": "BitstringStatusListEntry",
            "statusPurpose": STATUS_PURPOSE,
            "statusListIndex": str(index),
            "statusListCredential": issuer.status_list_url,
        },
    }
    if cert.expires_on is not None:
        document["validUntil"] = _moment(cert.expires_on, end=True)
    key = keys.signing_key(session, issuer.secret_keys.current, now)
    # Issuing writes anyway: a key still under a replaced secret key is stored again now.
    private = keys.unlock(session, key, issuer.secret_keys)
    signed = proofs.sign(document, private, keys.method_id(issuer.did, key), now)
    row = IssuedCredential(
        certification_id=cert.id,
        engineer_id=cert.engineer_id,
        credential_uri=credential_uri,
        public_token=secrets.token_urlsafe(PUBLIC_TOKEN_BYTES),
        status_index=index,
        document=json.dumps(signed, ensure_ascii=False, indent=2),
        show_name=show_name,
        issued_at=now,
    )
    session.add(row)
    session.flush()
    audit.record(session, cert.engineer_id, row, "create")
    return row


def set_sharing(session: Session, row: IssuedCredential, *, show_name: bool) -> None:
    """Change what the public page shows of its holder."""
    row.show_name = show_name
    session.flush()


def revoke(session: Session, row: IssuedCredential, by: Engineer | None, now: dt.datetime) -> None:
    """Revoke a credential: its status-list bit is set from now on."""
    if row.revoked_at is None:
        row.revoked_at = now
        row.revoked_by_id = by.id if by else None
        session.flush()
        audit.record(session, by.id if by else None, row, "revoke")


def revoked(row: IssuedCredential) -> bool:
    """Return whether a credential no longer stands: revoked, its certification gone or renewed."""
    cert = row.certification
    return row.revoked_at is not None or cert is None or cert.renewed_by is not None


_renewal = aliased(Certification)
# revoked() in SQL, for the status list: one query however many credentials were issued.
NO_LONGER_STANDS: ColumnElement[bool] = or_(
    IssuedCredential.revoked_at.is_not(None),
    IssuedCredential.certification_id.is_(None),
    exists().where(_renewal.renews_id == IssuedCredential.certification_id),
)


def public_state(row: IssuedCredential, today: dt.date) -> str:
    """Return what the public page says: valid, revoked or expired."""
    if revoked(row):
        return "revoked"
    cert = row.certification
    if cert is not None and cert.expires_on is not None and cert.expires_on < today:
        return "expired"
    return "valid"


def by_token(session: Session, token: str) -> IssuedCredential | None:
    """Return the credential of a public page's token."""
    return session.scalar(
        select(IssuedCredential)
        .where(IssuedCredential.public_token == token)
        .options(
            selectinload(IssuedCredential.certification), selectinload(IssuedCredential.engineer)
        )
    )


def every_issued(session: Session) -> list[IssuedCredential]:
    """Return every credential issued, newest first (the admins' list)."""
    return list(
        session.scalars(
            select(IssuedCredential)
            .options(
                selectinload(IssuedCredential.certification),
                selectinload(IssuedCredential.engineer),
            )
            .order_by(IssuedCredential.issued_at.desc(), IssuedCredential.id.desc())
        )
    )
