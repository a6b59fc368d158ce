"""Scene builders shared by the reminder tests."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.reminders.models import Notification
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.queueing import Mail, PassReport
from tracker.reminders.services.windows import Windows

D = dt.date
DAY = dt.timedelta(days=1)
BASE_URL = "https://tracker.example.com"
MAIL = Mail(base_url=BASE_URL, domain="tracker.example.com")
WINDOWS = Windows()
EXPIRES = D(2027, 3, 1)  # a Monday; the expiry most scenes use
EARNED = D(2025, 3, 1)
FAR = D(2030, 1, 1)


def days_before(n: int, expiry: dt.date = EXPIRES) -> dt.date:
    return expiry - dt.timedelta(days=n)


def holder(
    db: Session,
    code: str = "NCA-AIIO",
    expires_on: dt.date | None = EXPIRES,
    **engineer: object,
) -> tuple[Engineer, Certification]:
    """Create an engineer holding `code` until `expires_on`."""
    who = factories.engineer(db, **engineer)
    return who, factories.certification(db, who, code, EARNED, expires_on)


def run(db: Session, day: dt.date, windows: Windows = WINDOWS) -> PassReport:
    """Run the reminder pass for `day` on the test session."""
    return plan(db, day, windows, MAIL)


def outbox(db: Session, kind: str | None = None) -> list[Notification]:
    query = select(Notification).order_by(Notification.id)
    if kind is not None:
        query = query.where(Notification.kind == kind)
    return list(db.scalars(query))


def windows_of(report: PassReport, cert: Certification) -> list[int | None]:
    """Return the windows queued for `cert` by one pass (reminders and expiry notices)."""
    return [
        n.window_days
        for n in report.queued
        if n.certification_id == cert.id and n.kind in ("reminder", "expired")
    ]
