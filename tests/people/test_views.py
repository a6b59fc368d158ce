"""Sign-in, sessions, CSRF, security headers and the profile, through the test client."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests import factories
from tests.factories import PASSWORD, TODAY
from tests.helpers import csp_directives, csrf_token, fresh, post_login
from tests.test_i18n import ENGLISH, SPANISH
from tracker.config import Config
from tracker.extensions import SignInLimiter
from tracker.people.models import Engineer
from tracker.people.services import accounts
from tracker.people.services.accounts import authenticate
from tracker.people.services.persons import set_active
from tracker.progress.models import HourLog

BAD_SIGN_IN = "Email or password is wrong."
TOO_MANY = "Too many failed sign-ins"
NEW_PASSWORD = "another long secret"


# --- helpers -------------------------------------------------------------------------


def path_of(response) -> str:
    return urlsplit(response.headers["Location"]).path


def redirected_to_login(response) -> bool:
    return response.status_code == 302 and path_of(response) == "/login"


def signed_in_id(client: FlaskClient) -> str | None:
    with client.session_transaction() as session:
        return session.get("_user_id")


@pytest.fixture(autouse=True)
def limiter(limiter: SignInLimiter) -> SignInLimiter:
    """Give every test here a sign-in limiter of its own (all sign in from 127.0.0.1)."""
    return limiter


@pytest.fixture
def person(db) -> Engineer:
    return factories.engineer(db)


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


# --- sessions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["/dashboard", "/hours", "/exams", "/credentials", "/profile", "/engineers/1"]
)
def test_pages_need_sign_in(client, url):
    response = client.get(url)
    assert redirected_to_login(response)
    assert "next=" in response.headers["Location"]


@pytest.mark.parametrize("url", ["/logout", "/profile", "/profile/password", "/hours"])
def test_posts_need_sign_in(client, db, url):
    before = db.scalar(select(func.count()).select_from(HourLog))
    response = client.post(url, data={"experience_months": "5"})
    assert redirected_to_login(response)
    assert db.scalar(select(func.count()).select_from(HourLog)) == before


def copy_session(app: Flask, client: FlaskClient) -> FlaskClient:
    """Return a new client carrying a copy of `client`'s session cookie."""
    cookie = client.get_cookie("session")
    assert cookie is not None
    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    return thief


def test_sign_out_ends_the_session_and_a_replayed_cookie_is_refused(app, client, auth, person):
    auth.login(person.email)
    thief = copy_session(app, client)
    assert thief.get("/dashboard").status_code == 200  # the copy works while signed in
    response = auth.logout()
    assert redirected_to_login(response)
    assert signed_in_id(client) is None
    assert redirected_to_login(client.get("/dashboard"))
    assert redirected_to_login(thief.get("/dashboard"))
    assert redirected_to_login(thief.get("/profile"))


def test_sign_out_ends_every_session_of_the_account(app, db, person):
    laptop, phone = app.test_client(), app.test_client()
    post_login(laptop, person.email)
    post_login(phone, person.email)
    assert phone.get("/dashboard").status_code == 200
    laptop.post("/logout")
    assert redirected_to_login(phone.get("/dashboard"))
    assert fresh(db, person).session_epoch == 1


def test_sign_in_after_sign_out_works_again(client, auth, person):
    auth.login(person.email)
    auth.logout()
    auth.login(person.email)
    assert client.get("/dashboard").status_code == 200


def test_password_change_ends_other_sessions_but_not_this_one(app, db, person):
    changer, other = app.test_client(), app.test_client()
    post_login(changer, person.email)
    post_login(other, person.email)
    old_copy = copy_session(app, changer)
    assert other.get("/dashboard").status_code == 200
    response = changer.post("/profile/password", data={"current": PASSWORD, "new": NEW_PASSWORD})
    assert response.status_code == 302 and path_of(response) == "/profile"
    assert changer.get("/dashboard").status_code == 200
    assert redirected_to_login(other.get("/dashboard"))
    assert redirected_to_login(old_copy.get("/dashboard"))
    fresh(db, person)
    assert authenticate(db, person.email, NEW_PASSWORD) is person
    assert authenticate(db, person.email, PASSWORD) is None
    assert path_of(post_login(app.test_client(), person.email, NEW_PASSWORD)) == "/dashboard"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"current": "not my password", "new": NEW_PASSWORD}, "The current password is wrong."),
        ({"current": PASSWORD, "new": "short"}, "“New password” must be 10 to 200 characters"),
        ({"current": PASSWORD, "new": ""}, "“New password” is required"),
        ({"current": "", "new": NEW_PASSWORD}, "“Current password” is required"),
    ],
)
def test_a_refused_password_change_changes_nothing(app, client, auth, db, person, data, message):
    auth.login(person.email)
    other = copy_session(app, client)
    old_hash = person.password_hash
    response = client.post("/profile/password", data=data)
    assert response.status_code == 400
    assert message in response.text
    assert NEW_PASSWORD not in response.text
    fresh(db, person)
    assert (person.password_hash, person.session_epoch) == (old_hash, 0)
    assert other.get("/dashboard").status_code == 200


def test_deactivation_ends_the_session(app, client, auth, db, person):
    auth.login(person.email)
    assert client.get("/dashboard").status_code == 200
    set_active(db, person, False)
    assert redirected_to_login(client.get("/dashboard"))
    # Reactivating does not bring the old session back.
    set_active(db, person, True)
    assert redirected_to_login(client.get("/dashboard"))


def test_a_forged_user_id_in_the_session_is_refused(client, person):
    post_login(client, person.email)
    with client.session_transaction() as session:
        session["_user_id"] = f"{person.id}:not-a-number"
    assert redirected_to_login(client.get("/dashboard"))
    with client.session_transaction() as session:
        session["_user_id"] = f"{person.id}"
    assert redirected_to_login(client.get("/dashboard"))


def test_a_tampered_session_cookie_is_refused(app, client, person):
    post_login(client, person.email)
    value = client.get_cookie("session").value
    thief = app.test_client()
    thief.set_cookie("session", value[:-2] + ("AA" if not value.endswith("AA") else "BB"))
    assert redirected_to_login(thief.get("/dashboard"))


def session_set_cookie(response) -> str:
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("session=")]
    assert len(cookies) == 1, response.headers.getlist("Set-Cookie")
    return cookies[0]


def test_session_cookie_is_httponly_and_samesite_lax(client, person):
    header = session_set_cookie(post_login(client, person.email))
    attributes = {part.strip().split("=")[0].lower(): part for part in header.split(";")}
    assert "httponly" in attributes
    assert attributes["samesite"].strip() == "SameSite=Lax"
    assert "secure" not in attributes  # served over plain HTTP in this app


@pytest.fixture
def secure_cookies(app: Flask) -> Iterator[None]:
    saved = app.config["SESSION_COOKIE_SECURE"]
    app.config["SESSION_COOKIE_SECURE"] = True
    yield
    app.config["SESSION_COOKIE_SECURE"] = saved


def test_session_cookie_is_secure_when_configured(client, person, secure_cookies):
    response = client.post(
        "/login",
        data={"email": person.email, "password": PASSWORD},
        base_url="https://localhost",
    )
    header = session_set_cookie(response)
    parts = [p.strip().lower() for p in header.split(";")]
    assert "secure" in parts and "httponly" in parts and "samesite=lax" in parts
    assert response.headers["Strict-Transport-Security"].startswith("max-age=")


def test_https_base_url_in_the_environment_turns_secure_cookies_on(monkeypatch):
    monkeypatch.setenv("TRACKER_BASE_URL", "https://tracker.example")
    monkeypatch.setenv("TRACKER_SECRET_KEY", "x")
    config = Config()
    assert config.SESSION_COOKIE_SECURE is True
    assert config.SESSION_COOKIE_HTTPONLY is True
    assert config.SESSION_COOKIE_SAMESITE == "Lax"
    monkeypatch.setenv("TRACKER_BASE_URL", "http://127.0.0.1:5000")
    assert Config().SESSION_COOKIE_SECURE is False


def test_https_base_url_override_turns_secure_cookies_on(monkeypatch):
    monkeypatch.delenv("TRACKER_BASE_URL", raising=False)
    assert Config(BASE_URL="https://tracker.example", SECRET_KEY="x").SESSION_COOKIE_SECURE


# --- CSRF ----------------------------------------------------------------------------------


@pytest.fixture
def csrf_client(client: FlaskClient, person, csrf_enabled) -> FlaskClient:
    """A client signed in through the form, with CSRF protection on."""
    token = csrf_token(client.get("/login").text)
    response = client.post(
        "/login", data={"email": person.email, "password": PASSWORD, "csrf_token": token}
    )
    assert path_of(response) == "/dashboard"
    return client


def hour_count(db, who) -> int:
    return db.scalar(select(func.count()).select_from(HourLog).where(HourLog.engineer_id == who.id))


def hours_data(db) -> dict[str, str]:
    return {
        "course": str(factories.course(db, "FDL").id),
        "logged_on": TODAY.isoformat(),
        "hours": "1.5",
        "note": "csrf check",
    }


@pytest.mark.parametrize("token", [None, "", "not-a-token"])
def test_login_without_a_valid_csrf_token_is_refused(client, person, csrf_enabled, token):
    data = {"email": person.email, "password": PASSWORD}
    if token is not None:
        data["csrf_token"] = token
    response = client.post("/login", data=data)
    assert response.status_code == 400
    assert signed_in_id(client) is None


def test_login_with_the_csrf_token_from_the_form(client, person, csrf_enabled):
    token = csrf_token(client.get("/login").text)
    response = client.post(
        "/login", data={"email": person.email, "password": PASSWORD, "csrf_token": token}
    )
    assert path_of(response) == "/dashboard"


@pytest.mark.parametrize("token", [None, "not-a-token"])
def test_hours_post_without_csrf_token_stores_nothing(db, person, csrf_client, pinned_today, token):
    data = hours_data(db)
    if token is not None:
        data["csrf_token"] = token
    response = csrf_client.post("/hours", data=data)
    assert response.status_code == 400
    assert hour_count(db, person) == 0


def test_hours_post_with_the_csrf_token_from_the_form(db, person, csrf_client, pinned_today):
    token = csrf_token(csrf_client.get("/hours").text)
    response = csrf_client.post("/hours", data={**hours_data(db), "csrf_token": token})
    assert response.status_code == 302, response.text
    assert hour_count(db, person) == 1


def test_a_csrf_token_of_another_session_is_refused(app, db, person, csrf_client, pinned_today):
    stranger = app.test_client()
    token = csrf_token(stranger.get("/login").text)
    response = csrf_client.post("/hours", data={**hours_data(db), "csrf_token": token})
    assert response.status_code == 400
    assert hour_count(db, person) == 0


def test_logout_without_csrf_token_keeps_the_session(db, person, csrf_client):
    assert csrf_client.post("/logout").status_code == 400
    assert csrf_client.get("/dashboard").status_code == 200
    assert fresh(db, person).session_epoch == 0


def test_logout_with_the_csrf_token_from_the_page(db, person, csrf_client):
    token = csrf_token(csrf_client.get("/dashboard").text)
    response = csrf_client.post("/logout", data={"csrf_token": token})
    assert redirected_to_login(response)
    assert redirected_to_login(csrf_client.get("/dashboard"))


def test_profile_post_without_csrf_token_changes_nothing(db, person, csrf_client):
    response = csrf_client.post(
        "/profile", data={"experience_months": "12", "experience_text": "forged"}
    )
    assert response.status_code == 400
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (0, "")


def test_profile_post_with_the_csrf_token_from_the_form(db, person, csrf_client):
    token = csrf_token(csrf_client.get("/profile").text)
    response = csrf_client.post(
        "/profile",
        data={"experience_months": "12", "experience_text": "DGX ops", "csrf_token": token},
    )
    assert response.status_code == 302
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (12, "DGX ops")


def test_password_change_without_csrf_token_changes_nothing(db, person, csrf_client):
    old = person.password_hash
    response = csrf_client.post(
        "/profile/password", data={"current": PASSWORD, "new": NEW_PASSWORD}
    )
    assert response.status_code == 400
    assert fresh(db, person).password_hash == old


def test_every_rendered_form_carries_a_csrf_token(csrf_client):
    for url in ("/profile", "/hours", "/exams", "/credentials", "/dashboard"):
        html = csrf_client.get(url).text
        forms = re.findall(r"<form\b[^>]*method=\"post\"[^>]*>(.*?)</form>", html, re.S | re.I)
        assert forms, url
        for form in forms:
            assert re.search(r'name="[\w-]*csrf_token"', form), url


# --- security headers --------------------------------------------------------------------


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


def assert_no_inline_script(html: str) -> None:
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html, re.I), "inline <script>"
    assert not re.search(r"<[^>]+\son[a-z]+\s*=", html, re.I), "inline event handler"
    assert "javascript:" not in html.lower()


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


# --- profile -----------------------------------------------------------------------------


def test_profile_shows_the_person(client, auth, person):
    auth.login(person.email)
    response = client.get("/profile")
    assert response.status_code == 200
    assert person.name in response.text and person.email in response.text


def test_profile_saves_documented_experience(client, auth, db, person):
    auth.login(person.email)
    response = client.post(
        "/profile",
        data={"experience_months": "18", "experience_text": "  Ran a 512-GPU DGX cluster.  "},
    )
    assert response.status_code == 302 and path_of(response) == "/profile"
    fresh(db, person)
    assert person.experience_months == 18
    assert person.experience_text == "Ran a 512-GPU DGX cluster."
    page = client.get("/profile").text
    assert "Profile saved." in page
    assert "Ran a 512-GPU DGX cluster." in page


def test_profile_accepts_the_bounds(client, auth, db, person):
    auth.login(person.email)
    response = client.post("/profile", data={"experience_months": "600", "experience_text": ""})
    assert response.status_code == 302
    assert fresh(db, person).experience_months == 600


def test_profile_accepts_zero_months(client, auth, db, person):
    person.experience_months = 12
    db.flush()
    auth.login(person.email)
    response = client.post(
        "/profile", data={"experience_months": "0", "experience_text": "new hire, no GPU work"}
    )
    assert response.status_code == 302
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (0, "new hire, no GPU work")


@pytest.mark.parametrize(
    ("months", "message"),
    [
        ("-1", "months must be from 0 to 600"),
        ("601", "months must be from 0 to 600"),
        # DataRequired replaces the "not a valid integer" message; any message will do.
        ("abc", None),
        ("1.5", None),
        ("", "experience is required (0 or more months)"),
    ],
)
def test_profile_refuses_bad_months_next_to_the_field(client, auth, db, person, months, message):
    person.experience_months = 7
    person.experience_text = "before"
    db.flush()
    auth.login(person.email)
    response = client.post(
        "/profile", data={"experience_months": months, "experience_text": "after"}
    )
    assert response.status_code == 400
    error = re.search(
        r'<input[^>]*name="experience_months"[^>]*>\s*'
        r'<small id="experience_months-error" class="field-error">([^<]*)</small>',
        response.text,
    )
    assert error, "no error next to the months field"
    assert unescape(error.group(1)) == message if message else error.group(1).strip()
    assert 'aria-invalid="true"' in response.text
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (7, "before")


def test_profile_refuses_an_overlong_text(client, auth, db, person):
    auth.login(person.email)
    response = client.post(
        "/profile", data={"experience_months": "3", "experience_text": "x" * 4001}
    )
    assert response.status_code == 400
    assert 'id="experience_text-error"' in response.text
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (0, "")


PAYLOAD = "<script>alert('x')</script><img src=x onerror=alert(1)>"


def test_profile_text_is_shown_escaped(client, auth, db, person):
    auth.login(person.email)
    response = client.post("/profile", data={"experience_months": "3", "experience_text": PAYLOAD})
    assert response.status_code == 302
    assert fresh(db, person).experience_text == PAYLOAD  # stored verbatim
    page = client.get("/profile").text
    assert PAYLOAD not in page
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(" in page
    assert_no_inline_script(page)


def test_profile_text_is_escaped_when_the_form_is_refused(client, auth, person):
    auth.login(person.email)
    response = client.post("/profile", data={"experience_months": "-1", "experience_text": PAYLOAD})
    assert response.status_code == 400
    assert "<script>alert" not in response.text
    assert "&lt;script&gt;alert(" in response.text


def test_names_and_login_email_are_shown_escaped(client, db):
    who = factories.engineer(db, name="<b>Bold</b> & <script>x()</script>")
    post_login(client, who.email)
    for url in ("/profile", "/dashboard"):
        page = client.get(url).text
        assert "<script>x()" not in page and "<b>Bold</b>" not in page, url
        assert "&lt;b&gt;Bold&lt;/b&gt;" in page, url
    anonymous = client.application.test_client()
    response = post_login(anonymous, '"><script>alert(1)</script>@example.com', "wrong password")
    assert "<script>alert(1)" not in response.text
