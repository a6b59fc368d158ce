"""A form refused for its token: good for as long as its sign-in, else a page keeping its data."""

from __future__ import annotations

import datetime as dt
import time
from types import SimpleNamespace

import itsdangerous.timed
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import count, csrf_token
from tracker.people.models import Engineer
from tracker.progress.models import HourLog

SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}


@pytest.fixture
def alice(db: Session) -> Engineer:
    return factories.engineer(db, name="Alice Ops")


@pytest.fixture
def protected(
    db: Session, app: Flask, client: FlaskClient, auth, alice: Engineer, monkeypatch
) -> Flask:
    """Alice signed in, and every form's token checked from then on."""
    auth.sign_in(alice)
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", True)
    return app


def _hours(db: Session, token: str, note: str = "lab") -> dict[str, object]:
    return {
        "course": factories.course(db, "FDL").id,
        "logged_on": (factories.TODAY - dt.timedelta(days=1)).isoformat(),
        "hours": "2.5",
        "note": note,
        "csrf_token": token,
    }


def test_a_form_left_open_for_hours_is_still_accepted(
    protected, db: Session, client: FlaskClient, monkeypatch
) -> None:
    token = csrf_token(client.get("/hours").get_data(as_text=True))
    # The page was drawn in the morning and sent in the evening.
    later = time.time() + 9 * 3600
    monkeypatch.setattr(itsdangerous.timed, "time", SimpleNamespace(time=lambda: later))

    response = client.post("/hours", data=_hours(db, token))

    assert response.status_code == 302
    assert count(db, HourLog) == 1


def test_a_form_of_another_sign_in_says_so_and_hands_back_what_it_held(
    protected, db: Session, client: FlaskClient
) -> None:
    data = _hours(db, "drawn-for-another-sign-in", note="Lab 3: NCCL all-reduce on 8 GPUs")

    response = client.post(
        "/hours", data=data, headers={**SPANISH, "Referer": "http://localhost/hours?page=2"}
    )

    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "El formulario no se ha enviado" in page
    assert "No se ha guardado nada" in page
    assert "CSRF" not in page
    assert "Lab 3: NCCL all-reduce on 8 GPUs" in page
    assert '<a href="/hours?page=2">' in page
    assert count(db, HourLog) == 0


def test_a_refused_form_never_shows_a_password_or_a_code_back(
    protected, client: FlaskClient
) -> None:

    response = client.post(
        "/profile/password",
        data={
            "current": "the-old-one-1234",
            "new": "a-new-secret-5678",
            "code": "123456",
            "csrf_token": "stale",
        },
    )

    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "The form was not sent" in page
    for secret in ("the-old-one-1234", "a-new-secret-5678", "123456", "stale"):
        assert secret not in page
    assert "What you had filled in" not in page


@pytest.mark.parametrize(
    ("path", "referrer", "back"),
    [
        # Another site's page is not where the form was.
        ("/hours", "https://elsewhere.example/hours", "/hours"),
        # A URL that only takes a post (a button) sends back to the start page.
        ("/logout", None, "/"),
    ],
)
def test_a_refused_form_links_back_to_a_page_of_this_site(
    protected, client: FlaskClient, path, referrer, back
) -> None:
    headers = {"Referer": referrer} if referrer else {}

    response = client.post(path, data={"csrf_token": "stale"}, headers=headers)

    assert response.status_code == 400
    assert f'<a href="{back}">Open the page again' in response.get_data(as_text=True)


def test_a_form_sent_after_its_sign_in_ended_elsewhere_hands_back_what_it_held(
    protected, db: Session, client: FlaskClient, alice: Engineer
) -> None:
    token = csrf_token(client.get("/hours").get_data(as_text=True))
    alice.session_epoch += 1  # signed out on another device: every session ends
    db.flush()
    data = _hours(db, token, note="Lab 4: NVLink bandwidth")

    response = client.post(
        "/hours", data=data, headers={**SPANISH, "Referer": "http://localhost/hours?page=2"}
    )

    page = response.get_data(as_text=True)
    assert response.status_code == 403
    assert "El formulario no se ha enviado" in page
    assert "tu sesión terminó" in page
    assert "Lab 4: NVLink bandwidth" in page
    assert '<a href="/login?next=/hours?page%3D2">' in page
    assert count(db, HourLog) == 0


def test_a_page_asked_for_after_the_sign_in_ended_still_goes_to_sign_in(
    protected, db: Session, client: FlaskClient, alice: Engineer
) -> None:
    token = csrf_token(client.get("/hours").get_data(as_text=True))
    alice.session_epoch += 1
    db.flush()

    asked, button = client.get("/hours"), client.post("/logout", data={"csrf_token": token})

    assert asked.status_code == 302
    assert asked.headers["Location"] == "/login?next=%2Fhours"
    # A button's post holds nothing to hand back: it goes to sign in as a page does.
    assert button.status_code == 302
    assert button.headers["Location"].startswith("/login?next=")
