"""How the personal-data file writes values: dates, times, amounts, other people, snapshots."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, inspect, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.base import ExecutableOption

from tracker.db import Base
from tracker.people.models import Engineer
from tracker.privacy.rules import SECRET_FIELDS
from tracker.schemas import json_number

Json = dict[str, Any]
Row = TypeVar("Row", bound=Base)


def rows_of(
    session: Session,
    model: type[Row],
    whose: ColumnElement[bool],
    by: Any,
    *options: ExecutableOption,
) -> list[Row]:
    """Return the rows of `model` that `whose` picks, by `by` (their date) then id."""
    (key,) = inspect(model).primary_key
    return list(session.scalars(select(model).where(whose).options(*options).order_by(by, key)))


def day(value: dt.date | None) -> str | None:
    """Return a date as ISO 8601 (YYYY-MM-DD)."""
    return None if value is None else value.isoformat()


def moment(value: dt.datetime | None) -> str | None:
    """Return a stored (naive UTC) time as ISO 8601 with its offset, +00:00."""
    return None if value is None else value.replace(tzinfo=dt.UTC).isoformat()


def number(value: Decimal | None) -> int | float | None:
    """Return an amount as the API writes it: a JSON number (1.50 -> 1.5, 8.00 -> 8)."""
    return json_number(value)


def names_of(session: Session, ids: Iterable[int | None]) -> dict[int, str]:
    """Return the names of the people `ids` name, read in one query."""
    wanted = {i for i in ids if i is not None}
    if not wanted:
        return {}
    rows = session.execute(select(Engineer.id, Engineer.name).where(Engineer.id.in_(wanted)))
    return {row.id: row.name for row in rows}


def person_ref(person_id: int | None, names: dict[int, str]) -> Json | None:
    """Return another person as records name them: id and name, never their address."""
    if person_id is None:
        return None
    return {"id": person_id, "name": names.get(person_id)}


def without_secrets(value: Any) -> Any:
    """Return a snapshot or detail with every secret field left out, at any depth."""
    if isinstance(value, dict):
        return {k: without_secrets(v) for k, v in value.items() if k not in SECRET_FIELDS}
    if isinstance(value, list):
        return [without_secrets(v) for v in value]
    return value
