"""The security headers on every GET route of the URL map, for a stranger and for each role.

Content-Security-Policy without inline script, nosniff, frame denial; and no
page the tracker draws holds an inline script or an event-handler attribute.
Nothing meant for one person is cached: a signed-in page, a CSV export (the
bonus ledger is payroll data) or an API answer is `no-store`; a calendar feed,
fetched by a calendar client with the token in its URL, is `private, no-cache`.
Public pages and static assets stay cacheable.
"""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.helpers import csp_directives, sign_in
from tests.security.conftest import World, injected_markup
from tests.security.matrix import ROUTES, objects, url_for_rule

GETS = [(e, r) for e, r, m in ROUTES if m == "GET"] + [("static", "/static/app.css")]


def assert_hardened(response, what: str) -> None:
    """Assert a page's policy, or for a JSON API answer the data one (it loads nothing)."""
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what
    assert response.headers.get("X-Frame-Options") == "DENY", what
    policy = csp_directives(response.headers.get("Content-Security-Policy", ""))
    if response.request.path.startswith("/api/v1/"):
        assert policy == {"default-src": ["'none'"], "frame-ancestors": ["'none'"]}, what
        assert response.headers.get("Referrer-Policy") == "no-referrer", what
        return
    scripts = policy.get("script-src", policy.get("default-src"))
    assert scripts, f"{what}: no script policy"
    assert not {"'unsafe-inline'", "'unsafe-eval'", "*", "data:"} & set(scripts), what
    assert policy.get("default-src") == ["'self'"], what
    assert policy.get("object-src") == ["'none'"], what
    assert policy.get("frame-ancestors") == ["'none'"], what
    assert policy.get("base-uri") == ["'self'"], what
    assert policy.get("form-action") == ["'self'"], what
    assert response.headers.get("Referrer-Policy") == "same-origin", what


PUBLIC_PAGES = {"catalog.home", "catalog.catalog", "people.login", "static"}


def assert_caching(response, role: str, endpoint: str, what: str) -> None:
    caching = response.headers.get("Cache-Control", "")
    if endpoint == "static":
        assert "no-store" not in caching, what
    elif role != "anonymous" or endpoint.startswith("api."):
        assert caching == "no-store", what
    elif endpoint.startswith("calendars.") and response.status_code == 200:
        assert caching == "private, no-cache", what
    elif endpoint in PUBLIC_PAGES:
        assert "no-store" not in caching, what


@pytest.mark.parametrize("role", ["anonymous", "engineer", "manager", "admin"])
def test_every_get_route_sends_the_security_headers(client: FlaskClient, world: World, role):
    headers = {}
    if role != "anonymous":
        sign_in(client, world.person(role).email)
        headers = {"Authorization": f"Bearer {world.tokens[role]}"}
    checked = 0
    exports = set()
    for endpoint, rule in GETS:
        url = url_for_rule(rule, objects(world, role, "own", endpoint))
        response = client.get(url, headers=headers if endpoint.startswith("api.") else {})
        what = f"GET {url} as {role} ({response.status_code})"
        assert response.status_code < 500, what
        assert_hardened(response, what)
        assert_caching(response, role, endpoint, what)
        if response.mimetype in ("text/csv", "text/calendar"):
            exports.add(response.mimetype)
        if response.mimetype == "text/html":
            assert injected_markup(response.get_data(as_text=True)) == [], what
        response.close()
        checked += 1
    assert checked == len(GETS)
    if role == "admin":
        assert exports == {"text/csv", "text/calendar"}, "the exports were not reached"


def test_error_answers_send_the_headers_too(client: FlaskClient, world: World):
    sign_in(client, world.engineer.email)
    for url in ("/no-such-page", "/admin/people", "/engineers/999999", "/api/v1/me"):
        response = client.get(url)
        assert response.status_code in (401, 403, 404), url
        assert_hardened(response, url)
        assert response.headers["Cache-Control"] == "no-store", url
    response = client.post("/hours", data={"hours": "-1"})
    assert response.status_code == 400
    assert_hardened(response, "POST /hours (400)")
    assert response.headers["Cache-Control"] == "no-store"


def test_a_calendar_feed_is_kept_by_no_shared_cache(client: FlaskClient, world: World):
    url = f"/calendar/engineer/{world.engineer.calendar_token}.ics"
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "private, no-cache"
    # Opened in a signed-in browser, it is a signed-in answer.
    sign_in(client, world.engineer.email)
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
