"""Queueing events: one delivery per subscribed endpoint, in the transaction that causes it.

The writers of what an event tells (hours, certifications, the daily pass)
call `queue_event` in their own transaction, so an event is delivered if and
only if its cause commits. Who subscribes is read once per transaction (and
only when something happens): with no endpoint, an event costs one small
SELECT. The API's one-statement hour logging queues its event inside that
statement (`insert_for_returned`, PostgreSQL).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    DateTime,
    Insert,
    String,
    Table,
    and_,
    bindparam,
    func,
    insert,
    literal,
    select,
    true,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.orm import Session
from sqlalchemy.sql.selectable import FromClause

from tracker.clock import utcnow
from tracker.schemas import Answer
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint

_endpoints = cast(Table, WebhookEndpoint.__table__)
_deliveries = cast(Table, WebhookDelivery.__table__)
_SUBSCRIBERS = "tracker.webhooks.subscribers"


def subscribes(event: str) -> ColumnElement[bool]:
    """The condition that an endpoint is active and takes `event`."""
    # Names are joined by commas: ",a,b," holds ",a," whichever place a has.
    events = literal(",") + _endpoints.c.events + literal(",")
    return and_(_endpoints.c.active.is_(True), events.contains(f",{event},", autoescape=True))


def _known(session: Session) -> dict[str, list[int]]:
    """Return this transaction's subscribers read so far, by event."""
    transaction = session.get_transaction()
    cached = session.info.get(_SUBSCRIBERS)
    if cached is None or cached[0] is not transaction:
        cached = session.info[_SUBSCRIBERS] = (transaction, {})
    return cached[1]


def subscribers(session: Session, event: str) -> list[int]:
    """Return the ids of the active endpoints that take `event`, read once per transaction."""
    found = _known(session)
    if event not in found:
        found[event] = list(
            session.scalars(
                select(_endpoints.c.id).where(subscribes(event)).order_by(_endpoints.c.id)
            )
        )
    return found[event]


def subscribers_sql(event: str) -> ColumnElement[str | None]:
    """The ids of the endpoints that take `event`, joined by commas (null for none); SQLite.

    For a writer to read them with a statement it sends anyway, and hand them
    to `remember_subscribers`: its event then costs no statement of its own
    when no endpoint takes it.
    """
    return select(func.group_concat(_endpoints.c.id)).where(subscribes(event)).scalar_subquery()


def remember_subscribers(session: Session, event: str, joined: str | None) -> None:
    """Keep for this transaction the subscribers a writer read with `subscribers_sql`."""
    _known(session)[event] = sorted(int(part) for part in (joined or "").split(",") if part)


def forget_subscribers(session: Session) -> None:
    """Read the subscribers again at the next event (the endpoints changed)."""
    session.info.pop(_SUBSCRIBERS, None)


def timestamp(moment: dt.datetime) -> str:
    """Return a UTC moment as the payload writes it: ISO 8601 with a Z."""
    return moment.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


def message_prefix() -> str:
    """Return the start of an event's webhook-ids; each endpoint's delivery adds its id."""
    return f"msg_{uuid.uuid4().hex}_"


def payload(event: str, data: Answer, occurred_at: dt.datetime) -> dict[str, Any]:
    """Return an event's generic payload, as Standard Webhooks shapes it."""
    return {"type": event, "timestamp": timestamp(occurred_at), "data": data.dump()}


def queue_event(
    session: Session, event: str, data: Answer, occurred_at: dt.datetime | None = None
) -> int:
    """Queue `event` for every endpoint that takes it; return how many deliveries were queued."""
    return queue_events(session, event, [data], occurred_at)


def queue_events(
    session: Session,
    event: str,
    items: Sequence[Answer],
    occurred_at: dt.datetime | None = None,
) -> int:
    """Queue one `event` per item of `items` for every endpoint that takes it (one INSERT)."""
    if not items:
        return 0
    endpoint_ids = subscribers(session, event)
    if not endpoint_ids:
        return 0
    now = utcnow()
    rows = []
    for data in items:
        body = payload(event, data, occurred_at or now)
        prefix = message_prefix()
        rows += [
            {
                "endpoint_id": endpoint_id,
                "event": event,
                "webhook_id": f"{prefix}{endpoint_id}",
                "payload": body,
                "status": "pending",
                "attempts": 0,
                "next_attempt_at": now,
                "created_at": now,
            }
            for endpoint_id in endpoint_ids
        ]
    session.flush()  # a Core statement does not flush what the session holds
    session.connection().execute(insert(_deliveries), rows)
    return len(rows)


def insert_for_returned(written: FromClause, event: str, payload_sql: ColumnElement[Any]) -> Insert:
    """Return an INSERT of `event`'s deliveries for the rows a data-modifying CTE returns.

    PostgreSQL only (SQLite has no INSERT inside WITH), to go inside the
    writer's own statement: with no subscribed endpoint it writes nothing and
    costs no round trip. `written` is the CTE (or a join of it), and
    `payload_sql` builds each row's generic payload from its columns. It
    binds `webhook_id_prefix` (message_prefix()) and `now` (the time of the
    change).
    """
    return insert(_deliveries).from_select(
        [
            "endpoint_id",
            "event",
            "webhook_id",
            "payload",
            "status",
            "attempts",
            "next_attempt_at",
            "created_at",
        ],
        select(
            _endpoints.c.id,
            literal(event),
            bindparam("webhook_id_prefix", type_=String) + sql_cast(_endpoints.c.id, String),
            payload_sql,
            literal("pending"),
            literal(0),
            bindparam("now", type_=DateTime),
            bindparam("now", type_=DateTime),
        )
        .select_from(written)
        .join(_endpoints, true())
        .where(subscribes(event)),
    )
