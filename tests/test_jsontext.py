"""JSON someone else wrote: nesting too deep is bad JSON, never a RecursionError."""

from __future__ import annotations

import pytest

from tracker.jsontext import NestedTooDeep, loads


def test_nesting_too_deep_is_refused_as_bad_json() -> None:
    with pytest.raises(ValueError, match="nested too deeply") as refused:
        loads("[" * 100_000 + "]" * 100_000)
    assert isinstance(refused.value, NestedTooDeep)
    assert loads('{"a": [1]}') == {"a": [1]}
