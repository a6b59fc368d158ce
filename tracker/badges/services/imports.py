"""Import a badge: verify it, then record the certification it proves, marked verified.

Two steps: check_badge asks the issuer (seconds, perhaps) and touches no
database, so every channel runs it outside its transaction (db.release) and
holds no row, nor SQLite's write lock, meanwhile; record_badge then records it
for the person, held afresh, refusing it if their address changed since.

Nothing is stored for a badge that fails a check (the reason names the field
it came in), nor for one already imported: an assertion proves one
certification, once. A certification of the same credential and issue date
entered by hand before is verified by the badge rather than recorded twice.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from tracker.audit import services as audit
from tracker.badges.models import ImportedBadge
from tracker.badges.rules import BadgeSource
from tracker.badges.services.mapping import mapped_credential
from tracker.badges.services.verification import verify_document, verify_image, verify_url
from tracker.badges.services.verified import BadgeRefused, Fetch, VerifiedBadge
from tracker.catalog.models.credentials import Credential
from tracker.clock import utcnow
from tracker.errors import ValidationError
from tracker.i18n import N_, join
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.progress.services.certifications import credential_for_entry, record_credential

Source = BadgeSource
# Where each kind of badge comes in, as the API and the form name it.
FIELDS: dict[str, str] = {"url": "badge_url", "image": "badge_image", "json": "badge_json"}
ADDRESS_CHANGED = N_(
    "the person's e-mail address changed while the badge was being checked; import it again"
)


@dataclass(frozen=True)
class RecordedBadge:
    """The certification a badge proves, and whether it was recorded before the badge came."""

    certification: Certification
    # True: the badge verified a certification entered by hand; nothing new was recorded.
    existing: bool


def verify_badge(
    source: Source, given: str | bytes, emails: list[str], today: dt.date, fetch: Fetch
) -> VerifiedBadge:
    """Verify a badge given as a URL, a baked image or a pasted document."""
    if source == "image":
        data = given if isinstance(given, bytes) else given.encode()
        return verify_image(data, emails, today, fetch)
    text = given.decode("utf-8", "replace") if isinstance(given, bytes) else given
    if source == "url":
        return verify_url(text, emails, today, fetch)
    return verify_document(text, emails, today, fetch)


def already_imported(session: Session, assertion_id: str) -> bool:
    """Return whether an assertion was imported before (by anyone)."""
    return (
        session.scalars(
            select(ImportedBadge.id).where(ImportedBadge.assertion_id == assertion_id)
        ).first()
        is not None
    )


@dataclass(frozen=True)
class CheckedBadge:
    """A badge verified with its issuer for one e-mail address, not yet recorded."""

    badge: VerifiedBadge
    email: str
    source: Source


def check_badge(
    source: Source, given: str | bytes, email: str, today: dt.date, fetch: Fetch
) -> CheckedBadge:
    """Verify a badge for the person with `email`; refused on the source's field."""
    try:
        badge = verify_badge(source, given, [email], today, fetch)
    except BadgeRefused as refused:
        raise ValidationError({FIELDS[source]: refused.reason}) from None
    return CheckedBadge(badge, email, source)


def record_badge(
    session: Session,
    engineer: Engineer,
    checked: CheckedBadge,
    today: dt.date,
    recorded_by: Engineer | None = None,
) -> RecordedBadge:
    """Record a checked badge for `engineer` (held): refused if their address changed since."""
    if engineer.email != checked.email:
        raise ValidationError({FIELDS[checked.source]: ADDRESS_CHANGED})
    return record_verified(session, engineer, checked.badge, checked.source, today, recorded_by)


def record_verified(
    session: Session,
    engineer: Engineer,
    badge: VerifiedBadge,
    source: Source,
    today: dt.date,
    recorded_by: Engineer | None = None,
) -> RecordedBadge:
    """Record the certification a verified badge proves, with the badge behind it.

    One entered by hand for the same credential and issue date is verified
    instead: it takes the badge as its evidence (and the badge's expiry, when
    the badge states one), and the audit trail keeps what it held before.
    """
    field = FIELDS[source]
    if already_imported(session, badge.assertion_id):
        raise ValidationError({field: N_("this badge is already recorded")})
    credential = mapped_credential(session, badge.badge_class_id) or credential_for_entry(
        session, name=badge.badge_name, issuer=badge.issuer_name
    )
    now = utcnow()
    cert = entered_by_hand(session, engineer, credential, badge.issued_on)
    existing = cert is not None
    if cert is not None:
        before = audit.snapshot(cert)
        cert.evidence = badge.assertion_id
        cert.expires_on = badge.expires_on or cert.expires_on
        cert.verified_at = now
        session.flush()
        audit.record(session, recorded_by.id if recorded_by else None, cert, "update", before)
    else:
        try:
            cert = record_credential(
                session,
                engineer,
                credential,
                badge.issued_on,
                today,
                evidence=badge.assertion_id,
                expires_on=badge.expires_on,
                recorded_by=recorded_by,
                verified=True,
            )
        except ValidationError as exc:
            raise ValidationError({field: join(exc.errors.values())}) from None
        cert.verified_at = now
    session.add(
        ImportedBadge(
            certification_id=cert.id,
            engineer_id=engineer.id,
            format=badge.format,
            source=source,
            assertion_id=badge.assertion_id,
            badge_class_id=badge.badge_class_id,
            badge_name=badge.badge_name,
            issuer_id=badge.issuer_id,
            issuer_name=badge.issuer_name,
            recipient=badge.recipient,
            document=badge.document,
            verified_at=now,
            checked_at=now,
        )
    )
    session.flush()
    return RecordedBadge(cert, existing)


def entered_by_hand(
    session: Session, engineer: Engineer, credential: Credential, issued_on: dt.date
) -> Certification | None:
    """Return the unverified certification of `credential` someone holds from `issued_on`."""
    return session.scalars(
        select(Certification)
        .where(
            Certification.engineer_id == engineer.id,
            Certification.credential_id == credential.id,
            Certification.earned_on == issued_on,
            Certification.verified_at.is_(None),
            ~exists().where(ImportedBadge.certification_id == Certification.id),
        )
        .order_by(Certification.id)
    ).first()


def imported_badge_of(session: Session, certification_id: int) -> ImportedBadge | None:
    """Return the badge behind a certification, if it was imported from one."""
    return session.scalars(
        select(ImportedBadge).where(ImportedBadge.certification_id == certification_id)
    ).first()
