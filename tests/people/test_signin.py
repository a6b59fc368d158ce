"""Signing in: the form, wrong passwords, the rate limits, and where `next` may lead."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests import factories
from tests.factories import PASSWORD
from tests.helpers import ENGLISH, SPANISH, post_login
from tests.people.helpers import path_of, redirected_to_login, signed_in_id
from tracker.people.services import accounts
from tracker.people.services.persons import set_active

BAD_SIGN_IN = "Email or password is wrong."
TOO_MANY = "Too many failed sign-ins"


# The sign-ins here all come from 127.0.0.1: each test gets a sign-in limiter of its own.
pytestmark = pytest.mark.usefixtures("limiter")


# --- sign-in ---------------------------------------------------------------------------


def test_login_page_renders(client):
    response = client.get("/login")
    assert response.status_code == 200
    assert 'name="email"' in response.text and 'name="password"' in response.text


def test_good_credentials_sign_in_and_go_to_the_dashboard(client, person):
    response = post_login(client, person.email)
    assert response.status_code == 302
    assert path_of(response) == "/dashboard"
    assert signed_in_id(client) == f"{person.id}:{person.session_epoch}"
    assert client.get("/dashboard").status_code == 200


def test_email_is_matched_case_insensitively(client, person):
    response = post_login(client, person.email.upper())
    assert path_of(response) == "/dashboard"


def test_signed_in_user_visiting_login_goes_to_the_dashboard(client, auth, person):
    auth.login(person.email)
    response = client.get("/login")
    assert response.status_code == 302 and path_of(response) == "/dashboard"


def test_wrong_password_and_unknown_email_get_the_same_answer(app, db, person):
    known, unknown = app.test_client(), app.test_client()
    wrong = post_login(known, person.email, "not the password")
    missing = post_login(unknown, "no-such-person@example.com", PASSWORD)
    assert wrong.status_code == missing.status_code == 401
    for response in (wrong, missing):
        assert BAD_SIGN_IN in response.text
    # The pages differ only by the email typed in.
    assert wrong.text.replace(person.email, "EMAIL") == missing.text.replace(
        "no-such-person@example.com", "EMAIL"
    )
    assert signed_in_id(known) is None and signed_in_id(unknown) is None
    assert known.get("/dashboard").status_code == 302


def test_password_is_not_echoed_back(client, person):
    response = post_login(client, person.email, "s3cret-typo-password")
    assert "s3cret-typo-password" not in response.text


def test_a_deactivated_account_cannot_sign_in(client, db, person):
    set_active(db, person, False)
    response = post_login(client, person.email)
    assert response.status_code == 401
    assert BAD_SIGN_IN in response.text
    assert signed_in_id(client) is None


@pytest.mark.parametrize(
    "data",
    [{}, {"email": "", "password": ""}, {"email": "x@example.com"}, {"password": PASSWORD}],
)
def test_an_incomplete_form_is_refused(client, data):
    response = client.post("/login", data=data)
    assert response.status_code == 400
    assert signed_in_id(client) is None


@pytest.mark.parametrize(
    ("headers", "refusals"),
    [
        (ENGLISH, ["“Email” is required", "“Password” is required"]),
        (
            SPANISH,
            [
                "el campo «Correo electrónico» es obligatorio",
                "el campo «Contraseña» es obligatorio",
            ],
        ),
    ],
)
def test_an_incomplete_form_names_each_missing_field(client, headers, refusals):
    response = client.post("/login", data={"email": "", "password": ""}, headers=headers)
    assert response.status_code == 400
    for refusal in refusals:
        assert refusal in response.text


def test_a_new_password_too_short_is_refused_in_spanish_naming_the_field(client, auth, person):
    auth.login(person.email)
    data = {"current": PASSWORD, "new": "corta"}
    response = client.post("/profile/password", data=data, headers=SPANISH)
    assert response.status_code == 400
    assert "«Contraseña nueva» debe tener entre 10 y 200 caracteres" in response.text


def test_password_is_stored_hashed_after_sign_up_and_sign_in(client, db):
    who = factories.engineer(db, password="plain text password")
    assert "plain text password" not in who.password_hash
    assert who.password_hash.startswith(accounts.PASSWORD_METHOD.split(":")[0] + ":")
    assert path_of(post_login(client, who.email, "plain text password")) == "/dashboard"


# --- rate limit -----------------------------------------------------------------------------


def test_the_sixth_failure_for_an_account_is_refused_even_with_the_right_password(client, person):
    for _ in range(5):
        assert post_login(client, person.email, "wrong password").status_code == 401
    response = post_login(client, person.email)
    assert response.status_code == 429
    assert TOO_MANY in response.text
    assert signed_in_id(client) is None
    # The account limit holds from any address.
    other = post_login(client, person.email, environ_base={"REMOTE_ADDR": "10.0.0.77"})
    assert other.status_code == 429


def test_four_failures_still_let_the_right_password_in(client, person):
    for _ in range(4):
        assert post_login(client, person.email, "wrong password").status_code == 401
    assert path_of(post_login(client, person.email)) == "/dashboard"


def test_the_account_limit_is_case_insensitive(client, person):
    for n in range(5):
        email = person.email.upper() if n % 2 else person.email
        assert post_login(client, email, "wrong password").status_code == 401
    assert post_login(client, person.email.title()).status_code == 429


def test_an_unknown_email_is_limited_like_a_known_one(client):
    for _ in range(5):
        assert post_login(client, "ghost-limit@example.com", "wrong password").status_code == 401
    assert post_login(client, "ghost-limit@example.com", "wrong password").status_code == 429


def test_other_accounts_are_not_limited_by_one_account(client, db, person):
    for _ in range(5):
        post_login(client, person.email, "wrong password")
    other = factories.engineer(db)
    assert path_of(post_login(client, other.email)) == "/dashboard"


def test_the_per_address_limit(app, db):
    addr = {"REMOTE_ADDR": "10.0.0.31"}
    people = [factories.engineer(db) for _ in range(7)]
    attacker = app.test_client()
    # 30 failures from one address: 5 on each of 6 accounts...
    for who in people[:6]:
        for _ in range(5):
            assert (
                post_login(attacker, who.email, "wrong password", environ_base=addr).status_code
                == 401
            )
    # ...then the right password of an untouched account from that address is refused,
    fresh_account = people[6]
    response = post_login(attacker, fresh_account.email, environ_base=addr)
    assert response.status_code == 429
    assert signed_in_id(attacker) is None
    # while from another address the same account signs in.
    elsewhere = app.test_client()
    ok = post_login(elsewhere, fresh_account.email, environ_base={"REMOTE_ADDR": "10.0.0.32"})
    assert path_of(ok) == "/dashboard"


def test_29_failures_from_an_address_still_let_a_good_sign_in_through(app, db):
    addr = {"REMOTE_ADDR": "10.0.0.41"}
    client = app.test_client()
    for n in range(29):
        post_login(client, f"nobody{n}@example.com", "wrong password", environ_base=addr)
    who = factories.engineer(db)
    assert path_of(post_login(client, who.email, environ_base=addr)) == "/dashboard"


def test_limit_defaults_match_the_issue(app):
    assert app.config["SIGNIN_LIMIT_PER_ACCOUNT"] == "5/15minutes"
    assert app.config["SIGNIN_LIMIT_PER_ADDRESS"] == "30/15minutes"


# --- next parameter --------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example",
        "//evil.example/hours",
        "https://evil.example/x",
        "http://evil.example",
        "/\\evil",
        "/\\\\evil.example",
        "\\\\evil.example",
        "/\t/evil.example",
        "javascript:alert(1)",
        "evil.example",
        "https:/evil.example",
        "///evil.example",
    ],
)
def test_an_off_site_next_is_not_followed(client, person, target):
    response = client.post(
        "/login", query_string={"next": target}, data={"email": person.email, "password": PASSWORD}
    )
    assert response.status_code == 302
    location = response.headers["Location"]
    assert urlsplit(location).netloc in ("", "localhost")
    assert location == "/dashboard"


@pytest.mark.parametrize("target", ["/hours", "/exams?engineer=3", "/profile"])
def test_an_on_site_next_is_followed(client, person, target):
    response = client.post(
        "/login", query_string={"next": target}, data={"email": person.email, "password": PASSWORD}
    )
    assert response.status_code == 302
    assert response.headers["Location"] == target


def test_anonymous_visit_returns_there_after_sign_in(client, person):
    first = client.get("/hours")
    assert redirected_to_login(first)
    login_url = first.headers["Location"]
    response = client.post(login_url, data={"email": person.email, "password": PASSWORD})
    assert path_of(response) == "/hours"
