"""Erasing from the admin's person page and the command line: the confirmation, the refusals."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.privacy.conftest import Scene
from tracker.people.models import Engineer
from tracker.people.services.persons import set_active


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(
        db, name="Ada Admin", email="ada.admin@example.com", access_role="admin", locale="es"
    )


def _url(person: Engineer) -> str:
    return f"/admin/people/{person.id}/erase"


def test_the_button_shows_only_for_a_deactivated_person(
    client: FlaskClient, auth, db, scene, admin
):
    auth.sign_in(admin)
    page = f"/admin/people/{scene.person.id}"
    assert _url(scene.person) not in client.get(page).text
    assert client.get(_url(scene.person)).status_code == 302
    set_active(db, scene.person, False, admin, via="web")
    assert _url(scene.person) in client.get(page).text


def test_the_spanish_confirmation_asks_for_the_address(client: FlaskClient, auth, db, scene, admin):
    set_active(db, scene.person, False, admin, via="web")
    auth.sign_in(admin)
    page = client.get(_url(scene.person))
    assert page.status_code == 200
    assert "¿Borrar los datos personales de Pat Person?" in page.text
    assert 'name="email"' in page.text


def test_a_wrong_address_erases_nothing(client: FlaskClient, auth, db: Session, scene, admin):
    set_active(db, scene.person, False, admin, via="web")
    auth.sign_in(admin)
    response = client.post(_url(scene.person), data={"email": "olga.other@example.com"})
    assert response.status_code == 400
    assert "dirección de correo" in response.text
    assert db.get_one(Engineer, scene.person.id).erased_at is None


def test_the_right_address_erases_and_no_reactivation(
    client: FlaskClient, auth, db: Session, scene: Scene, admin
):
    set_active(db, scene.person, False, admin, via="web")
    auth.sign_in(admin)
    response = client.post(_url(scene.person), data={"email": "PAT@example.com "})
    assert response.status_code == 302
    db.expire_all()
    person = db.get_one(Engineer, scene.person.id)
    assert person.erased_at is not None and person.name == f"Former member #{person.id}"
    page = client.get(f"/admin/people/{person.id}").text
    assert f"Antiguo miembro n.º {person.id}" in page and _url(person) not in page
    refused = client.post(f"/admin/people/{person.id}/reactivate")
    assert refused.status_code == 400 and "borrados" in refused.text
    assert not db.get_one(Engineer, person.id).active
    # A second erasure is a no-op: back to the person's page.
    assert client.post(_url(person), data={"email": person.email}).status_code == 302


def test_an_active_person_is_refused_on_post(client: FlaskClient, auth, db: Session, scene, admin):
    auth.sign_in(admin)
    response = client.post(_url(scene.person), data={"email": "pat@example.com"})
    assert response.status_code == 400
    assert db.get_one(Engineer, scene.person.id).erased_at is None


def test_the_command_erases_a_deactivated_person(app, db: Session, scene: Scene):
    runner = app.test_cli_runner()
    refused = runner.invoke(args=["user", "erase", "pat@example.com", "--yes"])
    assert refused.exit_code == 1 and "deactivate them first" in refused.output
    set_active(db, scene.person, False, via="cli")
    done = runner.invoke(args=["user", "erase", "pat@example.com", "--yes"])
    assert done.exit_code == 0, done.output
    assert "erased" in done.output
    db.expire_all()
    assert db.get_one(Engineer, scene.person.id).erased_at is not None
