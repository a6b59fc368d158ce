"""Writing the audit trail."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    DateTime,
    Insert,
    Integer,
    bindparam,
    cast,
    func,
    insert,
    inspect,
    select,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Session
from sqlalchemy.sql.selectable import CTE

from tracker.audit.models import AuditEvent
from tracker.audit.rules import PERSON_ENTITY, PERSON_KEY
from tracker.db import Base, sql_literal


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def snapshot(obj: Base) -> dict[str, Any]:
    """Return a JSON-ready copy of a row's column values."""
    return {
        attr.key: _jsonable(getattr(obj, attr.key)) for attr in inspect(obj).mapper.column_attrs
    }


def about_whom(
    entity: str,
    entity_id: int,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> int | None:
    """Return the id of the person an event is about (a person, or a record naming one)."""
    if entity == PERSON_ENTITY:
        return entity_id
    # No writer moves a record to another person: its snapshots name the same one.
    for said in (after, before):
        if isinstance(said, dict) and said.get(PERSON_KEY) is not None:
            return int(said[PERSON_KEY])
    return None


def record(
    session: Session,
    actor_id: int | None,
    obj: Base,
    action: str,
    before: dict[str, Any] | None = None,
) -> AuditEvent:
    """Record that `actor_id` did `action` to `obj`; `before` is its snapshot before a change."""
    entity = type(obj).__tablename__
    entity_id = inspect(obj).mapper.primary_key_from_instance(obj)[0]
    after = None if action == "delete" else snapshot(obj)
    event = AuditEvent(
        actor_id=actor_id,
        entity=entity,
        entity_id=entity_id,
        action=action,
        before=before,
        after=after,
        engineer_id=about_whom(entity, entity_id, before, after),
    )
    session.add(event)
    return event


_events = Base.metadata.tables[AuditEvent.__tablename__]
_INSERT_EVENT = insert(_events)


def jsonable(values: dict[str, Any]) -> dict[str, Any]:
    """Return column values as snapshot() records them (dates as ISO text, Decimals as text)."""
    return {key: _jsonable(value) for key, value in values.items()}


def record_row(
    session: Session,
    actor_id: int | None,
    entity: str,
    entity_id: int,
    action: str,
    after: dict[str, Any] | None = None,
    before: dict[str, Any] | None = None,
) -> None:
    """Record a change written with Core statements, without loading ORM objects.

    `after` and `before` are the row's column values by column name, as
    snapshot() would give them; the event is inserted at once (one statement).
    """
    session.connection().execute(
        _INSERT_EVENT,
        {
            "actor_id": actor_id,
            "entity": entity,
            "entity_id": entity_id,
            "action": action,
            "before": None if before is None else jsonable(before),
            "after": None if after is None else jsonable(after),
            "engineer_id": about_whom(entity, entity_id, before, after),
        },
    )


def insert_for_returned(
    written: CTE,
    entity: str,
    action: str,
    columns: tuple[str, ...] = (),
    actor: ColumnElement | None = None,
) -> Insert:
    """Return an INSERT of the audit events of the rows a data-modifying CTE returns.

    PostgreSQL only (SQLite has no INSERT ... RETURNING inside WITH). The CTE
    must return the row's `id`; the statement takes the parameters of the CTE
    and `actor_id`, `now` (the time of the change) and `after` (the row's
    columns, as jsonable() gives them, but the id and `columns`, which are
    added from the CTE). `actor`, when given, is the actor instead of
    `actor_id` (a column of the CTE). It returns the recorded rows' ids, so
    the writer and its audit event are one round trip.
    """
    # The constants are written into the SQL: the statement is run often, and
    # every bound parameter costs each run.
    from_written = []
    for name in ("id", *columns):
        from_written += [sql_literal(name), written.c[name]]
    said = cast(bindparam("after", type_=JSON), JSONB).op("||")(
        func.jsonb_build_object(*from_written)
    )
    after = cast(said, JSON)
    # Whom it is about, as about_whom() says it.
    if entity == PERSON_ENTITY:
        about: ColumnElement[Any] = written.c.id
    elif PERSON_KEY in columns:
        about = written.c[PERSON_KEY]
    else:
        about = cast(said.op("->>")(sql_literal(PERSON_KEY)), Integer)
    return (
        insert(_events)
        .from_select(
            ["at", "actor_id", "entity", "entity_id", "action", "before", "after", "engineer_id"],
            select(
                bindparam("now", type_=DateTime),
                bindparam("actor_id", type_=Integer) if actor is None else actor,
                sql_literal(entity),
                written.c.id,
                sql_literal(action),
                cast(sql_literal("null"), JSON),
                after,
                about,
            ),
        )
        .returning(_events.c.entity_id)
    )
