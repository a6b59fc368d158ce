"""The careers pages in Spanish: the ladder, bonuses, apprenticeships and their refusals.

The English pages are covered by test_career_pages.py, test_manager_pages.py and
test_bonus_pages.py; here the same scene is read in Spanish, with the locale's
dates and US dollars, and each page's English is gone.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal

from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.careers.conftest import People
from tests.careers.helpers import pairing
from tests.helpers import ENGLISH, SPANISH, html_lang, table, text
from tracker.careers.models import Apprenticeship, Evidence
from tracker.careers.rules import EARLIEST_DATE
from tracker.careers.services.bonuses import set_bonus
from tracker.careers.services.skills import assess, specialities
from tracker.progress.services.certifications import record_attempt

D = dt.date
TODAY = factories.TODAY  # 2026-11-29
DASH = "\N{EN DASH}"


def spanish(client: FlaskClient, url: str, status: int = 200) -> str:
    response = client.get(url, headers=SPANISH)
    assert response.status_code == status, url
    assert html_lang(response) == "es"
    return response.get_data(as_text=True)


def test_ones_own_career_page_speaks_spanish(client: FlaskClient, db, auth, people: People):
    auth.sign_in(people.junior)
    page = text(spanish(client, f"/careers/engineers/{people.junior.id}"))
    assert "Mi carrera" in page and "a 29 nov 2026" in page
    # The level's name is the catalog's Spanish.
    assert "Lo que falta para el nivel 2 (Operacional)" in page
    # What the next level asks: the domain's message, in Spanish.
    assert "una NCA-AIIO vigente" in page
    # The ladder: its rules in words, its salary bands in US dollars.
    assert "48 meses de experiencia; evidencias registradas" in page
    assert f"75.000 US${DASH}95.000 US$" in page
    assert "Dominio 0 ninguno · 1 básico · 2 práctico · 3 avanzado · 4 experto." in page
    for english in (
        "Your career",
        "What stands between",
        "months of experience",
        "Salary band",
        "Operational",
    ):
        assert english not in page, english
    # Jules is level 1, as the rules give without a valid NCA-AIIO: no note.
    assert "Las reglas de la escala" not in page and "escala, 1" not in page
    factories.certification(db, people.junior, "NCA-AIIO", dt.date(2026, 1, 1), dt.date(2028, 1, 1))
    db.flush()
    page = text(spanish(client, f"/careers/engineers/{people.junior.id}"))
    assert (
        "Las reglas de la escala dan hoy el nivel 2: se cumple cada uno de sus requisitos. El"
        " nivel asignado es 1; un responsable asigna el nivel, y las reglas son una guía."
    ) in page


def test_a_managers_view_of_a_career_speaks_spanish(
    client: FlaskClient, db: Session, auth, people: People
):
    assess(db, people.junior, specialities(db)[0], 3, people.junior)
    auth.sign_in(people.manager)
    client.post(
        f"/careers/engineers/{people.junior.id}/level", data={"level-level": "2"}, headers=SPANISH
    )
    response = client.post("/careers/apprenticeships", data=pairing(people), headers=SPANISH)
    assert response.status_code == 302
    html = spanish(client, f"/careers/engineers/{people.junior.id}")
    page = text(html)
    assert "Jules Junior: nivel 1 → 2." in page  # the flash
    assert "Jules Junior: carrera" in page and "Fijar el nivel" in page
    assert '<time datetime="2026-11-29">29 nov 2026</time>' in html
    assert "3 · avanzado autoevaluado" in page and "Confirmar" in page
    assert "del 1 dic 2026 al 1 mar 2027 (3 meses, previsto)" in page
    assert "10.625 US$ (20 % del tiempo de Sasha Senior)" in page
    for english in ("Set the level", "self-assessed", "planned", "Senior time", "months"):
        assert english not in page, english


def test_the_apprenticeships_page_speaks_spanish_and_refuses_in_spanish(
    client: FlaskClient, db: Session, auth, people: People
):
    auth.sign_in(people.manager)
    # The form is right; the service refuses: the senior's level is not above the junior's.
    data = pairing(people, junior=str(people.report.id), senior=str(people.junior.id))
    response = client.post("/careers/apprenticeships", data=data, headers=SPANISH)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert (
        "el nivel del sénior debe ser superior al del júnior "
        "(Jules Junior tiene el nivel 1 y Remy Report el 2)"
    ) in html
    assert "the senior&#39;s level" not in html and "the senior's level" not in html
    assert db.scalars(select(Apprenticeship)).first() is None
    page = text(html)
    assert "Emparejar a un júnior con un sénior" in page and "Lo habitual son 3-6 meses." in page
    assert "— la primera ruta sin terminar del júnior —" in page
    assert "Pair a junior" not in page and "months is usual" not in page


def test_a_refused_evidence_says_why_in_spanish(
    client: FlaskClient, db: Session, auth, people: People
):
    auth.sign_in(people.junior)
    data = {
        "evidence-kind": "patent",
        "evidence-title": "US 1",
        "evidence-occurred_on": "2026-11-30",
        "evidence-note": "",
    }
    response = client.post(
        f"/careers/engineers/{people.junior.id}/evidence", data=data, headers=SPANISH
    )
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "la fecha no puede ser futura" in html
    assert "date must not be in the future" not in html
    assert db.scalars(select(Evidence)).first() is None


def test_the_ledger_speaks_spanish_with_dollars_and_dates(
    client: FlaskClient, auth, people: People, earned: People
):
    auth.sign_in(people.admin)
    page = text(spanish(client, "/careers/bonuses?quarter=2026-Q4"))
    assert "Bonos por certificación · 2026-Q4" in page
    assert "Descargar el CSV para nóminas" in page
    assert "Jules Junior" in page and "1 oct 2026" in page and "500 US$" in page
    assert "Total1.500 US$" in page  # the footer's two cells
    for english in ("Certification bonuses", "Download CSV", "Passed on", "Total $"):
        assert english not in page, english


def test_the_ledgers_csv_has_spanish_headers_and_words_and_keeps_its_data(
    client: FlaskClient, db: Session, auth, people: People, earned: People
):
    # Junior renews in the quarter, and renewals earn: a row of each kind.
    credential = factories.credential(db, "NCA-AIIO")
    set_bonus(db, credential, Decimal("500"), True, effective_on=EARLIEST_DATE, today=TODAY)
    record_attempt(
        db, people.junior, factories.exam(db, "NCA-AIIO"), D(2026, 11, 2), 80, True, TODAY
    )
    auth.sign_in(people.admin)
    response = client.get("/careers/bonuses.csv?quarter=2026-Q4", headers=SPANISH)
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0] == [
        "trimestre",
        "ingeniero",
        "correo electrónico",
        "certificación",
        "nombre",
        "aprobada_el",
        "renovación",
        "importe",
    ]
    # Words as the page says them; for payroll, ISO dates and amounts with a decimal point.
    assert [row[5:] for row in rows[1:3]] == [
        ["2026-10-01", "no", "500.00"],
        ["2026-11-02", "sí", "500.00"],
    ]
    english = client.get("/careers/bonuses.csv?quarter=2026-Q4", headers=ENGLISH)
    assert english.get_data(as_text=True).startswith("quarter,engineer,email,")
    english_rows = list(csv.reader(io.StringIO(english.get_data(as_text=True))))
    assert [row[5:] for row in english_rows[1:3]] == [
        ["2026-10-01", "no", "500.00"],
        ["2026-11-02", "yes", "500.00"],
    ]


def test_the_ledgers_csv_names_a_certification_as_its_page_does(
    client: FlaskClient, db: Session, auth, people: People, earned: People
):
    factories.credential(db, "NCA-AIIO").name_es = "Asociado certificado de NVIDIA"
    db.flush()
    auth.sign_in(people.admin)
    for headers, name in (
        (SPANISH, "Asociado certificado de NVIDIA"),
        (ENGLISH, "NVIDIA Certified Associate - AI Infrastructure and Operations"),
    ):
        page = client.get("/careers/bonuses?quarter=2026-Q4", headers=headers)
        assert name in page.get_data(as_text=True)
        response = client.get("/careers/bonuses.csv?quarter=2026-Q4", headers=headers)
        rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
        assert rows[1][3:5] == ["NCA-AIIO", name]


def test_a_malformed_quarter_is_refused_in_spanish(client: FlaskClient, auth, people: People):
    auth.sign_in(people.admin)
    html = spanish(client, "/careers/bonuses?quarter=2026-Q9", 400)
    assert "el trimestre debe escribirse YYYY-Qn, de Q1 a Q4" in html
    response = client.get("/careers/bonuses.csv?quarter=2026-Q9", headers=SPANISH)
    assert response.status_code == 400
    assert "el trimestre debe escribirse YYYY-Qn" in response.get_data(as_text=True)


def test_the_bonus_amounts_speak_spanish(client: FlaskClient, db: Session, auth, people: People):
    credential = factories.credential(db, "NCA-AIIO")
    set_bonus(db, credential, Decimal("500"), effective_on=EARLIEST_DATE, today=TODAY)
    set_bonus(db, credential, Decimal("800"), effective_on=D(2026, 6, 1), today=TODAY)
    auth.sign_in(people.admin)
    html = spanish(client, "/careers/bonuses/amounts")
    current = [[cell for cell, _ in row] for row in table(html, css_class="bonus-amounts")]
    assert current[0] == [
        "Certificación",
        "Importe",
        "Las renovaciones obtienen",
        "Solo verificadas",
        "Para aprobados",
    ]
    assert current[1][1:] == ["800 US$", "no", "no", "desde el 1 jun 2026"]
    earlier = [[cell for cell, _ in row] for row in table(html, css_class="bonus-history")]
    assert earlier[1][1:] == ["500 US$", "no", "no", "desde el principio hasta el 31 may 2026"]
    response = client.post(
        "/careers/bonuses/amounts",
        data={"credential": "NCP-AII", "amount": "1250.5", "effective_on": "2026-10-01"},
        headers=SPANISH,
        follow_redirects=True,
    )
    page = text(response.get_data(as_text=True))
    assert (
        "NCP-AII: bono de 1.250,50 US$ (las renovaciones no lo obtienen), "
        "para certificaciones aprobadas desde el 1 oct 2026."
    ) in page
    assert "1.250,50 US$" in page
    for english in ("Bonus amounts", "Earlier amounts", "from the start", "renewals do not"):
        assert english not in page, english


def test_the_promotions_and_coverage_speak_spanish(client: FlaskClient, auth, people: People):
    auth.sign_in(people.manager)
    page = text(spanish(client, "/careers/promotions"))
    assert "Preparados para ascender" in page and "Todavía no" in page
    assert "evidencias registradas (patentes, publicaciones o despliegues dirigidos)" in page
    assert "Ready for promotion" not in page and "recorded evidence" not in page
    page = text(spanish(client, f"/careers/teams/{people.team.id}/skills"))
    assert "Blue: cobertura de especialidades" in page and "✖ nadie" in page
    assert "skills coverage" not in page and "nobody" not in page
