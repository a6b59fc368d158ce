"""Sessions: replayed cookies, cookie flags, off-site `next`, the sign-in rate limit.

tests/people/test_sessions.py already shows that a replayed cookie cannot *read*
after sign-out, a password change or a deactivation (by the service), and that
the session cookie is HttpOnly, SameSite=Lax and Secure over HTTPS;
tests/people/test_signin.py, a dozen off-site `next` values and the limits per
account and per address. Added here:
a replayed cookie cannot *write* either, even with its CSRF token; the admin
page's deactivation; every cookie on every page; `next` through the whole
redirect; a spoofed X-Forwarded-For does not escape the per-address limit.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import PASSWORD, TODAY
from tests.helpers import count, csrf_token, pass_second_step, sign_in
from tests.security.conftest import World
from tests.security.matrix import WEB, objects, url_for_rule
from tracker.progress.models import HourLog

NEW_PASSWORD = "a brand new long password"


def _page_token(client: FlaskClient, url: str = "/hours") -> str:
    return csrf_token(client.get(url).get_data(as_text=True))


def _copy(app: Flask, client: FlaskClient) -> FlaskClient:
    thief = app.test_client()
    thief.set_cookie("session", client.get_cookie("session").value)
    return thief


def _end_by_sign_out(app, client, db, world):
    client.post("/logout", data={"csrf_token": _page_token(client)})


def _end_by_password_change(app, client, db, world):
    response = client.post(
        "/profile/password",
        data={"current": PASSWORD, "new": NEW_PASSWORD, "csrf_token": _page_token(client)},
    )
    assert response.status_code == 302


def _end_by_admin_deactivation(app, client, db, world):
    admin = app.test_client()
    token = csrf_token(admin.get("/login").get_data(as_text=True))
    admin.post(
        "/login", data={"email": world.admin.email, "password": PASSWORD, "csrf_token": token}
    )
    pass_second_step(admin, world.admin.email)
    page = f"/admin/people/{world.engineer.id}"
    response = admin.post(f"{page}/deactivate", data={"csrf_token": _page_token(admin, page)})
    assert response.status_code == 302, response.get_data(as_text=True)


@pytest.mark.parametrize(
    "end",
    [_end_by_sign_out, _end_by_password_change, _end_by_admin_deactivation],
    ids=["sign-out", "password change", "deactivation on the admin page"],
)
def test_a_replayed_cookie_and_its_csrf_token_cannot_write(
    app: Flask, client: FlaskClient, db: Session, world: World, monkeypatch, end
):
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", True)
    token = csrf_token(client.get("/login").get_data(as_text=True))
    client.post(
        "/login", data={"email": world.engineer.email, "password": PASSWORD, "csrf_token": token}
    )
    form_token = _page_token(client)
    thief = _copy(app, client)
    assert thief.get("/dashboard").status_code == 200
    before = count(db, HourLog)

    end(app, client, db, world)

    data = {
        "course": str(factories.course(db, "FDL").id),
        "logged_on": TODAY.isoformat(),
        "hours": "1",
        "note": "replayed",
        "csrf_token": form_token,
    }
    for response in (
        thief.post("/hours", data=data),
        thief.post("/profile", data={"experience_months": "99", "csrf_token": form_token}),
        thief.post(f"/hours/{world.entries['engineer'].id}/delete", data=data),
    ):
        # 403: a form sent from a page whose sign-in ended comes back to its sender.
        assert response.status_code in (302, 400, 403)
        if response.status_code == 302:
            assert urlsplit(response.headers["Location"]).path == "/login"
    assert thief.get("/dashboard").status_code == 302
    assert count(db, HourLog) == before
    db.expire_all()
    assert world.engineer.experience_months == 0


def test_no_remember_me_cookie_is_ever_set(client: FlaskClient, world: World):
    response = client.post(
        "/login", data={"email": world.engineer.email, "password": PASSWORD, "remember": "y"}
    )
    cookies = [c.split("=")[0] for c in response.headers.getlist("Set-Cookie")]
    assert cookies == ["session"]


@pytest.mark.parametrize("base_url", ["http://localhost", "https://localhost"])
def test_every_cookie_on_every_page_is_httponly_and_samesite(
    app: Flask, client: FlaskClient, world: World, monkeypatch, base_url
):
    secure = base_url.startswith("https")
    monkeypatch.setitem(app.config, "SESSION_COOKIE_SECURE", secure)
    headers = []
    response = client.post(
        "/login",
        data={"email": world.admin.email, "password": PASSWORD},
        base_url=base_url,
    )
    headers += response.headers.getlist("Set-Cookie")
    for endpoint, rule, method in WEB:
        if method == "GET":
            url = url_for_rule(rule, objects(world, "admin", "own", endpoint))
            headers += client.get(url, base_url=base_url).headers.getlist("Set-Cookie")
    headers += client.post("/logout", base_url=base_url).headers.getlist("Set-Cookie")
    assert headers, "no cookie was set"
    for header in headers:
        parts = [p.strip().lower() for p in header.split(";")]
        assert "httponly" in parts, header
        assert "samesite=lax" in parts, header
        assert ("secure" in parts) is secure, header


@pytest.mark.parametrize(
    "target",
    [
        "%2F%2Fevil.example",
        "/%2F%2Fevil.example",
        "/%5Cevil.example",
        "//evil.example%2F",
        "https:%2F%2Fevil.example",
        "\uff0f\uff0fevil.example",  # fullwidth solidus
        "/\x00/evil.example",
        " //evil.example",
        "//localhost@evil.example",
        "/..//evil.example",
        "http:/\\evil.example",
    ],
)
def test_an_off_site_next_is_not_followed_through_the_whole_redirect(
    client: FlaskClient, world: World, target: str
):
    first = client.get("/hours")
    assert first.status_code == 302
    login_url = first.headers["Location"]
    response = client.post(
        "/login",
        query_string={"next": target},
        data={"email": world.engineer.email, "password": PASSWORD},
    )
    assert response.status_code in (302, 400), login_url
    if response.status_code == 302:
        landing = urljoin("http://localhost/login", response.headers["Location"])
        assert urlsplit(landing).netloc == "localhost", landing


def test_a_spoofed_forwarded_for_header_does_not_escape_the_address_limit(app: Flask, db):
    people = [factories.engineer(db) for _ in range(7)]
    attacker = app.test_client()
    for n, who in enumerate(people[:6]):
        for m in range(5):
            response = attacker.post(
                "/login",
                data={"email": who.email, "password": "wrong password"},
                headers={"X-Forwarded-For": f"203.0.113.{n * 5 + m}"},
                environ_base={"REMOTE_ADDR": "10.9.9.9"},
            )
            assert response.status_code == 401
    response = attacker.post(
        "/login",
        data={"email": people[6].email, "password": PASSWORD},
        headers={"X-Forwarded-For": "198.51.100.1"},
        environ_base={"REMOTE_ADDR": "10.9.9.9"},
    )
    assert response.status_code == 429


@pytest.mark.parametrize("variant", ["  {email}  ", "{upper}", "{email}\t"])
def test_the_account_limit_holds_for_spelling_variants(client: FlaskClient, db, variant):
    who = factories.engineer(db)
    for _ in range(5):
        response = client.post("/login", data={"email": who.email, "password": "wrong"})
        assert response.status_code == 401
    email = variant.format(email=who.email, upper=who.email.upper())
    response = client.post("/login", data={"email": email, "password": PASSWORD})
    assert response.status_code in (400, 429)
    assert client.get("/dashboard").status_code == 302


def test_sign_in_then_replay_sign_in_form(client: FlaskClient, world: World):
    """A signed-in user posting the sign-in form again stays who they are."""
    sign_in(client, world.engineer.email)
    response = client.post("/login", data={"email": world.admin.email, "password": "wrong"})
    assert response.status_code == 302
    assert client.get("/admin/people").status_code == 403
