"""Deactivating a person: asked first, their sessions ended, reactivated; never oneself."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests import factories
from tests.factories import PASSWORD
from tests.helpers import confirmation, fresh, sign_in


def test_deactivation_ends_the_persons_sessions(app, admin_client, db, person):
    theirs = app.test_client()
    sign_in(theirs, person.email)
    assert theirs.get("/profile").status_code == 200
    # Not the page's main action: its button is drawn apart from "Save changes".
    page = admin_client.get(f"/admin/people/{person.id}").text
    deactivate = f"/admin/people/{person.id}/deactivate"
    assert f'<a href="{deactivate}" role="button" class="secondary">Deactivate</a>' in page

    response = admin_client.post(f"/admin/people/{person.id}/deactivate")
    assert response.status_code == 302
    assert fresh(db, person).active is False

    response = theirs.get("/profile")
    assert response.status_code == 302
    assert urlsplit(response.headers["Location"]).path == "/login"
    # Nor can they sign in again.
    assert (
        theirs.post("/login", data={"email": person.email, "password": PASSWORD}).status_code == 401
    )
    assert "deactivated" in admin_client.get("/admin/people").text


def test_deactivating_asks_first_what_it_does_and_what_stays(app, admin_client, db, person):
    theirs = app.test_client()
    sign_in(theirs, person.email)
    url = f"/admin/people/{person.id}/deactivate"

    asked = confirmation(admin_client, url)

    assert asked.question == f"Deactivate {person.name}?"
    assert "They are signed out everywhere" in asked.text
    assert "Their records stay, and an admin can reactivate the account" in asked.text
    assert asked.back == f"/admin/people/{person.id}"
    assert fresh(db, person).active is True
    assert theirs.get("/profile").status_code == 200

    response = asked.confirm()

    assert response.status_code == 302 and response.location == asked.back
    assert fresh(db, person).active is False
    assert theirs.get("/profile").status_code == 302
    # Deactivated, nothing is left to ask about: back to the person's page.
    assert admin_client.get(url).location == asked.back
    other = factories.engineer(db, name="Olga Otero")
    spanish = {"Accept-Language": "es"}
    asked = confirmation(admin_client, f"/admin/people/{other.id}/deactivate", headers=spanish)
    assert asked.question == "¿Desactivar a Olga Otero?"
    assert "la cuenta se puede reactivar en cualquier momento" in asked.text


def test_reactivation_lets_the_person_sign_in_again(app, admin_client, db, person):
    admin_client.post(f"/admin/people/{person.id}/deactivate")
    response = admin_client.post(f"/admin/people/{person.id}/reactivate")
    assert response.status_code == 302
    assert fresh(db, person).active is True
    sign_in(app.test_client(), person.email)


def test_admin_cannot_deactivate_themselves(admin_client, db, admin):
    response = admin_client.post(f"/admin/people/{admin.id}/deactivate")
    assert response.status_code == 400
    assert "you cannot deactivate your own account" in response.text
    assert fresh(db, admin).active is True
