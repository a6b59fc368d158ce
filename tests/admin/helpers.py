"""Helpers for the admin tests: signing in, counting rows, reading field errors."""

from __future__ import annotations

import re
from html import unescape

from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests.factories import PASSWORD


def sign_in(client: FlaskClient, email: str, password: str = PASSWORD) -> None:
    """Sign in through the real form; land on the profile (a page every role has)."""
    response = client.post("/login?next=/profile", data={"email": email, "password": password})
    assert response.status_code == 302, response.text


def count(db: Session, model: type) -> int:
    return db.scalar(select(func.count()).select_from(model))


def field_error(html: str, field: str) -> str:
    """Return the message shown next to `field` (the macro's <small id="FIELD-error">)."""
    pattern = rf'<small id="{re.escape(field)}-error" class="field-error">(.*?)</small>'
    match = re.search(pattern, html)
    assert match, f"no error next to {field!r}"
    return unescape(match.group(1))


def text(response) -> str:
    return unescape(response.get_data(as_text=True))
