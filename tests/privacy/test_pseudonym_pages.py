"""An erased person's pseudonym in the reader's language on pages, CSV files and notices."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.privacy.conftest import NOW, Scene
from tracker.people.models import Engineer
from tracker.people.services.persons import set_active
from tracker.privacy.services.erasure import erase_person
from tracker.progress.models import Certification
from tracker.reminders.calendars import certification_event

SPANISH = "Antiguo miembro n.º {id}"
ENGLISH = "Former member #{id}"


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(
        db, name="Ada Admin", email="ada.admin@example.com", access_role="admin", locale="es"
    )


@pytest.fixture
def erased(db: Session, scene: Scene, admin: Engineer) -> Engineer:
    set_active(db, scene.person, False, admin, via="web")
    erase_person(db, scene.person, admin, NOW, via="web")
    db.flush()
    return scene.person


@pytest.mark.parametrize(
    "url",
    ["/engineers/{id}", "/careers/engineers/{id}", "/careers/apprenticeships"],
)
def test_a_spanish_manager_reads_the_spanish_pseudonym(
    client: FlaskClient, auth, db: Session, scene: Scene, erased: Engineer, url: str
):
    scene.manager.locale = "es"
    db.flush()
    auth.sign_in(scene.manager)
    page = client.get(url.format(id=erased.id))
    assert page.status_code == 200
    assert SPANISH.format(id=erased.id) in page.text
    assert "Former member" not in page.text


def test_an_english_manager_reads_the_english_pseudonym(
    client: FlaskClient, auth, scene: Scene, erased: Engineer
):
    auth.sign_in(scene.manager)
    page = client.get(f"/engineers/{erased.id}").text
    assert ENGLISH.format(id=erased.id) in page and "Antiguo miembro" not in page


def test_the_spanish_account_trail_and_its_csv(
    client: FlaskClient, auth, admin: Engineer, erased: Engineer
):
    auth.sign_in(admin)
    for url in ("/admin/audit", "/admin/audit.csv"):
        text = client.get(url).text
        assert SPANISH.format(id=erased.id) in text and "Former member" not in text


def test_a_spanish_calendar_event_names_the_spanish_pseudonym(db: Session, erased: Engineer):
    cert = db.scalars(
        select(Certification).where(
            Certification.engineer_id == erased.id, Certification.expires_on.is_not(None)
        )
    ).first()
    assert cert is not None
    event = certification_event(cert, "https://tracker.example.com", "es")
    summary = str(event["SUMMARY"]) + str(event["DESCRIPTION"])
    assert SPANISH.format(id=erased.id) in summary and "Former member" not in summary
    english = str(certification_event(cert, "https://tracker.example.com", "en")["SUMMARY"])
    assert ENGLISH.format(id=erased.id) in english
