"""Calendar feeds, and the profile's messages about them, in their reader's language."""

from __future__ import annotations

from icalendar import Calendar
from sqlalchemy.orm import Session

from tests import factories
from tests.reminders.helpers import (
    ANA,
    CREDENTIAL,
    _manager,
    holder,
)
from tracker.people.models import Engineer, Team
from tracker.reminders import calendars


def _feed_scene(db: Session, engineer_locale: str, manager_locale: str) -> tuple[Engineer, Team]:
    zoe = _manager(db, "Zoë Ångström", manager_locale)
    crew = factories.team(db, gpus=64, manager=zoe, name="R&D")
    ana, _ = holder(db, name=ANA, team=crew, locale=engineer_locale)
    return ana, crew


def test_an_engineers_feed_is_in_their_language(db):
    ana, _ = _feed_scene(db, "es", "en")
    calendar = Calendar.from_ical(calendars.engineer_feed(db, ana))
    assert str(calendar["x-wr-calname"]) == f"Vencimientos de certificaciones · {ANA}"
    (event,) = calendar.walk("VEVENT")
    assert str(event["summary"]) == f"{ANA}: NCA-AIIO válida hasta este día inclusive"
    assert str(event["description"]) == (
        f"La certificación {CREDENTIAL} de {ANA} es válida hasta este día inclusive."
    )


def test_a_teams_feed_is_in_its_managers_language(db):
    _, crew = _feed_scene(db, "en", "es")
    calendar = Calendar.from_ical(calendars.team_feed(db, crew))
    assert str(calendar["x-wr-calname"]) == "Vencimientos de certificaciones · R&D"
    (event,) = calendar.walk("VEVENT")
    assert str(event["summary"]) == f"{ANA}: NCA-AIIO válida hasta este día inclusive"
    english = Calendar.from_ical(calendars.team_feed(db, factories.team(db, name="Ops")))
    assert str(english["x-wr-calname"]) == "Certification expiries · Ops"


def test_a_teams_feed_names_each_credential_in_its_managers_language(db):
    zoe = _manager(db, "Zoë Ångström", "es")
    crew = factories.team(db, gpus=64, manager=zoe, name="R&D")
    holder(db, "VENDOR-EXPERT", name=ANA, team=crew, locale="en")
    (event,) = Calendar.from_ical(calendars.team_feed(db, crew)).walk("VEVENT")
    assert str(event["description"]) == (
        "La certificación Credencial de experto específica del proveedor de "
        f"{ANA} es válida hasta este día inclusive."
    )


def test_a_feed_url_without_a_setting_speaks_the_deployments_default(app, client, db, monkeypatch):
    ana, _ = _feed_scene(db, "", "")
    token = calendars.replace_token(db, ana)
    assert (
        f"SUMMARY:{ANA}: NCA-AIIO valid through this day".encode()
        in client.get(f"/calendar/engineer/{token}.ics").data
    )
    monkeypatch.setitem(app.config, "DEFAULT_LOCALE", "es")
    body = client.get(f"/calendar/engineer/{token}.ics").data
    assert f"SUMMARY:{ANA}: NCA-AIIO válida hasta este día inclusive".encode() in body
    assert b"valid through" not in body


def test_managing_a_feed_answers_in_the_persons_language(client, auth, db):
    ana, _ = _feed_scene(db, "es", "en")
    auth.sign_in(ana)
    assert client.post("/calendar/mine/token").status_code == 302
    html = client.get("/profile").text
    assert "Enlace de calendario creado: suscribirse a él desde el programa de calendario." in html
    assert "Calendar feed created" not in html
    client.post("/calendar/mine/token")
    assert "Enlace de calendario sustituido: el anterior ya no funciona." in (
        client.get("/profile").text
    )
    client.post("/calendar/mine/token/remove")
    assert "Enlace de calendario eliminado: ya no funciona." in client.get("/profile").text
