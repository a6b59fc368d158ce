"""CSRF on the sign-in, hours, profile, password and sign-out forms: no token, no change."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests import factories
from tests.factories import PASSWORD, TODAY
from tests.helpers import csrf_token, fresh
from tests.people.helpers import NEW_PASSWORD, path_of, redirected_to_login, signed_in_id
from tracker.progress.models import HourLog

# The sign-ins here all come from 127.0.0.1: each test gets a sign-in limiter of its own.
pytestmark = pytest.mark.usefixtures("limiter")


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
