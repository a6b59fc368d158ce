"""Every POST form route refuses a missing or wrong CSRF token with 400 and stores nothing.

The routes come from the URL map (the API, authenticated by bearer tokens
only, needs none). tests/people/test_csrf.py holds the sign-in, hours, profile
and sign-out cases in detail; this covers every route.
"""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests.factories import PASSWORD
from tests.helpers import csrf_token, pass_second_step
from tests.security.conftest import World, snapshot
from tests.security.matrix import ROUTES, objects, url_for_rule

# The API and SCIM, authenticated by bearer tokens only, need none; nor does the weekly
# digest's one-click unsubscribe link, whose signed token is the credential: a mail
# client's POST carries nothing else (RFC 8058; tests/reminders/test_unsubscribe.py).
ONE_CLICK = {"mail.unsubscribe"}
POSTS = [
    (e, r)
    for e, r, m in ROUTES
    if m == "POST" and not e.startswith(("api.", "scim.")) and e not in ONE_CLICK
]
# Flask-WTF's reasons: missing, invalid, or signed for another session.
# The heading of the page a form with no good token gets (tracker.web.errors).
CSRF_REFUSAL = "The form was not sent"


@pytest.fixture
def admin_client(app: Flask, client: FlaskClient, world: World, monkeypatch) -> FlaskClient:
    """The admin, signed in through the form with its token; CSRF protection on."""
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", True)
    token = csrf_token(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login", data={"email": world.admin.email, "password": PASSWORD, "csrf_token": token}
    )
    assert response.status_code == 302
    pass_second_step(client, world.admin.email)
    return client


def _forged(app: Flask) -> str:
    """A well-formed token of another session."""
    return csrf_token(app.test_client().get("/login").get_data(as_text=True))


@pytest.mark.parametrize("token", ["missing", "empty", "garbage", "another session's"])
@pytest.mark.parametrize(("endpoint", "rule"), POSTS, ids=[rule for _, rule in POSTS])
def test_a_post_without_a_valid_csrf_token_is_refused(
    app: Flask, admin_client: FlaskClient, db: Session, world: World, endpoint, rule, token
):
    url = url_for_rule(rule, objects(world, "admin", "own", endpoint))
    # What would be a good post: the page's own fields are not the point here.
    data = {"email": world.admin.email, "password": PASSWORD, "name": "Forged"}
    value = {"missing": None, "empty": "", "garbage": "x" * 40, "another session's": _forged(app)}
    if value[token] is not None:
        data["csrf_token"] = value[token]
    if endpoint == "people.login":
        admin_client.post("/logout", data={"csrf_token": _own_token(admin_client)})
    before = snapshot(db)

    response = admin_client.post(url, data=data)

    assert response.status_code == 400, f"POST {url}: {response.status_code}"
    assert CSRF_REFUSAL in response.get_data(as_text=True)
    assert snapshot(db) == before, f"POST {url} without a valid CSRF token wrote"


@pytest.mark.parametrize(("endpoint", "rule"), POSTS, ids=[rule for _, rule in POSTS])
def test_the_pages_own_token_passes_the_check(
    admin_client: FlaskClient, world: World, endpoint, rule
):
    """The refusals above are the token's doing: with the page's token the check passes."""
    url = url_for_rule(rule, objects(world, "admin", "own", endpoint))
    response = admin_client.post(url, data={"csrf_token": _own_token(admin_client)})
    assert response.status_code < 500
    assert CSRF_REFUSAL not in response.get_data(as_text=True)


def _own_token(client: FlaskClient) -> str:
    return csrf_token(client.get("/profile").get_data(as_text=True))


def test_a_form_drawn_before_the_key_was_rotated_is_refused_then_drawn_again_passes(
    admin_client: FlaskClient, request: pytest.FixtureRequest
):
    """Flask-WTF 1.3 signs its tokens with SECRET_KEY alone: it knows no fallbacks."""
    old = _own_token(admin_client)
    request.getfixturevalue("rotated")
    refused = admin_client.post("/profile/digest", data={"csrf_token": old})
    assert refused.status_code == 400
    assert CSRF_REFUSAL in refused.get_data(as_text=True)
    # Still signed in (the session opens with the fallback): the page drawn again posts.
    again = admin_client.post("/profile/digest", data={"csrf_token": _own_token(admin_client)})
    assert again.status_code == 302
