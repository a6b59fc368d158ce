"""Sessions: sign-in needed, sign-out, password change, deactivation, forged and safe cookies."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests.factories import PASSWORD
from tests.helpers import fresh, post_login
from tests.people.helpers import NEW_PASSWORD, path_of, redirected_to_login, signed_in_id
from tracker.config import Config
from tracker.people.services.accounts import authenticate
from tracker.people.services.persons import set_active
from tracker.progress.models import HourLog

# The sign-ins here all come from 127.0.0.1: each test gets a sign-in limiter of its own.
pytestmark = pytest.mark.usefixtures("limiter")


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
