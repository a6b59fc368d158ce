"""The engineer's pages for a Spanish reader: words, hours, dates and the refusals.

Today is pinned to factories.TODAY (2026-11-29). The pages' English is tested
in the test_views_*.py modules; here each page is read in Spanish, with the English
phrases of the page gone.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import hours
from tests.helpers import SPANISH
from tests.progress.helpers import attempt_form, credential_form, hours_form, page
from tracker.people.models import Engineer
from tracker.progress.models import HourLog
from tracker.progress.services.hours import log_hours

TODAY = factories.TODAY
YESTERDAY = TODAY - dt.timedelta(days=1)
D = dt.date
NBSP = "\xa0"

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def ana(db: Session) -> Engineer:
    """A Spanish-speaking engineer: her setting, whatever the browser asks."""
    return factories.engineer(db, name="Ana Ops", locale="es")


def log(db: Session, who: Engineer, code: str, amount: str, on: dt.date = YESTERDAY) -> None:
    log_hours(db, who, factories.course(db, code), on, hours(amount), TODAY, note="", actor=who)


def absent(text: str, *phrases: str) -> None:
    found = [p for p in phrases if p in text]
    assert not found, f"English left on a Spanish page: {found}"


# --- dashboard ---------------------------------------------------------------------


def test_the_dashboard_speaks_spanish_with_spanish_hours_and_dates(db, client, auth, ana):
    log(db, ana, "FDL", "10")
    log(db, ana, "INTRO-AI-INFRA", "2.5", YESTERDAY - dt.timedelta(days=1))
    factories.certification(db, ana, "CKA", D(2024, 1, 15), D(2027, 1, 15))
    factories.certification(db, ana, "RHCE", D(2023, 11, 1), D(2026, 11, 1))
    auth.sign_in(ana)

    response = client.get("/dashboard")

    assert response.status_code == 200
    view = page(response)
    text = view.text
    assert "Mi progreso" in text and "Siguiente paso" in text and "Rutas de aprendizaje" in text
    assert "Nivel 1" in text and "a fecha de 29 nov 2026" in text
    # The domain's next steps, their dates and hours in Spanish too.
    assert view.next_steps == [
        "Renovar CKA: es válida hasta el 15 ene 2027 inclusive, dentro de 47 días",
        "Estudiar Introduction to AI Infrastructure (ruta Fundamentos): 2,5 de 16 h registradas",
    ]
    # 8 of FDL's 8 hours count, and 2.5 of the next course's 16: 10.5 of 48.
    assert "10,5 / 48 h" in text and "2,5 / 16 h" in text
    # FDL's 10 hours logged show beside the 8 that count.
    assert "10 h registradas, 8 de 8 h requeridas" in text
    # 10.5 / 48 = 21.9 %: the sign after a no-break space, as Spanish writes it.
    assert f"22{NBSP}%" in response.get_data(as_text=True)
    cka = next(r for r in view.rows if "(CKA)" in r)
    assert cka.endswith("15 ene 2024 15 ene 2027 ⚠ por caducar · quedan 47 días")
    rhce = next(r for r in view.rows if "(RHCE)" in r)
    assert rhce.endswith("caducada · hace 28 días")
    absent(text, "Your progress", "Next step", "Learning paths", "days left", "days ago", "Renew")


def test_the_dashboard_says_in_spanish_why_an_exam_is_not_open(db, client, auth):
    junior = factories.engineer(db, hired_on=D(2026, 6, 1), locale="es")
    factories.certification(db, junior, "NCA-AIIO", D(2026, 7, 1), D(2028, 7, 1))
    auth.sign_in(junior)

    view = page(client.get("/dashboard"))

    assert "Certificación NCA-AIIO válida hasta el 1 jul 2028 inclusive" in view.text
    assert "Sin preparación para NCP-AII:" in view.text
    assert "NCP-AII requiere 12 meses de experiencia documentada; 5 al 29 nov 2026" in view.text
    absent(view.text, "Not ready for", "requires", "months of documented experience")


def test_the_dashboard_is_spanish_for_a_browser_asking_for_it(db, client, auth):
    auth.sign_in(factories.engineer(db))

    spanish = client.get("/dashboard", headers=SPANISH).get_data(as_text=True)
    english = client.get("/dashboard").get_data(as_text=True)

    assert "Mi progreso" in spanish and "Your progress" not in spanish
    assert "Your progress" in english and "Mi progreso" not in english


# --- hours -------------------------------------------------------------------------


def test_the_hours_page_lists_entries_in_spanish(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/hours", data=hours_form(db, hours="2.5", note="laboratorio"))
    assert response.status_code == 302
    view = page(client.get("/hours"))

    assert "Registradas 2,5 h en Fundamentals of Deep Learning." in view.flashes
    assert "Registrar horas" in view.text and "Mis entradas" in view.text
    assert any(
        r.startswith("28 nov 2026 Fundamentals of Deep Learning 2,5 laboratorio") for r in view.rows
    )
    assert "Editar la entrada del 28 nov 2026" in view.text
    assert "1 entrada, 2,5 h en total." in view.text
    absent(view.text, "Log hours", "Your entries", "Logged 2.5 h", "Delete entry", "in all")


def test_a_refused_entry_is_explained_in_spanish_next_to_its_field(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/hours", data=hours_form(db, hours="30"))

    assert response.status_code == 400
    assert page(response).errors["hours"] == ["«Horas» debe ser mayor que 0 y como máximo 24"]
    assert db.scalars(select(HourLog).where(HourLog.engineer_id == ana.id)).first() is None


def test_hours_that_are_no_number_are_refused_with_an_example_of_hours(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/hours", data=hours_form(db, hours="mucho"))

    assert response.status_code == 400
    # Named as the range's refusal names it, with hours as a Spanish reader writes them.
    assert page(response).errors["hours"] == ["«Horas» debe ser un número, escrito como 1,5"]


def test_a_note_too_long_is_refused_in_spanish_naming_the_field(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/hours", data=hours_form(db, note="x" * 501))

    assert response.status_code == 400
    assert page(response).errors["note"] == ["«Nota» debe tener como máximo 500 caracteres"]


def test_a_full_day_is_refused_in_spanish_with_the_days_total(db, client, auth, ana):
    log(db, ana, "FDL", "20.5")
    auth.sign_in(ana)

    response = client.post("/hours", data=hours_form(db, hours="4"))

    assert response.status_code == 400
    assert page(response).errors["hours"] == [
        "un día admite como máximo 24 horas; ya hay 20,5 h registradas el 28 nov 2026"
    ]


def test_a_future_date_is_refused_in_spanish(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/hours", data=hours_form(db, logged_on="2026-11-30"))

    assert response.status_code == 400
    assert page(response).errors["logged_on"] == ["la fecha no puede ser futura"]


def test_every_rule_an_entry_breaks_is_told_in_one_round(db, client, auth, ana):
    """The form's own rules (hours) and the service's (the date) show together."""
    ana.hired_on = dt.date(2024, 1, 1)
    log(db, ana, "FDL", "1")
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == ana.id)).one()
    auth.sign_in(ana)

    sent = client.post("/hours", data=hours_form(db, hours="30", logged_on="2026-11-30"))
    edited = client.post(
        f"/hours/{entry.id}/edit",
        data=hours_form(db, hours="30", logged_on="2020-01-01", note="x" * 501),
    )

    assert (sent.status_code, edited.status_code) == (400, 400)
    assert page(sent).errors["logged_on"] == ["la fecha no puede ser futura"]
    assert "hours" in page(sent).errors
    errors = page(edited).errors
    assert errors["logged_on"] == [
        "la fecha no puede ser anterior a la de incorporación, 1 ene 2024"
    ]
    assert {"hours", "note"} <= set(errors)


def test_the_edit_page_shows_the_history_in_spanish(db, client, auth, ana):
    auth.sign_in(ana)
    client.post("/hours", data=hours_form(db, hours="2.5", note="primera"))
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == ana.id)).one()

    view = page(client.get(f"/hours/{entry.id}/edit"))

    assert "Editar la entrada del 28 nov 2026" in view.text and "Historial" in view.text
    created = next(r for r in view.rows if " alta " in f" {r} ")
    assert created.endswith("alta 28 nov 2026 · 2,5 h · primera")
    # The date input stays ISO: the browser's date picker needs it.
    assert 'value="2026-11-28"' in client.get(f"/hours/{entry.id}/edit").get_data(as_text=True)
    absent(view.text, "History", "Edit entry", "Save entry", "create")


# --- exams ---------------------------------------------------------------------------


def test_the_exams_page_records_and_lists_an_attempt_in_spanish(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post(
        "/exams", data=attempt_form(db, ana, cost="125.50"), follow_redirects=True
    )

    view = page(response)
    assert "NCA-AIIO aprobado: certificación válida hasta el 28 nov 2028 inclusive." in view.flashes
    assert "Registrar un intento" in view.text and "Planificar un examen" in view.text
    row = next(r for r in view.rows if r.startswith("28 nov 2026 NCA-AIIO"))
    # (The page's text has its no-break spaces squashed to spaces.)
    assert "82 %" in row and "✔ aprobado" in row and "125,50 US$" in row
    absent(view.text, "Record an attempt", "Your ledger", "passed:", "Score")


def test_a_refused_attempt_names_the_prerequisite_in_spanish(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/exams", data=attempt_form(db, ana, "NCP-AII"))

    assert response.status_code == 400
    (refusal,) = page(response).errors["exam"]
    assert refusal.startswith("NCP-AII requiere NCA-AIIO vigente (")


def test_a_plan_is_judged_in_spanish(db, client, auth, ana):
    factories.certification(db, ana, "NCA-AIIO", D(2025, 2, 1), D(2027, 2, 1))
    auth.sign_in(ana)

    response = client.post(
        "/exams/plan",
        data={"plan-exam": factories.exam(db, "NCP-AII").id, "plan-planned_on": "2027-03-01"},
        follow_redirects=True,
    )

    view = page(response)
    assert "NCP-AII previsto para el 1 mar 2027: no se cumplirán los requisitos." in view.flashes
    assert "no se cumplirán los requisitos" in view.text
    assert (
        "NCA-AIIO solo es válida hasta el 1 feb 2027 inclusive, antes de la fecha prevista "
        "1 mar 2027: "
        "conviene renovarla antes" in view.text
    )
    absent(view.text, "not eligible then", "renew it first")


# --- credentials ---------------------------------------------------------------------


def test_the_credentials_page_records_and_lists_in_spanish(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/credentials", data=credential_form(db, ana), follow_redirects=True)

    view = page(response)
    assert (
        "Registrado: Certified Kubernetes Administrator (CKA), válida hasta el 1 oct 2029 "
        "inclusive." in view.flashes
    )
    assert "Registrar una credencial obtenida fuera" in view.text
    assert "Mis certificaciones" in view.text
    row = next(r for r in view.rows if r.startswith("Certified Kubernetes Administrator (CKA)"))
    assert row.endswith("1 oct 2026 1 oct 2029 ✔ vigente · quedan 1037 días")
    absent(
        view.text,
        "Your certifications",
        "Record credential",
        "days left",
        "recorded, valid through",
    )


def test_a_refused_credential_is_explained_in_spanish(db, client, auth, ana):
    auth.sign_in(ana)

    response = client.post("/credentials", data=credential_form(db, ana, expires_on="2026-09-30"))

    assert response.status_code == 400
    assert page(response).errors["expires_on"] == [
        "la caducidad no puede ser anterior a la fecha de emisión"
    ]
    response = client.post("/credentials", data=credential_form(db, ana, name="x" * 201))
    assert response.status_code == 400
    assert page(response).errors["name"] == [
        "«Nombre (otra credencial)» debe tener como máximo 200 caracteres"
    ]
