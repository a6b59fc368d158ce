"""An erased person's page: the pseudonym, no reactivation, no renaming, other fields saved."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.admin.helpers import edit_data
from tests.helpers import fresh
from tracker.people.models import Engineer
from tracker.people.services.persons import set_active
from tracker.privacy.services.erasure import erase_person


@pytest.fixture
def erased(db: Session, admin: Engineer) -> Engineer:
    person = factories.engineer(db, name="Ellis Erased", email="ellis@example.com")
    set_active(db, person, False, admin, via="web")
    erase_person(db, person, admin, dt.datetime(2026, 11, 29, 9), via="web")
    return person


def test_the_page_says_erased_and_offers_nothing_back(admin_client, erased: Engineer):
    page = admin_client.get(f"/admin/people/{erased.id}").text
    assert f"Former member #{erased.id}" in page and "personal data erased" in page
    assert "Ellis" not in page
    assert f"/admin/people/{erased.id}/reactivate" not in page
    assert f"/admin/people/{erased.id}/erase" not in page


def test_reactivation_is_refused(admin_client, db: Session, erased: Engineer):
    response = admin_client.post(f"/admin/people/{erased.id}/reactivate")
    assert response.status_code == 400
    assert "cannot be reactivated" in response.text
    assert not fresh(db, erased).active


def test_other_fields_are_saved_but_not_a_name(admin_client, db: Session, erased: Engineer):
    page = admin_client.get(f"/admin/people/{erased.id}").text
    assert 'name="email"' not in page and 'name="name"' not in page
    renamed = edit_data(erased, level="3", name="Ellis Erased", email="ellis@example.com")
    saved = admin_client.post(f"/admin/people/{erased.id}", data=renamed)
    assert saved.status_code == 302
    erased = fresh(db, erased)
    assert erased.level == 3
    assert (erased.name, erased.email) == (
        f"Former member #{erased.id}",
        f"erased-{erased.id}@invalid",
    )


def test_the_pages_name_them_in_the_readers_language(admin_client, erased: Engineer):
    spanish = {"Accept-Language": "es"}
    listed = admin_client.get("/admin/people", headers=spanish).text
    assert f"Antiguo miembro n.º {erased.id}" in listed and "datos personales borrados" in listed
    page = admin_client.get(f"/admin/people/{erased.id}", headers=spanish).text
    assert f"<h1>Antiguo miembro n.º {erased.id}</h1>" in page
