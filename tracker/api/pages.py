"""Every list of the API a page at a time: keyset (seek) pagination behind an opaque cursor.

A list declares its order as keys (`Key`), the last one unique (the id), so
the order is total. A page is the rows after the cursor's key in that order,
`limit` of them; one more is read to know whether a page follows. `next` is
the last row's key, signed with the app's secret for this very list (its
endpoint, path, caller and every query parameter but the page's own), so a
client cannot forge a cursor or carry one over to other filters, and the next
page starts after that row whatever was inserted meanwhile (OFFSET would shift
by the rows inserted before it, answering one row twice or skipping one).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import g, request
from itsdangerous import BadData, URLSafeSerializer
from sqlalchemy import ColumnElement, Select, SQLColumnExpression, and_, or_

from tracker.api.errors import ApiError
from tracker.extensions import db_session, secret_keys
from tracker.schemas import CURSOR_RULE, Answer, Page, PageQuery, read_date, read_id

P = TypeVar("P", bound=Page[Any])
KeyValue = int | str | dt.date

# Salt of the cursor's signature, with the list's identity: a cursor of one list is no other's.
SALT = "tracker.api.pages"
# What a page asks for beyond its list: the next page may ask for another size.
PAGE_FIELDS = frozenset({"cursor", "limit"})


# A key's kind beyond ids: any whole number in a 64-bit integer (a count, a share, a trend).
class Whole(int):
    """A key's kind: a whole number of any sign, not only an id."""


MAX_WHOLE = 2**63 - 1


@dataclass(frozen=True)
class Key:
    """One column of a list's order: its SQL, its value in a row read, its kind, its direction."""

    column: SQLColumnExpression[Any]
    value: Callable[[Any], KeyValue]
    kind: type[int] | type[Whole] | type[str] | type[dt.date]
    descending: bool = False

    def order(self) -> ColumnElement[Any]:
        return self.column.desc() if self.descending else self.column.asc()

    def after(self, value: KeyValue) -> ColumnElement[bool]:
        """Return the condition "this column comes after `value` in the list's order"."""
        return self.column < value if self.descending else self.column > value

    def read(self, value: Any) -> KeyValue | None:
        """Return a cursor's JSON value as this key's kind, or None when it is not one."""
        if self.kind is dt.date:
            return read_date(value)
        if self.kind is Whole:
            whole = isinstance(value, int) and not isinstance(value, bool)
            return value if whole and abs(value) <= MAX_WHOLE else None
        if self.kind is int:
            return read_id(value)
        return value if isinstance(value, str) else None

    def write(self, value: KeyValue) -> int | str:
        return value.isoformat() if isinstance(value, dt.date) else value


def seek(keys: Sequence[Key], values: Sequence[KeyValue]) -> ColumnElement[bool]:
    """Return the condition "the row comes after `values`" for the order `keys`.

    (a, b, c) after (x, y, z): a after x, or a = x and b after y, or a = x, b = y and c after z.
    """
    branches = [
        and_(*(k.column == v for k, v in zip(keys[:n], values[:n], strict=True)), keys[n].after(v))
        for n, v in enumerate(values)
    ]
    # The bound the branches imply on the first key, said on its own: an index on the
    # order starts its scan there instead of reading every row before the cursor.
    first, value = keys[0], values[0]
    bound = first.column <= value if first.descending else first.column >= value
    return and_(bound, or_(*branches))


def identity(params: PageQuery) -> str:
    """Return what makes this request's list the one it is, all it asks for but the page.

    The query as validated (defaults filled in, values normalised), not as sent: `?sort=ready`
    and `?order=asc&sort=ready` are one list. The caller counts too, since a list without
    `?engineer=` is the caller's own and what a list holds depends on who may see it.
    """
    query = params.model_dump(mode="json", exclude=set(PAGE_FIELDS))
    path = request.view_args or {}
    return json.dumps(
        [request.endpoint, path, g.api_caller.id, query], sort_keys=True, separators=(",", ":")
    )


def serializer(list_identity: str) -> URLSafeSerializer:
    """Return the signer of the cursors of the list `list_identity` names."""
    keys = secret_keys().for_itsdangerous()
    return URLSafeSerializer(keys, salt=f"{SALT} {list_identity}")


def read_cursor(cursor: str, keys: Sequence[Key], list_identity: str) -> list[KeyValue]:
    """Return the key a cursor holds; a 400 naming `cursor` when it is not this list's."""
    try:
        data = serializer(list_identity).loads(cursor)
    except BadData:
        data = None
    values = (
        [key.read(value) for key, value in zip(keys, data, strict=True)]
        if isinstance(data, list) and len(data) == len(keys)
        else [None]
    )
    if any(value is None for value in values):
        raise ApiError(400, {"cursor": CURSOR_RULE})
    return [value for value in values if value is not None]


def write_cursor(row: Any, keys: Sequence[Key], list_identity: str) -> str:
    """Return the cursor of the page after `row`."""
    return str(serializer(list_identity).dumps([key.write(key.value(row)) for key in keys]))


def page(
    model: type[P],
    statement: Select[Any],
    keys: Sequence[Key],
    params: PageQuery,
    out: Callable[[Any], Answer],
) -> P:
    """Return the page of `statement` that `params` asks for, in the order `keys`, as `model`.

    A statement of one entity gives `out` and the keys that entity; of several, the row.
    """
    assert keys, "a list needs an order"
    this_list = identity(params)
    if params.cursor is not None:
        statement = statement.where(seek(keys, read_cursor(params.cursor, keys, this_list)))
    statement = statement.order_by(None).order_by(*(k.order() for k in keys))
    result = db_session().execute(statement.limit(params.limit + 1))
    rows = list(result.scalars() if len(statement.column_descriptions) == 1 else result)
    more = len(rows) > params.limit
    rows = rows[: params.limit]
    return model(
        items=[out(row) for row in rows],
        next=write_cursor(rows[-1], keys, this_list) if more else None,
    )
