"""The admin pages in Spanish: texts, flashes, refusals, numbers and dates of the locale."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.admin.helpers import field_error, text
from tests.helpers import count, fresh, sign_in
from tests.reminders.helpers import MAIL, WINDOWS, days_before, holder
from tracker.catalog.models.credentials import Course
from tracker.catalog.services.internal_track import create_internal_track
from tracker.people.models import Engineer, Team
from tracker.people.services.reads import find_engineer
from tracker.reminders.models import Notification
from tracker.reminders.services.daily_pass import plan


@pytest.fixture
def admin_es(client: FlaskClient, db: Session) -> FlaskClient:
    """An admin who chose Spanish, signed in (the browser asks for English)."""
    admin = factories.engineer(db, name="Ada Admin", access_role="admin", locale="es")
    sign_in(client, admin)
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en-GB,en;q=0.9"
    return client


def page(client: FlaskClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    html = text(response)
    assert '<html lang="es">' in html
    return html


def absent(html: str, *phrases: str) -> None:
    for phrase in phrases:
        assert phrase not in html, phrase


def test_the_people_page(admin_es, db):
    factories.engineer(db, name="Mia Manager", access_role="manager")
    html = page(admin_es, "/admin/people")
    assert "<h1>Personas</h1>" in html and "Añadir una persona" in html
    assert "Importar desde CSV" in html and "Rol de acceso" in html and "Puestos" in html
    assert "<td>responsable</td>" in html and "<td>administrador</td>" in html
    assert "activo" in html and "progreso" in html
    assert 'aria-label="Administración"' in html and "Catálogo y certificación interna" in html
    absent(html, "Add a person", "Access role", "Job roles", "Catalog and internal track")


def test_the_person_page_dates_history_and_language_field(admin_es, db):
    person = factories.engineer(db, name="Pia Person", hired_on=dt.date(2025, 3, 1))
    html = page(admin_es, f"/admin/people/{person.id}")
    assert "Historial de niveles" in html and "Historial de puestos" in html
    assert '<time datetime="2026-11-29">29 nov 2026</time>' in html
    assert '<time datetime="2025-03-01">1 mar 2025</time>' in html and "actualidad" in html
    assert "Guardar los cambios" in html and "Desactivar" in html
    assert '<label for="locale">Idioma</label>' in html and "Según pida su navegador" in html
    assert "Español" in html and "English" in html
    assert "— ninguno —" in html
    absent(html, "— none —", "Level history", "Save changes", "Deactivating signs")
    absent(html, "2026-11-29</td>")


def test_adding_a_person_flashes_and_refuses_in_spanish(admin_es, db):
    before = count(db, Engineer)
    refused = admin_es.post(
        "/admin/people/new",
        data={"name": "", "email": "x", "access_role": "boss", "level": "9", "locale": "fr"},
    )
    assert refused.status_code == 400
    html = text(refused)
    assert field_error(html, "name") == "el nombre es obligatorio"
    assert field_error(html, "email") == (
        "no es una dirección de correo electrónico válida (nombre@example.com)"
    )
    assert field_error(html, "locale") == "elige uno de los idiomas de la lista"
    assert field_error(html, "access_role") == "el rol debe ser uno de engineer, manager, admin"
    assert count(db, Engineer) == before
    data = {
        "name": "Nuria Nueva",
        "email": "nuria@example.com",
        "access_role": "engineer",
        "level": "1",
        "experience_months": "0",
        "password": "a long enough secret",
        "locale": "es",
    }
    added = admin_es.post("/admin/people/new", data=data, follow_redirects=True)
    assert "Se ha añadido a Nuria Nueva." in text(added)
    assert find_engineer(db, "nuria@example.com").locale == "es"


def test_a_service_refusal_is_shown_in_spanish(admin_es, db):
    boss = factories.engineer(db, name="Mia", access_role="manager")
    factories.engineer(db, name="Rui", manager=boss)
    response = admin_es.post(
        f"/admin/people/{boss.id}",
        data={
            "name": boss.name,
            "email": boss.email,
            "access_role": "engineer",
            "level": "1",
            "experience_months": "0",
            "hired_on": "2021-01-01",
            "job_roles": ["operations"],
            "locale": "",
        },
    )
    assert response.status_code == 400
    assert field_error(text(response), "access_role") == (
        "Mia es responsable de: Rui; "
        "elige otros responsables para ellos antes de quitarle el rol de responsable"
    )
    assert fresh(db, boss).access_role == "manager"


def test_the_teams_pages_number_and_refusal(admin_es, db):
    factories.team(db, name="Flota grande", gpus=1234567)
    html = page(admin_es, "/admin/teams")
    assert "<td>1.234.567</td>" in html and "Añadir un equipo" in html and "Miembros" in html
    absent(html, "1,234,567", "Add a team", "Members")
    refused = admin_es.post("/admin/teams/new", data={"name": "Otra", "gpus": "99999999"})
    assert refused.status_code == 400
    assert field_error(text(refused), "gpus") == (
        "el tamaño de la flota debe ser un número entero de GPU entre 0 y 10.000.000"
    )
    added = admin_es.post("/admin/teams/new", data={"name": "Otra", "gpus": "8"})
    assert added.status_code == 302
    assert "Equipo Otra añadido." in page(admin_es, "/admin/teams")
    assert count(db, Team) == 2


def test_a_fleet_is_typed_grouped_as_the_teams_page_shows_it(admin_es, db):
    added = admin_es.post("/admin/teams/new", data={"name": "Grande", "gpus": "12.288"})
    assert added.status_code == 302
    assert db.query(Team).filter_by(name="Grande").one().gpus == 12288
    refused = admin_es.post("/admin/teams/new", data={"name": "Otra", "gpus": "1.00"})
    assert refused.status_code == 400
    assert "debe ser un número entero" in field_error(text(refused), "gpus")


def test_the_catalog_page(admin_es, db, pinned_today):
    create_internal_track(
        db,
        exam_code="ACME-OPS",
        exam_name="ACME GPU Operations",
        validity_months=12,
        prerequisites=[],
        experience_months=6,
        retake_wait_days=30,
        courses="ACME-101 | Runbook | 6\nACME-102 | On-call | 2.5\n",
        path_code="ACME-PATH",
        path_name="ACME operations path",
        target_months=2,
    )
    html = page(admin_es, "/admin/catalog")
    assert "Rutas de aprendizaje" in html and "Nueva certificación interna" in html
    assert "ACME-OPS <mark>interna</mark>" in html and "8,5 h" in html and "2,5 h" in html
    assert "objetivo: 2 meses" in html and "12 meses" in html and "30 días" in html
    assert "6 meses de experiencia" in html and "Crear la certificación" in html
    absent(html, "Learning paths", "8.5 h", "does not expire", "Retake wait", " months")


TRACK_ES = {
    "exam_code": "ACME-OPS",
    "exam_name": "ACME GPU Operations",
    "validity_months": "12",
    "experience_months": "0",
    "retake_wait_days": "30",
    "path_code": "ACME-PATH",
    "path_name": "Ruta",
    "target_months": "2",
}


def test_a_course_lines_hours_are_read_as_a_spanish_reader_writes_them(admin_es, db):
    courses = "ACME-101 | GPU basics | 1,5 | Conceptos de GPU\nACME-102 | Runbook | 1.000\n"
    created = admin_es.post("/admin/catalog", data={**TRACK_ES, "courses": courses})
    assert created.status_code == 302
    internal = select(Course.code, Course.hours).where(Course.origin == "internal")
    hours = dict(db.execute(internal).tuples().all())
    assert hours == {"ACME-101": Decimal("1.5"), "ACME-102": Decimal("1000")}
    other = {**TRACK_ES, "exam_code": "ACME-X", "path_code": "ACME-Y", "courses": "ACME-9 | A | ?"}
    refused = admin_es.post("/admin/catalog", data=other)
    assert refused.status_code == 400
    assert field_error(text(refused), "courses") == (
        "línea 1: las horas deben ser un número, p. ej., 8 o 1,5"
    )


def test_a_catalog_refusal_names_its_field_in_spanish(admin_es, db):
    data = {
        "exam_code": "ACME-OPS",
        "exam_name": "x" * 201,
        "validity_months": "12",
        "courses": "ACME-101 | Runbook | 6",
        "path_code": "ACME-PATH",
        "path_name": "Ruta",
        "target_months": "2",
    }
    refused = admin_es.post("/admin/catalog", data=data)
    assert refused.status_code == 400
    assert field_error(text(refused), "exam_name") == (
        "«Nombre del examen» debe tener como máximo 200 caracteres"
    )


def test_a_csv_import_error_in_spanish(admin_es, db):
    html = page(admin_es, "/admin/imports")
    assert "Importa primero a las personas" in html and "Formatos de archivo" in html
    assert "Columnas opcionales: locale, password, weekly_digest." in html
    assert "locale (columna opcional)" in html
    absent(html, "Import people first", "File formats", "Optional columns")
    content = (
        "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months,locale\n"
        "nueva@example.com,Nueva,,,,,,,,es\n"
        "otra@example.com,Otra,,,,,,,,fr\n"
    )
    before = count(db, Engineer)
    response = admin_es.post(
        "/admin/imports",
        data={"kind": "people", "file": (io.BytesIO(content.encode()), "personas.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 400
    html = text(response)
    assert field_error(html, "file") == (
        "1 fila incumple una regla (se detalla abajo); no se ha importado nada"
    )
    assert "<h2>Filas rechazadas</h2>" in html
    assert (
        "<tr><td>3</td><td>locale</td><td>el idioma debe ser uno de en, es "
        "(o vacío para lo que elija el navegador)</td></tr>"
    ) in html
    absent(html, "Rows refused", "row breaks a rule", "language must be one of")
    assert count(db, Engineer) == before


def test_a_csv_cell_in_another_format_is_refused_in_spanish_with_the_format_wanted(admin_es, db):
    factories.engineer(db, email="ana@example.com")
    content = 'email,course,date,hours,note\nana@example.com,FDL,2026-01-05,"1,5",\n'
    response = admin_es.post(
        "/admin/imports",
        data={"kind": "hours", "file": (io.BytesIO(content.encode()), "horas.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 400
    assert (
        "<tr><td>2</td><td>hours</td><td>hours debe ser un número escrito con punto decimal"
        " y sin separador de miles, p. ej., 1200.5; no '1,5'</td></tr>"
    ) in text(response)
    assert "y los números con punto decimal y sin separador de miles (1200.5)" in text(response)


def test_a_csv_import_succeeds_in_spanish(admin_es, db):
    content = "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months\n"
    content += "uno@example.com,Uno,,,,,,,\ndos@example.com,Dos,,,,,,,\n"
    response = admin_es.post(
        "/admin/imports",
        data={"kind": "people", "file": (io.BytesIO(content.encode()), "p.csv")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "2 personas importadas." in text(response)


def test_the_outbox_page(admin_es, db):
    db.add(
        Notification(
            dedupe_key="es:1",
            kind="reminder",
            window_days=30,
            to_addrs="sam@example.com",
            cc_addrs="boss@example.com",
            subject="NCA-AIIO",
            body_text="text",
            message_id="<es.1@example.com>",
            status="failed",
            attempts=3,
            created_at=dt.datetime(2026, 11, 29, 8, 30),
            last_error="550 no such user",
        )
    )
    db.flush()
    html = page(admin_es, "/admin/outbox")
    assert "<h1>Bandeja de salida</h1>" in html and "Próximo intento" in html
    assert "29 nov 2026 08:30" in html and "fallido: 1" in html and "1 aviso" in html
    assert "recordatorio · 30 d" in html and "cc: boss@example.com" in html
    assert "Reintentar n.º" in html and "cualquier estado" in html
    absent(html, "Next attempt", "Last error", "The outbox is empty", "Retry #", ">2026-11-29")
    empty = page(admin_es, "/admin/outbox?status=sent")
    assert "Ningún aviso coincide con estos filtros." in empty and "quitar los filtros" in empty


def test_a_notice_not_composed_yet_shows_no_english_placeholder(admin_es, db):
    """The pass queues a notice with an English subject that composing writes again."""
    holder(db, name="Rosa Reader", locale="es")
    plan(db, days_before(7), WINDOWS, MAIL, compose=False)
    html = page(admin_es, "/admin/outbox")
    assert "En redacción, en el idioma de quien lo recibe" in html
    absent(html, "valid through", "Being written")
    # Nor is it found by the placeholder's words.
    assert "Ningún aviso coincide" in page(admin_es, "/admin/outbox?q=valid+through")


def test_a_skipped_notice_is_listed_by_its_name(admin_es, db):
    db.add(
        Notification(
            dedupe_key="es:skipped",
            kind="expired",
            to_addrs="sam@example.com",
            subject="renewed",
            body_text="text",
            message_id="<es.skipped@example.com>",
            status="skipped",
        )
    )
    db.flush()
    html = page(admin_es, "/admin/outbox")
    assert "</span> omitido</span>" in html and "<td>caducada</td>" in html
    absent(html, "> skipped", ">expired<")
