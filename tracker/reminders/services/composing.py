"""Composing notices: the subject, text, HTML and .ics of what the pass queued, in its language."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from tracker.catalog.models.credentials import Credential, LearningPath
from tracker.catalog.services.reads import paths_with_courses
from tracker.db import writing
from tracker.i18n import format_hours, gettext, in_locale, ngettext, translate
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.progress.services.paths import logged_hours_for, path_progress
from tracker.readiness.models import LapseImpact
from tracker.readiness.services.lapses import impact_message
from tracker.reminders import calendars, messages
from tracker.reminders.models import Notification
from tracker.reminders.rules import CERTIFICATIONS_PER_BATCH, EXPIRED
from tracker.reminders.services.queueing import Mail, queued_on


def expiry_of(cert: Certification) -> dt.date:
    """Return the expiry date of a certification a notice is about (every such one expires)."""
    if cert.expires_on is None:
        raise ValueError(f"certification {cert.id} does not expire: it is owed no notice")
    return cert.expires_on


def renew_steps(
    cert: Certification, open_courses: Sequence[str], locale: str, *, expired: bool = False
) -> list[str]:
    """Say how to renew, in `locale`: which exam, and which path courses are still open."""
    exam = cert.credential.exam
    if exam is None:
        issuer = in_locale(cert.credential, locale, "issuer") or gettext("the issuer", locale)
        return [
            gettext(
                "Renew %(name)s with %(issuer)s "
                "and record the new credential in the tracker with its evidence.",
                locale,
                name=in_locale(cert.credential, locale),
                issuer=issuer,
            )
        ]
    # Once the date has passed, "before" it is no longer a step anyone can take.
    steps = [
        gettext(
            "Pass exam %(code)s again; the new certification runs from the new pass date.",
            locale,
            code=exam.code,
        )
        if expired
        else gettext(
            "Pass exam %(code)s again by %(date)s; "
            "the new certification runs from the new pass date.",
            locale,
            code=exam.code,
            date=messages.mail_day(expiry_of(cert), locale),
        )
    ]
    if open_courses:
        steps.append(
            gettext(
                "Courses still open on its path: %(courses)s.",
                locale,
                courses=", ".join(open_courses),
            )
        )
    steps.append(gettext("Plan the exam date in the tracker to pause these reminders.", locale))
    return steps


def _open_courses(
    paths: Iterable[LearningPath],
    logged: Mapping[int, Decimal],
    cert: Certification,
    locale: str,
) -> list[str]:
    """Name the open courses of the paths that end in the certification's exam."""
    exam = cert.credential.exam
    if exam is None:
        return []
    return [
        gettext(
            "%(title)s (%(logged)s of %(required)s h)",
            locale,
            title=in_locale(c.course, locale),
            logged=format_hours(c.logged, locale),
            required=format_hours(c.required, locale),
        )
        for path in paths
        if path.exam_id == exam.id
        for c in path_progress(path, logged).open_courses
    ]


def written_kind(notification: Notification) -> str:
    """Return what a notice says: "reminder", "expired" or "escalation" (a copy, its notice's)."""
    if notification.kind != "copy":
        return notification.kind
    if notification.window_days is None:
        return "escalation"
    return "expired" if notification.window_days == EXPIRED else "reminder"


def compose_notices(session: Session, notifications: Sequence[Notification], mail: Mail) -> None:
    """Write the subject, text, HTML (and .ics) of the reminders, expiry notices,
    escalations and their copies queued without them, each in its own language.

    An escalation addressed to its engineer alone (none of their managers reads
    their language) speaks to them: "your certification", not theirs by name.
    """
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
        escalated = [cert_id for n, cert_id in batch if written_kind(n) == "escalation"]
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
        names = _names_of(
            session,
            {
                a
                for n, _ in batch
                if written_kind(n) == "escalation"
                for a in _addresses(n.to_addrs)
            },
        )
        for notification, cert_id in batch:
            cert = certs[cert_id]
            if written_kind(notification) == "escalation":
                impact = impacts.get(cert.id, "")
                to = _addresses(notification.to_addrs)
                greeting = _greeting(names, to, notification.locale)
                # None of the managers reads the engineer's language: the
                # escalation goes to the engineer alone, and speaks to them.
                to_holder = to == [cert.engineer.email]
                _compose_escalation(notification, cert, mail, impact, greeting, to_holder)
            else:
                courses = _open_courses(
                    paths, logged.get(cert.engineer_id, {}), cert, notification.locale
                )
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


def _addresses(listed: str) -> list[str]:
    """Return the addresses of an outbox row's comma-separated recipients."""
    return [a.strip() for a in listed.split(",") if a.strip()]


def _names_of(session: Session, emails: set[str]) -> dict[str, str]:
    if not emails:
        return {}
    return dict(
        session.execute(select(Engineer.email, Engineer.name).where(Engineer.email.in_(emails)))
        .tuples()
        .all()
    )


def _greeting(names: Mapping[str, str], to: Sequence[str], locale: str) -> str:
    """Name everyone the notice is addressed to: "Ana", "Ana and Ben", "Ana, Ben and Cy"."""
    named = [names.get(address, address) for address in to]
    if len(named) < 2:
        return "".join(named)
    return gettext("%(names)s and %(last)s", locale, names=", ".join(named[:-1]), last=named[-1])


def _calendar(cert: Certification, mail: Mail, locale: str) -> str:
    # The feeds' very event: a calendar that gets it twice (a reminder, an
    # escalation, the team's feed) keeps one, with nothing to tell apart.
    return messages.expiry_calendar(calendars.certification_event(cert, mail.base_url, locale))


def subject_of(
    kind: str, cert: Certification, days_left: int, locale: str, *, to_holder: bool = False
) -> str:
    """Return a notice's subject in `locale` (the pass wrote it in English already).

    `to_holder`: an escalation addressed to the engineer whose certification it is.
    """
    code = cert.credential.code
    date = messages.mail_day(expiry_of(cert), locale)
    if kind == "expired":
        return gettext("%(code)s valid through %(date)s (lapsed)", locale, code=code, date=date)
    if kind == "escalation" and to_holder:
        return gettext(
            "Escalation: your %(code)s is valid through %(date)s, then readiness drops",
            locale,
            code=code,
            date=date,
        )
    if kind == "escalation":
        return gettext(
            "Escalation: %(name)s's %(code)s is valid through %(date)s, then readiness drops",
            locale,
            name=messages.person_name(cert.engineer, locale),
            code=code,
            date=date,
        )
    return ngettext(
        "%(code)s valid through %(date)s (%(num)s day from today)",
        "%(code)s valid through %(date)s (%(num)s days from today)",
        days_left,
        locale,
        code=code,
        date=date,
        num=messages.mail_number(days_left, locale),
    )


def _compose_reminder(
    notification: Notification, cert: Certification, mail: Mail, open_courses: Sequence[str]
) -> None:
    engineer = cert.engineer
    locale = notification.locale
    kind = written_kind(notification)
    expires_on = expiry_of(cert)
    days_left = (expires_on - queued_on(notification)).days
    link = calendars.engineer_page(mail.base_url, engineer)
    notification.subject = subject_of(kind, cert, days_left, locale)
    notification.ics = _calendar(cert, mail, locale)
    notification.body_text, notification.body_html = messages.render(
        "reminder",
        locale,
        kind=kind,
        # A reminder or expiry notice goes to the engineer, the managers who
        # read its language copied; a copy in another language says whose it is.
        copy_of=engineer if notification.kind == "copy" else None,
        greeting=messages.person_name(engineer, locale),
        engineer=engineer,
        credential=cert.credential,
        expires_on=expires_on,
        days_left=days_left,
        link=link,
        link_text=gettext("Open the tracker", locale),
        renew_steps=renew_steps(cert, open_courses, locale, expired=days_left < 0),
        calendar=notification.ics is not None,
    )


def _compose_escalation(
    notification: Notification,
    cert: Certification,
    mail: Mail,
    impact: str,
    greeting: str,
    to_holder: bool,
) -> None:
    engineer = cert.engineer
    locale = notification.locale
    expires_on = expiry_of(cert)
    days_left = (expires_on - queued_on(notification)).days
    link = calendars.engineer_page(mail.base_url, engineer)
    notification.subject = subject_of("escalation", cert, days_left, locale, to_holder=to_holder)
    notification.ics = _calendar(cert, mail, locale)
    notification.body_text, notification.body_html = messages.render(
        "reminder",
        locale,
        kind="escalation",
        copy_of=None,
        to_holder=to_holder,
        greeting=greeting,
        engineer=engineer,
        credential=cert.credential,
        expires_on=expires_on,
        days_left=days_left,
        link=link,
        link_text=gettext("Open your certifications in the tracker", locale)
        if to_holder
        else gettext(
            "Open %(name)s's certifications in the tracker",
            locale,
            name=messages.person_name(engineer, locale),
        ),
        # The team changed since the pass found the drop: the drop was real then.
        impact=translate(impact_message(impact), locale)
        if impact
        else gettext("its team's readiness drops", locale),
        team_name=engineer.team.name if engineer.team else gettext("the team", locale),
        renew_steps=renew_steps(cert, (), locale, expired=days_left < 0),
        calendar=notification.ics is not None,
    )
