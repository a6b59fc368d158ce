"""Erasing a departed person's personal data (GDPR art. 17), keeping their records pseudonymous.

The person's row and every record of theirs stay, as numbers and dates under
"Former member #<id>": hours, attempts, certifications, skills, bonuses, level
changes, readiness. Their name, address, sign-in, tokens, linked accounts and
every free text of their records (the personal-data file's inventory) go, and
so do they from the audit and account trails' snapshots, from notices and from
webhook payloads. The trails' events stay: who did what, when.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import and_, delete, or_, update
from sqlalchemy.orm import Session

from tracker.audit.accounts import record_account_event
from tracker.badges.models import ImportedBadge
from tracker.careers.models import Apprenticeship, Evidence
from tracker.db import get_for_change
from tracker.errors import ValidationError
from tracker.identity.models import Identity
from tracker.issuer.models import IssuedCredential
from tracker.people.models import ApiToken, Engineer, RecoveryCode
from tracker.people.rules import BROWSER_LOCALE, PSEUDONYM
from tracker.privacy.rules import (
    DEACTIVATE_FIRST_RULE,
    ERASE_EVENT,
    ERASED_EMAIL,
    ERASED_TEXT,
)
from tracker.privacy.services.scrub import (
    Erasing,
    scrub_account_events,
    scrub_audit_events,
    scrub_notifications,
    scrub_webhook_deliveries,
)
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.signals import erasing_person


def pseudonym(person_id: int) -> str:
    """Return the name an erased person's record keeps (stored in English)."""
    return PSEUDONYM % {"id": person_id}


def erased_email(person_id: int) -> str:
    """Return the address an erased person's record keeps: unique, never delivered."""
    return ERASED_EMAIL.format(id=person_id)


def _clear_free_text(session: Session, person_id: int) -> list[tuple[str, int]]:
    """Empty every text the person's records hold; return those records' (table, id)."""
    cleared: list[tuple[str, int]] = []
    texts = (
        (HourLog, HourLog.engineer_id == person_id, {"note": ""}),
        (ExamAttempt, ExamAttempt.engineer_id == person_id, {"note": ""}),
        (
            Certification,
            and_(Certification.engineer_id == person_id, Certification.evidence != ""),
            {"evidence": ERASED_TEXT},
        ),
        (Evidence, Evidence.engineer_id == person_id, {"title": ERASED_TEXT, "note": ""}),
        (
            Apprenticeship,
            or_(Apprenticeship.junior_id == person_id, Apprenticeship.senior_id == person_id),
            {"note": ""},
        ),
        (ImportedBadge, ImportedBadge.engineer_id == person_id, {"recipient": "", "document": ""}),
        (IssuedCredential, IssuedCredential.engineer_id == person_id, {"show_name": False}),
    )
    for model, whose, values in texts:
        ids = session.scalars(update(model).where(whose).values(**values).returning(model.id))
        cleared.extend((model.__tablename__, i) for i in ids)
    return cleared


def _clear_account(session: Session, person: Engineer) -> None:
    """Give the person's row its pseudonym and take away every way into the account."""
    person.name = pseudonym(person.id)
    person.email = erased_email(person.id)
    person.experience_text = ""
    person.password_hash = None
    person.totp_secret = None
    person.totp_last_step = None
    person.calendar_token = None
    person.locale = BROWSER_LOCALE
    person.weekly_digest = False
    person.session_epoch += 1
    for model in (ApiToken, RecoveryCode, Identity):
        session.execute(
            delete(model)
            .where(model.engineer_id == person.id)
            .execution_options(synchronize_session="fetch")
        )


def erase_person(
    session: Session, person: Engineer, actor: Engineer | None, now: dt.datetime, *, via: str
) -> bool:
    """Erase a deactivated person's personal data; False when it was erased before."""
    held = get_for_change(session, Engineer, person.id)
    assert held is not None, "the person is read in this transaction"
    if held.erased_at is not None:
        return False
    if held.active:
        raise ValidationError({"active": DEACTIVATE_FIRST_RULE})
    who = Erasing(
        person_id=held.id,
        name=held.name,
        email=held.email,
        pseudonym=pseudonym(held.id),
        erased_email=erased_email(held.id),
    )
    records = _clear_free_text(session, held.id)
    scrub_audit_events(session, who, records)
    scrub_account_events(session, who)
    scrub_notifications(session, who)
    scrub_webhook_deliveries(session, who)
    erasing_person.send(held, session=session)
    _clear_account(session, held)
    held.erased_at = now
    record_account_event(
        session,
        ERASE_EVENT,
        engineer_id=held.id,
        email=who.erased_email,
        method=via,
        actor_id=None if actor is None else actor.id,
        at=now,
    )
    session.flush()
    return True
