"""What happened to a person in the file: the audit trail, the account trail, the notices."""

from __future__ import annotations

from sqlalchemy import func, or_
from sqlalchemy.orm import Session

from tracker.audit.models import AccountEvent, AuditEvent
from tracker.people.models import Engineer
from tracker.privacy.services.values import (
    Json,
    moment,
    names_of,
    person_ref,
    rows_of,
    without_secrets,
)
from tracker.reminders.models import Notification


def audit_events(session: Session, engineer: Engineer) -> list[Json]:
    """Return the audit events of the person's records, and the changes they made.

    A change they made to someone else's record says what, when and which
    record, never what it held: that is the other person's. The snapshots are
    as the trail recorded them (amounts as text, times in UTC without an offset).
    """
    # Both columns indexed: the person's events, never every event's snapshots.
    whose = or_(AuditEvent.engineer_id == engineer.id, AuditEvent.actor_id == engineer.id)
    rows = rows_of(session, AuditEvent, whose, AuditEvent.at)
    names = names_of(session, (row.actor_id for row in rows))
    events = []
    for row in rows:
        about = row.engineer_id == engineer.id
        event: Json = {
            "id": row.id,
            "at": moment(row.at),
            "entity": row.entity,
            "entity_id": row.entity_id,
            "action": row.action,
            "actor": person_ref(row.actor_id, names),
            "about_you": about,
        }
        if about:
            event["before"] = without_secrets(row.before)
            event["after"] = without_secrets(row.after)
        events.append(event)
    return events


def account_events(session: Session, engineer: Engineer) -> list[Json]:
    """Return the account trail of the person, and the changes they made to other accounts.

    An event of another account names that person (id and name) and what
    happened, never their address, where from or the change's details.
    """
    rows = rows_of(
        session,
        AccountEvent,
        or_(AccountEvent.engineer_id == engineer.id, AccountEvent.actor_id == engineer.id),
        AccountEvent.at,
    )
    names = names_of(session, (i for row in rows for i in (row.engineer_id, row.actor_id)))
    events = []
    for row in rows:
        about = row.engineer_id == engineer.id
        event: Json = {
            "id": row.id,
            "at": moment(row.at),
            "kind": row.kind,
            "method": row.method,
            "person": person_ref(row.engineer_id, names),
            "actor": person_ref(row.actor_id, names),
            "about_you": about,
        }
        if about:
            event["email"] = row.email
            event["address"] = row.address
            event["detail"] = without_secrets(row.detail)
        events.append(event)
    return events


def addressed(addresses: str, email: str) -> bool:
    """Return whether a list of addresses holds `email` itself (not one containing it)."""
    return email in (a.strip().lower() for a in addresses.split(","))


def notifications(session: Session, engineer: Engineer) -> list[Json]:
    """Return the notices about the person or sent to them: what, when, and whether sent.

    Never who else they went to, nor their bodies (a notice to a manager lists
    other people). A notice not composed yet has no subject (`composed` false):
    its text, subject included, is still to be written in its reader's language.
    """
    email = engineer.email.lower()
    rows = rows_of(
        session,
        Notification,
        or_(
            Notification.engineer_id == engineer.id,
            func.lower(Notification.to_addrs).contains(email, autoescape=True),
            func.lower(Notification.cc_addrs).contains(email, autoescape=True),
        ),
        Notification.created_at,
    )
    notices = []
    for row in rows:
        to_you = addressed(row.to_addrs, email)
        copied = addressed(row.cc_addrs, email)
        if row.engineer_id != engineer.id and not (to_you or copied):
            continue  # another address that holds theirs (ann@x.com in joann@x.com)
        notices.append(
            {
                "id": row.id,
                "kind": row.kind,
                # Until composed, the subject is the pass's English placeholder.
                "subject": row.subject if row.composed else None,
                "composed": row.composed,
                "status": row.status,
                "locale": row.locale,
                "certification_id": row.certification_id,
                "window_days": row.window_days,
                "sent_to_you": "to" if to_you else "cc" if copied else None,
                "created_at": moment(row.created_at),
                "sent_at": moment(row.sent_at),
            }
        )
    return notices
