"""Helpers for the admin tests: reading field errors and page text."""

from __future__ import annotations

import re
from html import unescape


def field_error(html: str, field: str) -> str:
    """Return the message shown next to `field` (the macro's <small id="FIELD-error">)."""
    pattern = rf'<small id="{re.escape(field)}-error" class="field-error">(.*?)</small>'
    match = re.search(pattern, html)
    assert match, f"no error next to {field!r}"
    return unescape(match.group(1))


def text(response) -> str:
    return unescape(response.get_data(as_text=True))
