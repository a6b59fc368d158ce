"""The engineer's pages turn away the signed-out and forms without their CSRF token."""

from __future__ import annotations

import re

import pytest

from tests.progress.helpers import (
    D,
    attempt_form,
    counts,
    credential_form,
    hours_form,
    log,
    plan_form,
)
from tracker.progress.models import HourLog

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.mark.parametrize(
    "url",
    ["/dashboard", "/engineers/1", "/hours", "/hours/1/edit", "/exams", "/credentials"],
)
def test_anonymous_is_redirected_to_login(client, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")


@pytest.mark.parametrize(
    "url",
    ["/hours", "/hours/1/edit", "/hours/1/delete", "/exams", "/exams/plan", "/credentials"],
)
def test_anonymous_posts_are_redirected_and_store_nothing(db, client, url):
    before = counts(db)

    response = client.post(url, data={"hours": "1"})

    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")
    assert counts(db) == before


def _token(html: str, name: str = "csrf_token") -> str:
    match = re.search(rf'name="{name}"[^>]*value="([^"]+)"', html) or re.search(
        rf'value="([^"]+)"[^>]*name="{name}"', html
    )
    assert match, f"no {name} on the page"
    return match[1]


@pytest.mark.parametrize("form", ["hours", "edit", "delete", "exams", "plan", "credentials"])
def test_forms_without_a_csrf_token_are_refused(db, app, client, auth, alice, monkeypatch, form):
    entry = log(db, alice, "FDL", 1, D(2026, 11, 20))
    auth.sign_in(alice)
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", True)
    url, data = {
        "hours": ("/hours", hours_form(db)),
        "edit": (f"/hours/{entry.id}/edit", hours_form(db, hours="3")),
        "delete": (f"/hours/{entry.id}/delete", {}),
        "exams": ("/exams", attempt_form(db, alice)),
        "plan": ("/exams/plan", plan_form(db)),
        "credentials": ("/credentials", credential_form(db, alice)),
    }[form]
    before = counts(db)

    response = client.post(url, data=data)

    assert response.status_code == 400
    assert counts(db) == before
    db.expire_all()
    assert db.get(HourLog, entry.id).hours == 1


def test_forms_with_their_csrf_token_are_accepted(db, app, client, auth, alice, monkeypatch):
    auth.sign_in(alice)
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", True)

    token = _token(client.get("/hours").get_data(as_text=True))
    response = client.post("/hours", data={**hours_form(db), "csrf_token": token})
    assert response.status_code == 302

    exams = client.get("/exams").get_data(as_text=True)
    plan = {**plan_form(db), "plan-csrf_token": _token(exams, "plan-csrf_token")}
    assert client.post("/exams/plan", data=plan).status_code == 302
    attempt = {**attempt_form(db, alice), "csrf_token": _token(exams)}
    assert client.post("/exams", data=attempt).status_code == 302
