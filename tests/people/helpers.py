"""Helpers for the people tests: where a sign-in lands, who is signed in, inline script."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from flask.testing import FlaskClient

NEW_PASSWORD = "another long secret"


def path_of(response) -> str:
    return urlsplit(response.headers["Location"]).path


def redirected_to_login(response) -> bool:
    return response.status_code == 302 and path_of(response) == "/login"


def signed_in_id(client: FlaskClient) -> str | None:
    with client.session_transaction() as session:
        return session.get("_user_id")


def assert_no_inline_script(html: str) -> None:
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html, re.I), "inline <script>"
    assert not re.search(r"<[^>]+\son[a-z]+\s*=", html, re.I), "inline event handler"
    assert "javascript:" not in html.lower()
