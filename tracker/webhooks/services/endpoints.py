"""Registering endpoints: checking their URL and events, removing them, rotating secrets."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.audit import services as audit
from tracker.egress import HostNotFound, PrivateHost, check_host
from tracker.errors import ValidationError
from tracker.i18n import Message, msg
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.rules import (
    EVENT_SEPARATOR,
    EVENTS,
    EVENTS_COUNT_RULE,
    EVENTS_RULE,
    FORMAT_RULE,
    FORMATS,
    MAX_EVENTS,
    MAX_URL_LENGTH,
    ROTATION_OVERLAP,
    UNKNOWN_EVENTS_RULE,
    URL_LENGTH_RULE,
    URL_NOT_FOUND_RULE,
    URL_PRIVATE_RULE,
    URL_RULE,
    URL_SCHEMES,
)
from tracker.webhooks.services.events import forget_subscribers
from tracker.webhooks.services.signing import new_secret

# What the audit trail keeps of an endpoint: never its secrets.
_AUDITED = ("url", "events", "format", "active")


def url_problem(url: str) -> Message | None:
    """Return what is wrong with the form of an endpoint's URL (the rule it breaks), or None."""
    if len(url) > MAX_URL_LENGTH:
        return msg(URL_LENGTH_RULE, max=MAX_URL_LENGTH)
    if not url or any(ch.isspace() or ord(ch) < 32 for ch in url):
        return URL_RULE
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a port that is not a number raises)
    except ValueError:
        return URL_RULE
    if parts.scheme.lower() not in URL_SCHEMES or not parts.hostname:
        return URL_RULE
    return None


def host_problem(url: str, allow_hosts: Collection[str]) -> Message | None:
    """Return why a well-formed URL's host may not be sent to (inside the network), or None.

    `allow_hosts` (TRACKER_WEBHOOK_ALLOW_HOSTS) lets listed hosts or addresses through.
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    try:
        check_host(host, port, allow_hosts)
    except HostNotFound:
        return msg(URL_NOT_FOUND_RULE, host=host)
    except PrivateHost:
        return msg(URL_PRIVATE_RULE, host=host)
    return None


def read_events(events: str | Iterable[str]) -> list[str]:
    """Return the events named (a list, or names separated by commas) in EVENTS' order."""
    names = events.split(",") if isinstance(events, str) else list(events)
    named = [name.strip() for name in names if name.strip()]
    if len(named) > MAX_EVENTS:
        raise ValidationError({"events": EVENTS_COUNT_RULE})
    wanted = set(named)
    listed = ", ".join(EVENTS)
    unknown = sorted(wanted - set(EVENTS))
    if unknown:
        raise ValidationError(
            {"events": msg(UNKNOWN_EVENTS_RULE, events=listed, unknown=", ".join(unknown))}
        )
    if not wanted:
        raise ValidationError({"events": msg(EVENTS_RULE, events=listed)})
    return [name for name in EVENTS if name in wanted]


def check_endpoint(
    url: str, events: str | Iterable[str], format_: str, *, allow_hosts: Collection[str]
) -> tuple[str, list[str]]:
    """Return the URL (trimmed) and events of an endpoint; refuse every bad field at once."""
    errors: dict[str, str] = {}
    url = url.strip()
    problem = url_problem(url) or host_problem(url, allow_hosts)
    if problem:
        errors["url"] = problem
    try:
        names = read_events(events)
    except ValidationError as exc:
        errors.update(exc.errors)
        names = []
    if format_ not in FORMATS:
        errors["format"] = msg(FORMAT_RULE, formats=", ".join(FORMATS))
    if errors:
        raise ValidationError(errors)
    return url, names


def add_endpoint(
    session: Session,
    url: str,
    events: str | Iterable[str],
    format_: str = "generic",
    actor_id: int | None = None,
    *,
    allow_hosts: Collection[str],
) -> WebhookEndpoint:
    """Register an endpoint with a new secret (read it from the endpoint returned).

    Its host must be public unless `allow_hosts` (TRACKER_WEBHOOK_ALLOW_HOSTS) lists it.
    The host is looked up (DNS) before anything is read or written: a caller
    whose transaction is released first (db.release) holds nothing meanwhile.
    """
    url, names = check_endpoint(url, events, format_, allow_hosts=allow_hosts)
    endpoint = WebhookEndpoint(
        url=url, events=EVENT_SEPARATOR.join(names), format=format_, secret=new_secret()
    )
    session.add(endpoint)
    session.flush()
    _audit(session, actor_id, endpoint, "create")
    forget_subscribers(session)
    return endpoint


def endpoints(session: Session) -> list[WebhookEndpoint]:
    """Return every endpoint, oldest first."""
    return list(session.scalars(select(WebhookEndpoint).order_by(WebhookEndpoint.id)))


def remove_endpoint(
    session: Session, endpoint: WebhookEndpoint, actor_id: int | None = None
) -> None:
    """Remove an endpoint and its deliveries, sent or not: nothing more goes to it."""
    _audit(session, actor_id, endpoint, "delete")
    session.delete(endpoint)
    session.flush()
    forget_subscribers(session)


def rotate_secret(
    session: Session, endpoint: WebhookEndpoint, now: dt.datetime, actor_id: int | None = None
) -> WebhookEndpoint:
    """Give an endpoint a new secret; the old one signs too for ROTATION_OVERLAP."""
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_until = now + ROTATION_OVERLAP
    endpoint.secret = new_secret()
    session.flush()
    _audit(session, actor_id, endpoint, "rotate-secret")
    return endpoint


def _audit(session: Session, actor_id: int | None, endpoint: WebhookEndpoint, action: str) -> None:
    values = {name: getattr(endpoint, name) for name in _AUDITED}
    audit.record_row(
        session,
        actor_id,
        WebhookEndpoint.__tablename__,
        endpoint.id,
        action,
        after=None if action == "delete" else values,
        before=values if action == "delete" else None,
    )
