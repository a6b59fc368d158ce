"""Security headers on every kind of answer, and no inline script on the pages."""

from __future__ import annotations

import pytest

from tests.helpers import csp_directives, post_login
from tests.people.helpers import assert_no_inline_script

# The sign-ins here all come from 127.0.0.1: each test gets a sign-in limiter of its own.
pytestmark = pytest.mark.usefixtures("limiter")


def assert_hardened(response) -> None:
    csp = csp_directives(response.headers["Content-Security-Policy"])
    scripts = csp.get("script-src", csp.get("default-src"))
    assert scripts is not None
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts
    assert "*" not in scripts
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("url", ["/", "/catalog", "/login", "/no-such-page", "/dashboard"])
def test_security_headers_for_a_stranger(client, url):
    response = client.get(url)
    assert_hardened(response)
    if response.mimetype == "text/html":
        assert_no_inline_script(response.text)


@pytest.mark.parametrize(
    "url", ["/", "/catalog", "/dashboard", "/hours", "/exams", "/credentials", "/profile"]
)
def test_security_headers_when_signed_in(client, auth, person, pinned_today, url):
    auth.login(person.email)
    response = client.get(url)
    assert response.status_code == 200
    assert_hardened(response)
    assert_no_inline_script(response.text)


def test_security_headers_on_error_and_refusal_answers(client, person):
    assert_hardened(post_login(client, person.email, "wrong password"))  # 401
    assert_hardened(client.post("/login", data={}))  # 400
    with client.get("/static/app.css") as response:
        assert response.status_code == 200
        assert_hardened(response)
