"""URL converters: `<int:...>` names a record id, 1 to what an INTEGER column holds; ?page=."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import request, url_for
from werkzeug.routing import IntegerConverter

from tracker.db import MAX_ID


def at_most(limit: int) -> str:
    """Return a regular expression of the decimal numbers 1 to `limit`, without leading zeros."""
    digits = str(limit)
    width = len(digits)
    # Every number with fewer digits, then those of as many digits, one branch per digit
    # of the limit that a smaller digit may replace (the digits after it free).
    branches = [rf"[1-9]\d{{0,{width - 2}}}"] if width > 1 else []
    for i, digit in enumerate(digits):
        low, high = (1 if i == 0 else 0), int(digit) - 1
        if high < low:
            continue
        free = width - i - 1
        choice = f"[{low}-{high}]" if high > low else str(low)
        branches.append(digits[:i] + choice + (rf"\d{{{free}}}" if free else ""))
    branches.append(digits)
    return "(?:" + "|".join(branches) + ")"


class IdConverter(IntegerConverter):
    """`<int:...>` in a URL: a record id, 1 to what an INTEGER column holds.

    A larger number names nothing: the route does not match (404) instead of
    the database refusing the query (500). The bound is in the pattern, not
    only in to_python: a path whose pattern matches but whose value fails makes
    Werkzeug answer 405 when another method's rule shares that pattern.
    """

    regex = at_most(MAX_ID)

    def __init__(self, map, fixed_digits=0, min=1, max=MAX_ID, signed=False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


# An id no record has in a URL: it stands for each id of `id_url`'s links.
_ANY_ID = 987654321


def id_url(endpoint: str, name: str, **values: Any) -> Callable[[int], str]:
    """Return the URL of `endpoint` for any record id given as `name`: url_for's, built once.

    A page linking to each of its forty members asks url_for forty times for
    URLs that differ only in the id; this builds one and writes in each id.
    """
    base = url_for(endpoint, **{**values, name: _ANY_ID})
    any_id = str(_ANY_ID)
    assert base.count(any_id) == 1, base
    head, tail = base.split(any_id)
    return lambda record_id: f"{head}{int(record_id)}{tail}"


def requested_page() -> int:
    """Return ?page= as a page number, 1 to MAX_ID: 1 when it is not a whole number.

    A number past the last page shows the last one; one past any table is held
    to MAX_ID, so that its offset stays within what the database counts in.
    """
    return min(max(request.args.get("page", 1, type=int), 1), MAX_ID)
