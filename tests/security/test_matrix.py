"""Every route and every API call, as every role, on their own and on a stranger's objects.

Generated from the app's URL map, so a new route is covered without editing
this file. tests/test_route_matrix.py holds the web routes' exact answers on a
stranger's objects; this matrix adds:

- the web routes on each role's *own* objects (their entry, their report, their team);
- every API call with a bearer token (the API refuses session cookies), on
  their own and on the stranger's objects;
- on every answer: no 500, and nothing of the stranger's (the LEAK marker in
  their name, notes, evidence, experience, outbox row) shown to the engineer
  or the manager; a refused write stores nothing.

Routes of the features this suite knows (KNOWN) get exact rules; a route of
another blueprint still gets the baseline: no 500, anonymous refused, the
stranger's objects refused to non-admins, no leak.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests.factories import TODAY
from tests.helpers import OPEN_BADGES_PUBLIC, sign_in
from tests.security.conftest import LEAK, VICTIM_EMAIL, World, snapshot
from tests.security.matrix import API, WEB, objects, url_for_rule

ROLES = ("anonymous", "engineer", "manager", "admin")
SCOPES = ("own", "other")
# Open without a session (the calendar feeds take the secret token in their URL).
# The organisation's pages: an admin's, like the admin pages.
ADMIN_READINESS = {"readiness.organisation", "readiness.organisation_csv"}
PUBLIC = {
    "catalog.home",
    "catalog.catalog",
    "people.login",
    # A visitor's choice of language, before signing in.
    "people.choose_locale",
    "calendars.engineer_feed",
    "calendars.team_feed",
    # The weekly digest's unsubscribe link, by its signed token (none of it shown).
    "mail.unsubscribe",
    # The API's description (the document and its reference page) names no one's records.
    "api_docs.openapi",
    "api_docs.reference",
    # Probes of load balancers and monitors: whether the server may serve, no one's records.
    "health.live",
    "health.ready",
}
# Open Badges are verified by anyone: the issuer's documents, a badge's public page by
# its unguessable token (none given here: 404).
OPEN_BADGES = OPEN_BADGES_PUBLIC
FEEDS = {"calendars.engineer_feed", "calendars.team_feed"}
KNOWN_WEB = ("progress", "people", "readiness", "admin", "calendars", "catalog")
KNOWN_API = {
    "api.me",
    "api.progress",
    "api.list_hours",
    "api.log_hours",
    "api.hours_entry",
    "api.update_hours",
    "api.delete_hours",
    "api.record_attempt",
    "api.record_credential",
    "api.certifications",
    "api.teams",
    "api.team_readiness",
    "api.team_forecast",
    "api.roi",
}
OBJECT_PARAMS = {"engineer_id", "person_id", "entry_id", "team_id", "notification_id"}


def params_of(rule: str) -> list[str]:
    names = []
    while "<" in rule:
        start, end = rule.index("<"), rule.index(">")
        names.append(rule[start + 1 : end].split(":")[-1])
        rule = rule[end + 1 :]
    return names


def assert_no_leak(body: str, what: str) -> None:
    for secret in (LEAK, VICTIM_EMAIL, "Vesper"):
        assert secret not in body, f"{what} shows the stranger's {secret!r}"


def _body(response) -> str:
    return response.get_data(as_text=True)


# --- web routes, with a session ---------------------------------------------------------


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("role", ROLES[1:])
@pytest.mark.parametrize(
    ("endpoint", "rule", "method"), WEB, ids=[f"{method} {rule}" for _, rule, method in WEB]
)
def test_web_route(
    app: Flask, client: FlaskClient, db: Session, world: World, role, scope, endpoint, rule, method
):
    sign_in(client, world.person(role).email)
    url = url_for_rule(rule, objects(world, role, scope, endpoint))
    before = snapshot(db, ignore={"api_tokens"}) if method != "GET" else None

    response = client.open(url, method=method, data={})
    status, what = response.status_code, f"{method} {url} as {role} ({scope})"
    assert status < 500, f"{what} answered {status}"

    if role != "admin" and not (scope == "other" and endpoint in FEEDS):
        assert_no_leak(_body(response), what)
    if before is not None and status >= 400:
        assert snapshot(db, ignore={"api_tokens"}) == before, f"{what} was refused but wrote"
    if scope == "other":
        return  # exact answers on a stranger's objects: tests/test_route_matrix.py

    blueprint = endpoint.split(".")[0]
    if endpoint in PUBLIC:
        expected = (200, 302, 400, 401)
    elif blueprint not in KNOWN_WEB:
        expected = (200, 302, 400, 403, 404)
    elif blueprint == "admin" or endpoint in ADMIN_READINESS:
        expected = (200, 302, 400) if role == "admin" else (403,)
    elif blueprint == "readiness" or (blueprint == "calendars" and "team_id" in rule):
        expected = (403,) if role == "engineer" else (200, 302, 400)
    else:
        expected = (200, 302, 400)
    assert status in expected, f"{what} answered {status}, expected {expected}"


@pytest.mark.parametrize(
    ("endpoint", "rule", "method"), WEB, ids=[f"{method} {rule}" for _, rule, method in WEB]
)
def test_web_route_as_a_stranger(client: FlaskClient, world: World, endpoint, rule, method):
    url = url_for_rule(rule, objects(world, "anonymous", "other", endpoint))
    response = client.open(url, method=method, data={})
    assert response.status_code < 500
    if endpoint in PUBLIC or endpoint in OPEN_BADGES:
        if endpoint not in FEEDS:
            assert_no_leak(_body(response), f"{method} {url} as a stranger")
    else:
        assert response.status_code == 302, f"{method} {url}: {response.status_code}"
        assert response.headers["Location"].startswith("/login")


# --- the API, with bearer tokens ------------------------------------------------------------


def _api_request(
    world: World, role: str, scope: str, endpoint: str, rule: str, method: str
) -> tuple[str, Any]:
    """Return the URL and JSON body of a call naming the role's own or the stranger's objects."""
    ids = objects(world, role, scope, endpoint)
    url = url_for_rule(rule, ids)
    names = set(params_of(rule)) & OBJECT_PARAMS
    # Point a call without an object in its URL at an engineer by its query or body.
    person = world.victim if scope == "other" or role == "anonymous" else world.person(role)
    body = None
    if method in ("POST", "PUT", "PATCH"):
        body = {} if names else {"engineer": person.id}
        if endpoint == "api.update_hours":
            body = {"course": "FDL", "date": TODAY.isoformat(), "hours": 1, "note": "matrix"}
    elif not names and scope == "other":
        url += f"?engineer={person.id}"
    return url, body


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("endpoint", "rule", "method"), API, ids=[f"{method} {rule}" for _, rule, method in API]
)
def test_api_call(
    client: FlaskClient, db: Session, world: World, role, scope, endpoint, rule, method
):
    url, body = _api_request(world, role, scope, endpoint, rule, method)
    headers = {} if role == "anonymous" else {"Authorization": f"Bearer {world.tokens[role]}"}
    before = snapshot(db, ignore={"api_tokens"})

    response = client.open(url, method=method, headers=headers, json=body)
    status, what = response.status_code, f"{method} {url} as {role} ({scope})"
    assert status < 500, f"{what} answered {status}: {_body(response)}"

    if status >= 400:
        assert response.is_json and set(response.get_json()) == {"errors"}, what
        assert snapshot(db, ignore={"api_tokens"}) == before, f"{what} was refused but wrote"
    if role in ("engineer", "manager"):
        assert_no_leak(_body(response), what)

    names = set(params_of(rule)) & OBJECT_PARAMS
    managers_only = "/teams" in rule or rule.endswith("/roi")
    if role == "anonymous":
        expected: tuple[int, ...] = (401,)
    elif role == "engineer" and managers_only and endpoint in KNOWN_API:
        expected = (403,)
    elif scope == "other" and role != "admin":
        # The stranger's objects: refused, by permission (403), or as not found (404)
        # or as a bad query or body (400) where the call takes no object.
        expected = (403, 404) if names else (200, 400, 403, 404)
        if not names and method != "GET":
            expected = (400, 403)
    elif endpoint in KNOWN_API:
        expected = (200, 201, 204, 400)
    else:
        expected = (200, 201, 204, 400, 403, 404)
    assert status in expected, f"{what} answered {status}, expected {expected}: {_body(response)}"


def test_every_api_call_is_in_the_matrix():
    """The API part of the matrix sees every call under /api/v1 (none is left out)."""
    assert {endpoint for endpoint, _, _ in API} >= KNOWN_API
    assert all(rule.startswith("/api/v1/") for _, rule, _ in API)
