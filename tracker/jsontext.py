"""JSON that someone else wrote: json.loads, with nesting too deep refused as bad JSON."""

from __future__ import annotations

import json
from typing import Any


class NestedTooDeep(ValueError):
    """JSON nested deeper than the parser follows (it would raise RecursionError)."""


def loads(text: str | bytes | bytearray, **options: Any) -> Any:
    """Return what a JSON text holds; ValueError when it is not JSON, also when nested too deep.

    json.loads raises RecursionError for a few thousand opening brackets: as
    bad input, it is refused like any other, never a server error.
    """
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise NestedTooDeep("the JSON is nested too deeply") from None
