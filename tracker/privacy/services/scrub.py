"""Erasing a person from what names them among others: trails, notices, webhook payloads."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Text, cast, delete, func, or_, select, tuple_
from sqlalchemy.orm import Session

from tracker.audit.models import AccountEvent, AuditEvent
from tracker.privacy.rules import PERSONAL_FIELDS
from tracker.privacy.services.events import addressed
from tracker.reminders.models import Notification
from tracker.webhooks.models import WebhookDelivery

# What has not gone out yet is deleted; what went out (or is going) keeps its row, scrubbed.
UNSENT_NOTICES = ("pending", "failed", "skipped")
UNSENT_DELIVERIES = ("pending", "failed")


@dataclass(frozen=True)
class Erasing:
    """Who is being erased: their id, name and address before, and what replaces them."""

    person_id: int
    name: str
    email: str
    pseudonym: str
    erased_email: str

    def text(self, value: str) -> str:
        """Return `value` with the person's name and address replaced by what replaces them."""
        value = _replace_casefree(value, self.email, self.erased_email)
        return _replace_casefree(value, self.name, self.pseudonym) if self.name else value

    def value(self, value: Any) -> Any:
        """Return a snapshot, detail or payload without the person, at any depth."""
        if isinstance(value, dict):
            return {
                k: "" if k in PERSONAL_FIELDS and isinstance(v, str) else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value

    def mentions(self, *columns: Any) -> Any:
        """Return SQL that picks the rows whose `columns` name the person (as text or JSON)."""
        words = {self.email, self.name, json.dumps(self.name)[1:-1]} - {""}
        return or_(
            *(func.lower(c).contains(w.lower(), autoescape=True) for c in columns for w in words)
        )


def _replace_casefree(value: str, old: str, new: str) -> str:
    if not old:
        return value
    lowered, old_lower = value.lower(), old.lower()
    parts, start = [], 0
    while (found := lowered.find(old_lower, start)) >= 0:
        parts.append(value[start:found] + new)
        start = found + len(old)
    return "".join(parts) + value[start:]


def scrub_audit_events(session: Session, who: Erasing, records: list[tuple[str, int]]) -> None:
    """Empty the person's data from the snapshots of the audit events about them and their records.

    The events stay: who did what to which record, and when.
    """
    about = [AuditEvent.engineer_id == who.person_id]
    if records:
        about.append(tuple_(AuditEvent.entity, AuditEvent.entity_id).in_(records))
    for event in session.scalars(select(AuditEvent).where(or_(*about))):
        event.before = who.value(event.before)
        event.after = who.value(event.after)


def scrub_account_events(session: Session, who: Erasing) -> None:
    """Take the person's address, where from and the details out of their account trail."""
    rows = session.scalars(
        select(AccountEvent).where(
            or_(
                AccountEvent.engineer_id == who.person_id,
                AccountEvent.actor_id == who.person_id,
                func.lower(AccountEvent.email) == who.email.lower(),
            )
        )
    )
    for event in rows:
        if event.actor_id == who.person_id:
            event.address = ""  # where they acted from
        if event.engineer_id == who.person_id or event.email.lower() == who.email.lower():
            event.email = who.erased_email
            event.address = ""
            event.detail = who.value(event.detail)


def scrub_notifications(session: Session, who: Erasing) -> None:
    """Delete the notices to or about the person not sent yet; scrub those sent, and mentions."""
    email = who.email.lower()
    rows = session.scalars(
        select(Notification).where(
            or_(
                Notification.engineer_id == who.person_id,
                who.mentions(
                    Notification.to_addrs,
                    Notification.cc_addrs,
                    Notification.subject,
                    Notification.body_text,
                    Notification.body_html,
                    Notification.ics,
                ),
            )
        )
    )
    for row in rows:
        theirs = (
            row.engineer_id == who.person_id
            or addressed(row.to_addrs, email)
            or addressed(row.cc_addrs, email)
        )
        if theirs and row.status in UNSENT_NOTICES:
            session.delete(row)
            continue
        row.to_addrs = who.text(row.to_addrs)
        row.cc_addrs = who.text(row.cc_addrs)
        row.subject = who.text(row.subject)
        row.body_html = who.text(row.body_html)
        if row.body_text is not None:
            row.body_text = who.text(row.body_text)
        if row.ics is not None:
            row.ics = who.text(row.ics)
        if row.unsubscribe_url is not None and theirs:
            row.unsubscribe_url = None


def scrub_webhook_deliveries(session: Session, who: Erasing) -> None:
    """Delete the undelivered webhook payloads that name the person; scrub the delivered ones."""
    naming = who.mentions(cast(WebhookDelivery.payload, Text))
    session.execute(
        delete(WebhookDelivery)
        .where(naming, WebhookDelivery.status.in_(UNSENT_DELIVERIES))
        .execution_options(synchronize_session="fetch")
    )
    for row in session.scalars(select(WebhookDelivery).where(naming)):
        row.payload = who.value(row.payload)
