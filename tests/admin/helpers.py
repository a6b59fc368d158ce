"""Helpers for the admin tests: reading field errors and page text, a person's edit form."""

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


def edit_data(person, **changes):
    data = {
        "name": person.name,
        "email": person.email,
        "access_role": person.access_role,
        "job_roles": sorted(person.job_role_codes),
        "level": str(person.level),
        "team": str(person.team_id or ""),
        "manager": str(person.manager_id or ""),
        "hired_on": person.hired_on.isoformat() if person.hired_on else "",
        "experience_months": str(person.experience_months),
    }
    data.update(changes)
    return data
