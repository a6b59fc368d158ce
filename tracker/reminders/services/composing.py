"""Composing notices: the text, HTML and .ics of what the pass queued without them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from tracker.catalog.models import Credential, LearningPath
from tracker.catalog.services.reads import paths_with_courses
from tracker.db import writing
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.progress.services.paths import logged_hours_for, path_progress
from tracker.readiness.models import LapseImpact
from tracker.reminders import messages
from tracker.reminders.models import Notification
from tracker.reminders.rules import CERTIFICATIONS_PER_BATCH
from tracker.reminders.services.queueing import Mail, queued_on


def expiry_of(cert: Certification) -> dt.date:
    """Return the expiry date of a certification a notice is about (every such one expires)."""
    if cert.expires_on is None:
        raise ValueError(f"certification {cert.id} does not expire: it is owed no notice")
    return cert.expires_on


def renew_steps(cert: Certification, open_courses: Sequence[str]) -> list[str]:
    """Say how to renew: which exam, and which path courses are still open."""
    exam = cert.credential.exam
    if exam is None:
        issuer = cert.credential.issuer or "the issuer"
        return [
            f"Renew {cert.credential.name} with {issuer} "
            "and record the new credential in the tracker with its evidence."
        ]
    steps = [
        f"Pass exam {exam.code} again before {expiry_of(cert).isoformat()}; "
        "the new certification runs from the new pass date."
    ]
    if open_courses:
        steps.append("Courses still open on its path: " + ", ".join(open_courses) + ".")
    steps.append("Plan the exam date in the tracker to pause these reminders.")
    return steps


def _open_courses(
    paths: Iterable[LearningPath], logged: Mapping[int, Decimal], cert: Certification
) -> list[str]:
    """Name the open courses of the paths that end in the certification's exam."""
    exam = cert.credential.exam
    if exam is None:
        return []
    return [
        f"{c.course.title} ({c.logged.normalize():f} of {c.required.normalize():f} h)"
        for path in paths
        if path.exam_id == exam.id
        for c in path_progress(path, logged).open_courses
    ]


def compose_notices(session: Session, notifications: Sequence[Notification], mail: Mail) -> None:
    """Write the text, HTML (and .ics) of the reminders, expiry notices and escalations
    queued without them."""
    todo = [
        (n, n.certification_id)
        for n in notifications
        if n.body_text is None and n.certification_id is not None
    ]
    if not todo:
        return
    paths = paths_with_courses(session)
    for start in range(0, len(todo), CERTIFICATIONS_PER_BATCH):
        batch = todo[start : start + CERTIFICATIONS_PER_BATCH]
        certs = {
            c.id: c
            for c in session.scalars(
                select(Certification)
                .where(Certification.id.in_({cert_id for _, cert_id in batch}))
                .options(
                    selectinload(Certification.credential).selectinload(Credential.exam),
                    selectinload(Certification.engineer).selectinload(Engineer.team),
                )
            )
        }
        logged = logged_hours_for(
            session, {n.engineer_id for n, _ in batch if n.engineer_id is not None}
        )
        escalated = [cert_id for n, cert_id in batch if n.kind == "escalation"]
        impacts = dict(
            session.execute(
                select(LapseImpact.certification_id, LapseImpact.impact).where(
                    LapseImpact.certification_id.in_(escalated)
                )
            )
            .tuples()
            .all()
            if escalated
            else ()
        )
        for notification, cert_id in batch:
            cert = certs[cert_id]
            if notification.kind == "escalation":
                impact = impacts.get(cert.id, "")
                _compose_escalation(notification, cert, mail, impact)
            else:
                courses = _open_courses(paths, logged.get(cert.engineer_id, {}), cert)
                _compose_reminder(notification, cert, mail, courses)
    session.flush()


def compose_pending(factory: sessionmaker[Session], mail: Mail) -> int:
    """Compose every pending notice still without its text, a batch per transaction."""
    composed = 0
    while True:
        with writing(), factory() as session, session.begin():
            batch = list(
                session.scalars(
                    select(Notification)
                    .where(Notification.body_text.is_(None), Notification.status == "pending")
                    .order_by(Notification.id)
                    .limit(CERTIFICATIONS_PER_BATCH)
                )
            )
            if not batch:
                return composed
            compose_notices(session, batch, mail)
            composed += len(batch)


def _compose_reminder(
    notification: Notification, cert: Certification, mail: Mail, open_courses: Sequence[str]
) -> None:
    engineer = cert.engineer
    today = queued_on(notification)
    expires_on = expiry_of(cert)
    link = f"{mail.base_url.rstrip('/')}/dashboard"
    notification.body_text, notification.body_html = messages.render(
        "reminder",
        kind=notification.kind,
        engineer=engineer,
        credential=cert.credential,
        expires_on=expires_on,
        days_left=(expires_on - today).days,
        link=link,
        renew_steps=renew_steps(cert, open_courses),
    )
    notification.ics = messages.expiry_calendar(
        f"cert-{cert.id}@{mail.domain}",
        f"{cert.credential.code} expires",
        f"{engineer.name}'s {cert.credential.name} is valid through this day.",
        expires_on,
        link,
        stamp=cert.created_at,
    )


def _compose_escalation(
    notification: Notification, cert: Certification, mail: Mail, impact: str
) -> None:
    engineer = cert.engineer
    expires_on = expiry_of(cert)
    link = f"{mail.base_url.rstrip('/')}/teams/{engineer.team_id}"
    notification.body_text, notification.body_html = messages.render(
        "reminder",
        kind="escalation",
        engineer=engineer,
        credential=cert.credential,
        expires_on=expires_on,
        days_left=(expires_on - queued_on(notification)).days,
        link=link,
        # The team changed since the pass found the drop: the drop was real then.
        impact=impact or "its team's readiness drops",
        team_name=engineer.team.name if engineer.team else "the team",
        renew_steps=renew_steps(cert, ()),
    )
