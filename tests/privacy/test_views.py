"""The personal-data downloads: the person's own and an admin's, their headers, who may."""

from __future__ import annotations

import json
from html import unescape

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.privacy.conftest import Scene
from tracker.audit.models import AccountEvent
from tracker.people.models import Engineer
from tracker.people.services.persons import set_locale

OWN = "/profile/data.json"
NAME = 'attachment; filename="tracker-data-2026-11-29.json"'


def _admin_url(person: Engineer) -> str:
    return f"/admin/people/{person.id}/data.json"


def _downloads(db: Session) -> list[tuple[int | None, int | None]]:
    rows = db.scalars(select(AccountEvent).where(AccountEvent.kind == "data_exported"))
    return [(row.engineer_id, row.actor_id) for row in rows]


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(
        db, name="Ada Admin", email="ada.admin@example.com", access_role="admin"
    )


def _check_download(response, scene: Scene) -> dict:
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == NAME
    assert response.headers["Cache-Control"] == "no-store"
    text = response.get_data(as_text=True)
    for what, value in {**scene.secrets, **scene.others}.items():
        assert value not in text, f"the download holds the {what}"
    return json.loads(text)


def test_a_person_downloads_their_own_data(client: FlaskClient, auth, db: Session, scene: Scene):
    auth.sign_in(scene.person)
    document = _check_download(client.get(OWN), scene)
    assert document["person"]["id"] == scene.person.id
    assert document["hour_logs"]
    # Noted in the trail: their own download names no actor.
    assert _downloads(db) == [(scene.person.id, None)]


def test_an_admin_downloads_anyones_data(
    client: FlaskClient, auth, db: Session, scene: Scene, admin
):
    auth.sign_in(admin)
    document = _check_download(client.get(_admin_url(scene.person)), scene)
    assert document["person"]["email"] == "pat@example.com"
    assert _downloads(db) == [(scene.person.id, admin.id)]
    assert client.get("/admin/people/999999/data.json").status_code == 404


@pytest.mark.parametrize("who", ["manager", "senior", "other"])
def test_nobody_else_downloads_a_persons_data(
    client: FlaskClient, auth, db: Session, scene: Scene, who
):
    """Not even the person's own manager: only the person, or an admin."""
    auth.sign_in(getattr(scene, who))
    assert client.get(_admin_url(scene.person)).status_code == 403
    # Their own download is theirs alone.
    document = json.loads(client.get(OWN).get_data(as_text=True))
    assert document["person"]["id"] == getattr(scene, who).id
    assert _downloads(db) == [(getattr(scene, who).id, None)]


def test_signed_out_the_downloads_ask_to_sign_in(client: FlaskClient, db: Session, scene: Scene):
    for url in (OWN, _admin_url(scene.person)):
        response = client.get(url)
        assert response.status_code == 302 and "/login" in response.headers["Location"]
    assert _downloads(db) == []


def test_the_profile_links_to_the_download_in_the_persons_language(
    client: FlaskClient, auth, db: Session, scene: Scene
):
    set_locale(db, scene.person, "es")
    auth.sign_in(scene.person)
    page = unescape(client.get("/profile").get_data(as_text=True))
    assert f'href="{OWN}"' in page
    assert "Mis datos" in page and "Descargar mis datos (JSON)" in page
    assert "todo lo que el tracker guarda sobre ti" in page
    assert "derecho de acceso y de portabilidad" in page


def test_the_admins_person_page_links_to_the_download(
    client: FlaskClient, auth, db: Session, scene: Scene, admin
):
    auth.sign_in(admin)
    page = unescape(client.get(f"/admin/people/{scene.person.id}").get_data(as_text=True))
    assert f'href="{_admin_url(scene.person)}"' in page
    assert "Download Pat Person's data (JSON)" in page
    client.get(_admin_url(scene.person))
    # The trail's rows (its CSV: the page's filter lists every kind) name the download.
    trail = client.get("/admin/audit.csv?kind=data_exported").get_data(as_text=True)
    (row,) = trail.splitlines()[1:]
    assert row.split(",")[1:4] == ["Personal data downloaded", "Web page", "Pat Person"]
    assert row.split(",")[5] == "Ada Admin"
