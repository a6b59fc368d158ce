"""Delivery: the sender claims due webhook deliveries, POSTs them signed, and marks each.

As the mail's outbox (tracker.reminders.services.delivery): rows are claimed
with a lease (tracker.outbox.CLAIM_LEASE), so a sender that dies leaves
them to the next one; each row's outcome commits before the next is sent. A
2xx answer delivers the row; anything else (another status, a refused
connection, a timeout) is retried with the outboxes' back-off, the same
webhook-id every time, until MAX_ATTEMPTS make it `failed`, for an admin to
retry. Redirects are not followed: a delivery goes to the URL registered.
Its host is checked again as the connection opens, and the connection goes to
the very addresses checked: a name that has come to resolve inside the network
since registration is refused (retried, then failed), never sent. No proxy of
the environment is used, since the check must see the host connected to.
"""

from __future__ import annotations

import datetime as dt
import http.client
import socket
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from sqlalchemy import Row, Table, func, or_, select, text, update
from sqlalchemy.orm import Session, selectinload, sessionmaker

from tracker.db import writing
from tracker.egress import EgressRefused, HostNotFound, opener
from tracker.errors import ValidationError
from tracker.i18n import N_
from tracker.outbox import CLAIM_LEASE, ERROR_TEXT_LIMIT, backoff
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint
from tracker.webhooks.rules import (
    ANSWER_TEXT_LIMIT,
    DELIVERIES_SHOWN,
    DELIVERY_TIMEOUT,
    MAX_ATTEMPTS,
    SEND_BATCH,
    URL_NOT_FOUND_RULE,
    URL_PRIVATE_RULE,
    URL_SCHEMES,
)
from tracker.webhooks.services.formats import body as render
from tracker.webhooks.services.signing import signed_headers, signing_secrets

_deliveries = cast(Table, WebhookDelivery.__table__)
_endpoints = cast(Table, WebhookEndpoint.__table__)
USER_AGENT = "tracker-webhooks"

# Sends one POST: (url, body, headers, timeout) -> (status, the answer's start).
Post = Callable[[str, bytes, Mapping[str, str], float], tuple[int, str]]


@dataclass
class WebhookReport:
    """How many deliveries a run delivered, put back for a retry, or failed for good."""

    sent: int = 0
    retried: int = 0
    failed: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"sent": self.sent, "retried": self.retried, "failed": self.failed}


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    timeout: float,
    allow_hosts: Collection[str] = frozenset(),
) -> tuple[int, str]:
    """POST `body` to `url`; return the answer's status and the start of its text.

    Raises EgressRefused, sending nothing, when the host is not public and not in
    `allow_hosts` (TRACKER_WEBHOOK_ALLOW_HOSTS).
    """
    if url.split(":", 1)[0].lower() not in URL_SCHEMES:
        raise ValueError("not an http or https URL")
    request = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
    try:
        with opener(frozenset(allow_hosts)).open(request, timeout=timeout) as response:
            return response.status, response.read(ANSWER_TEXT_LIMIT).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, exc.read(ANSWER_TEXT_LIMIT).decode(errors="replace")
        finally:
            exc.close()
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, EgressRefused):
            raise exc.reason from None
        raise


def deliver(
    factory: sessionmaker[Session],
    now: dt.datetime,
    *,
    force: bool = False,
    batch: int = SEND_BATCH,
    worker: str | None = None,
    timeout: float = DELIVERY_TIMEOUT,
    allow_hosts: Collection[str] = frozenset(),
    send: Post | None = None,
) -> WebhookReport:
    """POST due deliveries, signed, marking each as it goes; return what happened.

    With `force` (`tracker remind`) every pending delivery goes now, back-off
    notwithstanding, but none another sender holds. Every mark has committed
    when this returns. Only public hosts and those in `allow_hosts`
    (TRACKER_WEBHOOK_ALLOW_HOSTS) are sent to.
    """
    send = send or partial(post, allow_hosts=frozenset(allow_hosts))
    worker = worker or f"{socket.gethostname()}:{uuid.uuid4().hex[:8]}"
    report = WebhookReport()
    seen: set[int] = set()
    while True:
        rows, endpoints = _claim(factory, worker, now, batch, force, seen)
        if not rows:
            return report
        seen.update(r.id for r in rows)
        for row in rows:
            endpoint = endpoints.get(row.endpoint_id)
            if endpoint is not None:
                _send_one(factory, row, endpoint, worker, now, timeout, send, report)


def _claim(
    factory: sessionmaker[Session],
    worker: str,
    now: dt.datetime,
    batch: int,
    force: bool,
    skip: set[int],
) -> tuple[list[Row[Any]], dict[int, Row[Any]]]:
    """Take up to `batch` due deliveries for this worker and read their endpoints; commit."""
    with writing(), factory() as session, session.begin():
        due = select(_deliveries.c.id).where(_deliveries.c.status.in_(("pending", "sending")))
        if force:
            due = due.where(
                or_(_deliveries.c.status == "pending", _deliveries.c.next_attempt_at <= now)
            )
        else:
            due = due.where(_deliveries.c.next_attempt_at <= now)
        if skip:
            due = due.where(_deliveries.c.id.not_in(skip))
        due = due.order_by(_deliveries.c.next_attempt_at, _deliveries.c.id).limit(batch)
        if session.get_bind().dialect.name == "postgresql":
            due = due.with_for_update(skip_locked=True)
            # As the mail's claim: read the queue's index in order (see reminders.delivery).
            session.execute(text("SET LOCAL enable_bitmapscan = off"))
        rows = list(
            session.execute(
                update(_deliveries)
                .where(_deliveries.c.id.in_(due.scalar_subquery()))
                .values(status="sending", claimed_by=worker, next_attempt_at=now + CLAIM_LEASE)
                .returning(
                    _deliveries.c.id,
                    _deliveries.c.endpoint_id,
                    _deliveries.c.webhook_id,
                    _deliveries.c.payload,
                    _deliveries.c.attempts,
                )
            ).all()
        )
        rows.sort(key=lambda r: r.id)
        ids = {r.endpoint_id for r in rows}
        endpoints = {
            e.id: e
            for e in session.execute(select(_endpoints).where(_endpoints.c.id.in_(ids))).all()
        }
        return rows, endpoints


def _send_one(
    factory: sessionmaker[Session],
    row: Row[Any],
    endpoint: Row[Any],
    worker: str,
    now: dt.datetime,
    timeout: float,
    send: Post,
    report: WebhookReport,
) -> None:
    content = render(endpoint.format, row.payload)
    # The attempt's own time: receivers check it against their clock.
    at = int(time.time())
    keys = signing_secrets(
        endpoint.secret, endpoint.previous_secret, endpoint.previous_until, _utc(at)
    )
    headers = {
        **signed_headers(keys, row.webhook_id, at, content),
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
    }
    attempts = row.attempts + 1
    try:
        status, answer = send(endpoint.url, content.encode(), headers, timeout)
    except EgressRefused as exc:
        rule = URL_NOT_FOUND_RULE if isinstance(exc, HostNotFound) else URL_PRIVATE_RULE
        error = f"not sent: {rule % {'host': exc.host}}"
    except (OSError, ValueError, http.client.HTTPException) as exc:
        # Refused, timed out, dropped, not HTTP: the endpoint is retried like any failure.
        error = f"cannot deliver: {type(exc).__name__}: {exc}"
    else:
        if 200 <= status < 300:
            _mark(factory, row, worker, status="delivered", attempts=attempts, sent_at=now)
            report.sent += 1
            return
        error = f"answered {status}: {answer}".strip()
    if attempts >= MAX_ATTEMPTS:
        _mark(factory, row, worker, status="failed", attempts=attempts, last_error=error)
        report.failed += 1
        return
    _mark(
        factory,
        row,
        worker,
        status="pending",
        attempts=attempts,
        next_attempt_at=now + backoff(attempts),
        last_error=error,
    )
    report.retried += 1


def _utc(at: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(at, dt.UTC).replace(tzinfo=None)


def _mark(factory: sessionmaker[Session], row: Row[Any], worker: str, **values: Any) -> None:
    """Record a delivery's outcome if this worker still holds it; commit it at once."""
    if values.get("last_error"):
        values["last_error"] = values["last_error"][:ERROR_TEXT_LIMIT]
    with writing(), factory() as session, session.begin():
        session.execute(
            update(_deliveries)
            .where(
                _deliveries.c.id == row.id,
                _deliveries.c.claimed_by == worker,
                _deliveries.c.status == "sending",
            )
            .values(claimed_by=None, **values)
        )


def retry_failed(session: Session, delivery: WebhookDelivery, now: dt.datetime) -> None:
    """Put a failed delivery back in the queue (an admin's retry): one more attempt."""
    if delivery.status != "failed":
        raise ValidationError({"status": N_("only a failed delivery can be retried")})
    delivery.status = "pending"
    delivery.next_attempt_at = now
    session.flush()


def recent_deliveries(session: Session, limit: int = DELIVERIES_SHOWN) -> list[WebhookDelivery]:
    """Return the latest deliveries, newest first, with their endpoints."""
    return list(
        session.scalars(
            select(WebhookDelivery)
            .options(selectinload(WebhookDelivery.endpoint))
            .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id.desc())
            .limit(limit)
        )
    )


def delivery_counts(session: Session) -> dict[str, int]:
    """Return how many deliveries are in each status."""
    rows = session.execute(
        select(WebhookDelivery.status, func.count()).group_by(WebhookDelivery.status)
    ).tuples()
    return dict(rows.all())
