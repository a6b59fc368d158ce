"""The daily pass: queue every notice due on a day, in the transaction that decides it.

The pass runs every day over every certification within reach of a window,
and most days almost nothing is owed, so it asks the database for what is
owed rather than reading what is in reach. A first statement takes the pass
lock and reads what else is due (teams or a catalog to judge, the week's
digests, whether an escalation may be owed, whether any webhook endpoint is
active); one INSERT ... SELECT then finds the owed reminders (the window
computed in SQL, what is queued or acknowledged excluded there), and the
escalations when any may be owed, and writes their rows (`reminders_sql`); once a
week the digests follow. Lapses are judged team by team only when a team's readiness
revision moved since it was last judged (see tracker.readiness.models), and
kept in lapse_impacts: a lapse's impact is judged on the day after the
expiry, so it changes with the team's data, not with the passing days.
Composing the messages (text, HTML, .ics) is a step of its own after the pass
(`compose_pending`), so that the pass stays as cheap as the query that finds
what is due.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.clock import utcnow
from tracker.readiness.services.lapses import judge_lapses
from tracker.reminders.models import Notification, ReminderRun
from tracker.reminders.services.composing import compose_notices
from tracker.reminders.services.digests import queue_digests
from tracker.reminders.services.pass_events import no_endpoint, queue_pass_events
from tracker.reminders.services.pass_sql import day_params, execute, state_statement
from tracker.reminders.services.queueing import Mail, PassReport, dialect_insert, due_at
from tracker.reminders.services.reminders_sql import reminders_statement
from tracker.reminders.services.windows import Windows


def plan(
    session: Session,
    today: dt.date,
    windows: Windows,
    mail: Mail,
    *,
    keep: bool = True,
    compose: bool = True,
) -> PassReport:
    """Queue every notice due on `today`: reminders, expiry notices, escalations, digests.

    Writes outbox rows only (flushes); the caller commits, and the sender
    delivers after the commit. With `keep` off the report counts the notices
    without holding them (the scheduler's way: its memory stays flat). With
    `compose` off the reminders are queued without their text, for
    `compose_pending` to write after the commit (the scheduler's way too: the
    pass then costs about what finding the due certifications costs).
    """
    report = PassReport(keep=keep)
    state = _PassState.read(session, today, windows)
    judged = 0
    if state.stale_teams or not state.catalog_judged:
        judged = judge_lapses(
            session, today, windows.expired_grace_days, every_team=not state.catalog_judged
        )
        if not state.catalog_judged and state.catalog_stamp is not None:
            _mark_run(session, "catalog", state.catalog_stamp)
    escalations = state.escalations_due or judged > 0
    queued = _queue_reminders(session, report, today, windows, mail, keep or compose, escalations)
    if not state.digested:
        queue_digests(session, report, today, state.week, mail)
        _mark_run(session, "digest", state.week)
    if compose:
        compose_notices(session, queued, mail)
    return report


@dataclass(frozen=True)
class _PassState:
    """What the pass must do besides the reminders, read in one query."""

    week: str
    catalog_stamp: str | None
    catalog_judged: bool
    digested: bool
    stale_teams: bool
    escalations_due: bool

    @classmethod
    def read(cls, session: Session, today: dt.date, windows: Windows) -> _PassState:
        year, week, _ = today.isocalendar()
        week_key = f"{year}-W{week:02d}"
        connection = session.connection()
        params = {"week": week_key, **day_params(today, windows)}
        row = execute(connection, state_statement(connection.dialect.name), params).one()
        catalog_stamp, catalog_judged, digested, stale, escalations, endpoints = row[-6:]
        if not endpoints:
            no_endpoint(session)
        return cls(
            week_key,
            catalog_stamp,
            bool(catalog_judged) or catalog_stamp is None,
            bool(digested),
            bool(stale),
            bool(escalations),
        )


def _mark_run(session: Session, kind: str, period: str) -> None:
    """Record that the pass did its `kind` work for `period` (a concurrent pass may have too)."""
    session.execute(
        dialect_insert(session, ReminderRun)
        .on_conflict_do_nothing()
        .values(kind=kind, period=period, created_at=utcnow())
    )


def _queue_reminders(
    session: Session,
    report: PassReport,
    today: dt.date,
    windows: Windows,
    mail: Mail,
    keep: bool,
    escalations: bool,
) -> list[Notification]:
    """Queue the reminders and expiry notices owed on `today`, without their text, in one statement.

    Owed: the certification's current window has not been queued yet and no
    plan acknowledges it (an expiry notice cannot be acknowledged). The
    statement finds them and writes their rows (subject, recipients, key,
    language, and a copy for the managers who read another language)
    itself: a day's pass reads and writes only what is owed; the webhook
    events of what it queued follow (`pass_events`). With
    `escalations`, the same statement does it for the escalations owed too
    (the pass knows whether any may be). With `keep`, the rows are returned
    as entities.
    """
    params = {
        **day_params(today, windows),
        # Unique: the key is, and the pass's own random part tells passes apart.
        "message_id_end": f".{uuid.uuid4().hex[:12]}@{mail.domain}>",
        # The language of those whose setting is "as my browser asks".
        "default_locale": mail.locale,
        "next_attempt_at": due_at(today),
        "created_at": utcnow(),
    }
    connection = session.connection()
    inserted = execute(connection, reminders_statement(windows, escalations), params).all()
    # The notices' webhook events, in the same transaction (nothing when none is subscribed).
    queue_pass_events(session, today, inserted)
    if not keep:
        for row in inserted:
            report.count_one(row.kind)
        return []
    notifications = list(
        session.scalars(
            select(Notification)
            .where(Notification.id.in_([row.id for row in inserted]))
            .order_by(Notification.id)
        )
    )
    for notification in notifications:
        report.add(notification)
    return notifications
