"""Everything the tracker holds about a person, as one JSON-ready document (GDPR art. 15, 20)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tracker.audit.accounts import record_account_event
from tracker.people.models import Engineer
from tracker.privacy.rules import EXPORT_EVENT, FILENAME, FORMAT, VERSION
from tracker.privacy.services import account, badges, events, records
from tracker.privacy.services.values import Json, moment

# One key per kind of record, each a list by date then id; the order the file lists them.
SECTIONS = {
    "job_roles": account.job_roles,
    "level_changes": account.level_changes,
    "api_tokens": account.api_tokens,
    "identities": account.identities,
    "hour_logs": records.hour_logs,
    "exam_attempts": records.exam_attempts,
    "exam_plans": records.exam_plans,
    "certifications": records.certifications,
    "evidence": records.evidence,
    "skill_assessments": records.skill_assessments,
    "apprenticeships": records.apprenticeships,
    "imported_badges": badges.imported_badges,
    "issued_credentials": badges.issued_credentials,
    "notifications": events.notifications,
    "audit_events": events.audit_events,
    "account_events": events.account_events,
}


def personal_data(session: Session, engineer: Engineer, now: dt.datetime) -> Json:
    """Return everything the tracker holds about `engineer`, without a secret or another's data."""
    document: Json = {
        "format": FORMAT,
        "version": VERSION,
        "generated_at": moment(now),
        "person": account.person(session, engineer),
    }
    for key, section in SECTIONS.items():
        document[key] = section(session, engineer)
    return document


def filename(today: dt.date) -> str:
    """Return the name the file is saved under."""
    return FILENAME.format(day=today.isoformat())


def record_export(
    session: Session, engineer: Engineer, by: Engineer, *, via: str, address: str = ""
) -> None:
    """Note in the account trail that `by` downloaded `engineer`'s data."""
    # The trail names no actor for what a person did to their own account.
    record_account_event(
        session,
        EXPORT_EVENT,
        engineer_id=engineer.id,
        email=engineer.email,
        method=via,
        actor_id=None if by.id == engineer.id else by.id,
        address=address,
    )
    session.flush()
