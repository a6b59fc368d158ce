"""Calendar feeds: each engineer's and each team's certification expiries as iCalendar.

A feed lives at a secret URL (the token is the only key), so people can
subscribe from their calendar program; replacing or removing the token revokes
the old URL at once. Plain functions taking a session; they only flush.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from urllib.parse import urlsplit

from icalendar import Calendar, Event
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from tracker.i18n import DEFAULT_LOCALE, gettext, in_locale
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification
from tracker.progress.services.validity import newest_per_credential
from tracker.reminders import messages
from tracker.reminders.rules import FEED_TOKEN_SHAPE

DEFAULT_BASE_URL = "http://127.0.0.1:5000"


def new_token() -> str:
    """Return a fresh, unguessable feed token."""
    return secrets.token_urlsafe(32)


def well_formed(token: str) -> bool:
    """Return whether `token` could be a feed token (saves a query on junk)."""
    return FEED_TOKEN_SHAPE.fullmatch(token) is not None


# --- tokens -----------------------------------------------------------------


def engineer_by_token(session: Session, token: str) -> Engineer | None:
    """Return the active engineer whose feed `token` is, or None."""
    if not well_formed(token):
        return None
    return session.scalar(
        select(Engineer).where(Engineer.calendar_token == token, Engineer.active.is_(True))
    )


def team_by_token(session: Session, token: str) -> Team | None:
    """Return the team whose feed `token` is, or None."""
    if not well_formed(token):
        return None
    return session.scalar(select(Team).where(Team.calendar_token == token))


def replace_token(session: Session, owner: Engineer | Team) -> str:
    """Give `owner` a new feed token (revoking any old one) and return it."""
    owner.calendar_token = new_token()
    session.flush()
    return owner.calendar_token


def remove_token(session: Session, owner: Engineer | Team) -> None:
    """Revoke `owner`'s feed: its URL answers 404 from now on."""
    owner.calendar_token = None
    session.flush()


# --- feeds ------------------------------------------------------------------


def current_certifications(session: Session, engineer_ids: Iterable[int]) -> list[Certification]:
    """Return each engineer's current certifications that expire, by expiry date.

    Current: the newest per credential, so one that was renewed is left out.
    """
    ids = list(engineer_ids)
    if not ids:
        return []
    certs = session.scalars(
        select(Certification)
        .where(Certification.engineer_id.in_(ids))
        .options(
            selectinload(Certification.credential),
            selectinload(Certification.engineer),
            selectinload(Certification.renewed_by),
        )
    ).all()
    by_engineer: dict[int, list[Certification]] = {}
    for cert in certs:
        by_engineer.setdefault(cert.engineer_id, []).append(cert)
    current = [
        cert
        for held in by_engineer.values()
        for cert in newest_per_credential(held).values()
        if cert.expires_on is not None and cert.renewed_by is None
    ]
    return sorted(current, key=lambda c: (c.expires_on, c.engineer.name, c.credential.code, c.id))


def event_uid(cert: Certification, base_url: str) -> str:
    """Return the event's UID: stable per certification, the same as the reminder's .ics."""
    return f"cert-{cert.id}@{urlsplit(base_url).hostname or 'tracker.localhost'}"


def engineer_page(base_url: str, engineer: Engineer) -> str:
    """Return the engineer's page: it shows the same certifications to them, their managers
    and admins, so a link to it opens for whoever a notice or a feed reaches."""
    return f"{base_url.rstrip('/')}/engineers/{engineer.id}"


def certification_event(cert: Certification, base_url: str, locale: str) -> Event:
    """Return the certification's all-day event on its last valid day, as every feed and
    notice carries it: one UID, and the same summary, description and link in each, so a
    calendar that gets it twice (a feed and a mailed .ics) holds one version of it."""
    if cert.expires_on is None:
        raise ValueError(f"certification {cert.id} does not expire: it has no event")
    who = messages.person_name(cert.engineer, locale)
    return messages.expiry_event(
        event_uid(cert, base_url),
        messages.expiry_summary(cert.credential.code, locale, who),
        messages.expiry_description(who, in_locale(cert.credential, locale), locale),
        cert.expires_on,
        engineer_page(base_url, cert.engineer),
        stamp=cert.created_at,
    )


def _feed(name: str, certs: Iterable[Certification], base_url: str, *, locale: str) -> str:
    calendar = Calendar()
    calendar.add("prodid", "-//tracker//certification expiry//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    calendar.add("x-published-ttl", "PT12H")
    for cert in certs:
        if cert.expires_on is None:
            continue  # it never expires: nothing to put in a calendar
        calendar.add_component(certification_event(cert, base_url, locale))
    return calendar.to_ical().decode()


def _calendar_name(name: str, locale: str) -> str:
    return gettext("Certification expiries · %(name)s", locale, name=name)


def engineer_feed(
    session: Session,
    engineer: Engineer,
    base_url: str = DEFAULT_BASE_URL,
    default_locale: str = DEFAULT_LOCALE,
) -> str:
    """Return the engineer's feed, in their language: an all-day event per current expiry."""
    locale = messages.reader_locale(engineer.locale, default_locale)
    return _feed(
        _calendar_name(messages.person_name(engineer, locale), locale),
        current_certifications(session, [engineer.id]),
        base_url,
        locale=locale,
    )


def team_feed(
    session: Session,
    team: Team,
    base_url: str = DEFAULT_BASE_URL,
    default_locale: str = DEFAULT_LOCALE,
) -> str:
    """Return the team's feed: the expiries of every active member's current certifications.

    Written in the language of the team's manager, who owns the feed (else `default_locale`).
    """
    members = session.scalars(
        select(Engineer.id).where(Engineer.team_id == team.id, Engineer.active.is_(True))
    ).all()
    locale = messages.reader_locale(team.manager.locale if team.manager else None, default_locale)
    return _feed(
        _calendar_name(team.name, locale),
        current_certifications(session, members),
        base_url,
        locale=locale,
    )
