"""The daily pass's webhook events: certifications expiring at a window, lapsed, readiness dropped.

They follow the notices the pass queues, in the pass's transaction: a
reminder at a window is certification.expiring, the expiry notice (the day
after the expiry) is certification.lapsed, and when the lapse drops its
team's readiness (lapse_impacts) readiness.dropped too. A notice is queued
once, ever, so each event is too; with no endpoint taking these events the
pass reads nothing more.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.orm import Session, selectinload

from tracker.people.models import Engineer
from tracker.people.schemas import PersonRef
from tracker.progress.models import Certification
from tracker.readiness.models import LapseImpact
from tracker.webhooks.schemas import (
    CertificationRef,
    ExpiringData,
    LapsedData,
    ReadinessDroppedData,
    TeamRef,
)
from tracker.webhooks.services import events as webhooks

EXPIRING = "certification.expiring"
LAPSED = "certification.lapsed"
DROPPED = "readiness.dropped"


def no_endpoint(session: Session) -> None:
    """Remember for the pass's transaction that no endpoint takes its events.

    The pass's first statement reads whether any endpoint is active
    (`pass_sql.state_statement`); with none, its events read nothing more.
    """
    for event in (EXPIRING, LAPSED, DROPPED):
        webhooks.remember_subscribers(session, event, None)


def queue_pass_events(session: Session, today: dt.date, inserted: Sequence[Row[Any]]) -> int:
    """Queue the events of the notices the pass inserted (id, kind, certification, window).

    Return how many deliveries were queued.
    """
    reminders = {r.certification_id: r.window_days for r in inserted if r.kind == "reminder"}
    lapsed = [r.certification_id for r in inserted if r.kind == "expired"]
    wanted = {
        event
        for event, certs in ((EXPIRING, reminders), (LAPSED, lapsed), (DROPPED, lapsed))
        if certs and webhooks.subscribers(session, event)
    }
    if not wanted:
        return 0
    ids = set(reminders) | set(lapsed)
    certs = {
        c.id: c
        for c in session.scalars(
            select(Certification)
            .where(Certification.id.in_(ids))
            .options(selectinload(Certification.credential), selectinload(Certification.engineer))
        )
    }
    queued = 0
    if EXPIRING in wanted:
        expiring = [
            ExpiringData(
                certification=CertificationRef.of(certs[cert_id]),
                engineer=_person(certs[cert_id].engineer),
                window_days=window,
                days_left=(_expiry(certs[cert_id]) - today).days,
            )
            for cert_id, window in sorted(reminders.items())
        ]
        queued += webhooks.queue_events(session, EXPIRING, expiring)
    if LAPSED in wanted:
        gone = [
            LapsedData(
                certification=CertificationRef.of(certs[i]), engineer=_person(certs[i].engineer)
            )
            for i in sorted(lapsed)
        ]
        queued += webhooks.queue_events(session, LAPSED, gone)
    if DROPPED in wanted:
        queued += webhooks.queue_events(session, DROPPED, _drops(session, certs, lapsed))
    return queued


def _drops(
    session: Session, certs: dict[int, Certification], lapsed: list[int]
) -> list[ReadinessDroppedData]:
    """Return the readiness drops of the lapsed certifications: their holder's team's."""
    impacts = session.scalars(
        select(LapseImpact)
        .where(LapseImpact.certification_id.in_(lapsed))
        .options(selectinload(LapseImpact.team))
        .order_by(LapseImpact.certification_id)
    )
    return [
        ReadinessDroppedData(
            team=TeamRef(id=impact.team.id, name=impact.team.name),
            certification=CertificationRef.of(cert),
            engineer=_person(cert.engineer),
            impact=impact.impact,
        )
        for impact in impacts
        for cert in [certs[impact.certification_id]]
        if cert.engineer.team_id == impact.team_id
    ]


def _expiry(cert: Certification) -> dt.date:
    assert cert.expires_on is not None, "the pass reminds only of certifications that expire"
    return cert.expires_on


def _person(engineer: Engineer) -> PersonRef:
    return PersonRef.of(engineer)
