"""The readiness pages in Spanish: words, percentages, months, dates and money of the locale.

The English pages are covered by test_team_page.py, test_plan.py, test_roi.py and
the others; here a Spanish browser (or a person whose setting is Spanish) reads the
same scene, and the English phrase of each page must be gone.
"""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient
from jinja2 import ChoiceLoader, DictLoader
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import ENGLISH, SPANISH, field_error, html_lang, read_csv, section, text
from tests.readiness.helpers import Org, roi_form, roi_result

pytestmark = pytest.mark.usefixtures("pinned_today")

# Spanish writes 50 % and 1.234 US$ with a no-break space; text() reads it as a space.
NBSP = "\N{NO-BREAK SPACE}"
DASH = "\N{EN DASH}"


def spanish(client: FlaskClient, url: str, status: int = 200) -> str:
    response = client.get(url, headers=SPANISH)
    assert response.status_code == status, url
    assert html_lang(response) == "es"
    return response.get_data(as_text=True)


def test_the_team_page_speaks_spanish_with_its_percentages_and_dates(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    html = spanish(client, f"/teams/{org.alpha.id}")
    page = text(html)
    assert (
        "50 GPU → plantilla Equipo pequeño (10-100 GPU) · 2 de 4 puestos cubiertos · "
        "50 % de preparación el 29 nov 2026"
    ) in page
    assert "Ver la preparación" in page and "Mapa de calor (CSV)" in page
    # What the nearest candidate lacks: the domain's message, its date in Spanish.
    assert "a Cy le falta: NCA-AIIO vigente (era válida hasta el 1 jun 2026 inclusive)" in page
    assert "Certificaciones que caducan antes" in page and "15 ene 2027" in page
    assert "caduca en 90 días o menos" in page
    for english in ("seats filled", "ready on", "Heat map", "Gaps", "lacks", "Forecast"):
        assert english not in page, english


def test_a_fleet_asked_for_is_read_grouped_as_the_page_writes_it(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    page = text(spanish(client, f"/teams/{org.alpha.id}?gpus=1.000"))
    assert "Alpha 1.000 GPU → plantilla Equipo grande (1.000+ GPU)" in page
    html = spanish(client, f"/teams/{org.alpha.id}?gpus=1.00", 400)
    assert "debe ser un número entero" in field_error(html, "gpus")


def test_an_roi_amount_is_read_grouped_as_the_page_writes_it(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    data = roi_form([("Formación", "75.000")], [("Ahorro", "1.000.000")])
    response = client.post("/roi", data=data, headers=SPANISH)
    assert response.status_code == 200
    assert "Inversión 75.000 US$ · retornos anuales 1.000.000 US$" in roi_result(
        response.get_data(as_text=True)
    )


def test_the_team_wide_certifications_name_each_code_once(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    wide = section(
        spanish(client, f"/teams/{org.alpha.id}?gpus=500"),
        "<h3>Certificaciones de todo el equipo</h3>",
        "</ul>",
    )
    assert "✔ cumplida Certified Kubernetes Administrator (CKA): Ada" in wide
    assert "✖ falta Red Hat Certified Engineer (RHCE)✖" in wide
    assert "(CKA) (CKA)" not in wide and "(RHCE) (RHCE)" not in wide


def test_the_forecast_names_its_months_as_the_locale_does(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    html = spanish(client, f"/teams/{org.alpha.id}")
    title = re.search(r"<title[^>]*>(.*?)</title>", html.split("<svg", 1)[1], re.S)
    assert title is not None and title.group(1) == "Previsión de preparación"
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", html, re.S)
    assert desc is not None
    described = " ".join(desc.group(1).split())
    assert described.startswith(
        "Preparación al inicio de cada uno de los próximos 12 meses, sin contar renovaciones:"
    )
    assert "dic 2026 2 de 4 (50 %); ene 2027 2 de 4 (50 %); feb 2027 1 de 4" in described
    ticks = re.findall(r'<text [^>]*class="tick"[^>]*>([^<]*)</text>', html)
    assert ticks[:2] == [f"100{NBSP}%", f"0{NBSP}%"]
    assert ticks[2:5] == ["dic", "ene", "feb"]
    assert "Dec" not in described and "Jan" not in ticks


def test_the_heat_map_follows_each_requests_language(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    english = client.get(f"/teams/{org.alpha.id}", headers=ENGLISH).get_data(as_text=True)
    assert "Certification heat map" in english
    html = spanish(client, f"/teams/{org.alpha.id}")
    assert "Mapa de calor de certificaciones" in html
    assert "Certification heat map" not in html
    again = client.get(f"/teams/{org.alpha.id}", headers=ENGLISH).get_data(as_text=True)
    assert "Mapa de calor" not in again


def test_a_badge_is_drawn_once_per_language(app, monkeypatch) -> None:
    """The heat map's badges are drawn once per arguments and kept: once per language too."""
    badge = '{% macro status_badge(status, days_left=None) %}{{ _("Heat map") }}{% endmacro %}'
    loader = ChoiceLoader([DictLoader({"_macros/status.html": badge}), app.jinja_env.loader])
    monkeypatch.setattr(app.jinja_env, "loader", loader)
    monkeypatch.setattr(app.jinja_env, "auto_reload", False)
    cached_badge = app.jinja_env.globals["cached_badge"]
    with app.test_request_context(headers=ENGLISH):
        assert cached_badge("valid", 9) == "Heat map"
    with app.test_request_context(headers=SPANISH):
        assert cached_badge("valid", 9) == "Mapa de calor"
    with app.test_request_context(headers=ENGLISH):
        assert cached_badge("valid", 9) == "Heat map"


def test_a_person_whose_setting_is_spanish_reads_the_teams_in_spanish(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    boss = factories.engineer(db, name="Jefa", access_role="admin", locale="es")
    auth.sign_in(boss)
    response = client.get("/teams", headers=ENGLISH)
    assert html_lang(response) == "es"
    page = text(response.get_data(as_text=True))
    assert "Preparación el 29 nov 2026 para la flota propia de cada equipo." in page
    assert "2 / 4 50 % Mona" in page and "1 / 4 25 % Otto" in page
    assert "Readiness" not in page and "No teams yet" not in page


def test_the_organisation_page_speaks_spanish(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    page = text(spanish(client, "/organisation"))
    assert "Preparación de la organización" in page
    assert "Todos los equipos el 29 nov 2026: 3 de 8 puestos cubiertos." in page
    assert "Caducan en 90 días o menos" in page
    assert "Equipo pequeño (10-100 GPU)" in page and "2 de 4" in page and "50 %" in page
    assert "2 equipos · Descargar esta tabla (CSV)" in page
    assert "Tendencia en 30 días" in page and "sin instantánea anterior" in page
    assert "El nombre del equipo contiene" in page and "Ordenar por" in page
    assert "La organización en los últimos 12 meses" in page and "Las cifras mes a mes" in page
    filtered = text(spanish(client, "/organisation?name=alp"))
    assert "1 equipo coincide · quitar los filtros" in filtered
    for english in ("Organisation readiness", "seats filled", "Small", "Fleet band", "Trend"):
        assert english not in page, english


def test_the_plan_speaks_spanish_with_money_in_us_dollars(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    html = spanish(client, f"/teams/{org.alpha.id}/plan?gpus=500&target=2027-05-29")
    assert f"1.355.000{NBSP}US$" in html
    page = text(html)
    assert (
        "Equipo mediano (100-1.000 GPU) para 500 GPU el 29 may 2027: "
        "preparados, 1; por formar, 2; por contratar, 7."
    ) in page
    assert f"Arquitecto de Infraestructura (nivel 5), 250.000 US${DASH}400.000 US$/año" in page
    # The strategies' notes are the domain's messages, their numbers grouped in Spanish.
    assert "2 x 15.000 US$-25.000 US$ por participante" in page
    assert "necesita un sénior (nivel 4 o 5) al que acompañar" in page
    assert f"1.355.000 US${DASH}2.275.000 US$" in page
    for english in ("to hire", "USD", "participants", "Who trains", "/yr", "Medium ("):
        assert english not in page, english


def test_the_plans_refusals_speak_spanish(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    html = spanish(client, f"/teams/{org.alpha.id}/plan?gpus=-5&target=2027-05-29", 400)
    assert field_error(html, "gpus") == "las GPU deben estar entre 0 y 10.000.000"
    html = spanish(client, f"/teams/{org.alpha.id}/plan?gpus=500&target=2026-11-29", 400)
    assert field_error(html, "target") == "la fecha objetivo debe ser posterior a hoy"
    html = spanish(client, f"/teams/{org.alpha.id}?on=3000-01-01", 400)
    assert field_error(html, "on") == "la fecha debe estar entre el 1 ene 1970 y el 31 dic 2999"


def test_the_roi_calculator_speaks_spanish_with_money_and_percentages(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    html = spanish(client, "/roi")
    result = roi_result(html)
    assert "Inversión 145.000 US$ · retornos anuales 675.000 US$" in result
    assert "ROI del primer año 365 % · ROI recurrente 465 %" in result
    page = text(html)
    assert "Calculadora de ROI" in page and "Calcular el ROI" in page and "Importe (USD)" in page
    for english in ("Investment", "yearly returns", "First-year ROI", "Compute ROI"):
        assert english not in page, english


def test_the_roi_calculators_refusals_speak_spanish(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    data = roi_form([("Formación", 75000)], [("Ahorro", 100000), ("Otro", -1)])
    response = client.post("/roi", data=data, headers=SPANISH)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert field_error(html, "returns-1-amount") == "el importe debe estar entre 0 y 10.000.000.000"
    # A line without its name: the field named, not "este campo".
    response = client.post("/roi", data=roi_form([("", 75000)], [("Ahorro", 1)]), headers=SPANISH)
    assert response.status_code == 400
    assert field_error(response.get_data(as_text=True), "investment-0-label") == (
        "el campo «Línea» es obligatorio"
    )
    # The service's refusal (no investment) too.
    response = client.post("/roi", data=roi_form([("Nada", 0)], [("Ahorro", 100)]), headers=SPANISH)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "la inversión debe ser mayor que 0" in html
    assert "the investment must be more than 0" not in html


def test_the_csv_exports_have_spanish_headers_and_words_and_keep_their_data(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/gaps.csv", headers=SPANISH)
    assert response.status_code == 200
    rows = read_csv(response.get_data(as_text=True))
    assert rows[0] == [
        "plantilla",
        "puesto",
        "rol",
        "nivel_mínimo",
        "nivel_máximo",
        "candidato",
        "carencias",
    ]
    # Words as the page has them (a slot's title, what a candidate lacks, its date);
    # codes, levels and names stay as they are.
    assert rows[1] == [
        "small",
        "Líder de Infraestructura",
        "lead",
        "4",
        "4",
        "Cy",
        "rol Líder de Infraestructura; nivel 4 (tiene 2); certificación NVIDIA-PROFESSIONAL; "
        "certificación VENDOR-EXPERT",
    ]
    assert rows[-1][-1] == "NCA-AIIO vigente (era válida hasta el 1 jun 2026 inclusive)"
    # The heat map's states as the page's cells name them; their dates ISO, levels numbers.
    heat = read_csv(
        client.get(f"/teams/{org.alpha.id}/heatmap.csv", headers=SPANISH).get_data(as_text=True)
    )
    assert heat[0][:3] == ["ingeniero", "correo electrónico", "nivel"]
    assert "caducada (2026-06-01)" in heat[3]
    assert {cell.split(" (")[0] for row in heat[1:] for cell in row[3:]} <= {
        "vigente",
        "por caducar",
        "caducada",
        "sin obtener",
        "revocada",
    }
    english = read_csv(
        client.get(f"/teams/{org.alpha.id}/heatmap.csv", headers=ENGLISH).get_data(as_text=True)
    )
    assert english[0][:3] == ["engineer", "email", "level"]
    assert "expired (2026-06-01)" in english[3]
    assert [row[:3] for row in english[1:]] == [row[:3] for row in heat[1:]]


@pytest.mark.parametrize("headers", [ENGLISH, SPANISH], ids=["en", "es"])
def test_the_gaps_csv_says_what_a_candidate_lacks_as_the_page_does(
    client: FlaskClient, auth, org: Org, headers: dict[str, str]
) -> None:
    auth.sign_in(org.mona)
    for gpus in (50, 500):
        url = f"/teams/{org.alpha.id}"
        page = text(client.get(f"{url}?gpus={gpus}", headers=headers).get_data(as_text=True))
        rows = read_csv(
            client.get(f"{url}/gaps.csv?gpus={gpus}", headers=headers).get_data(as_text=True)
        )
        lacking = [row for row in rows[1:] if row[5] == "Cy"]
        assert lacking
        for row in lacking:
            # The slot as the page titles it; its lacks as the page's sentence lists them.
            assert row[1] in page
            assert row[6].replace("; ", ", ") in page, row


def test_the_gaps_csv_words_a_hire_and_a_team_wide_gap_in_spanish(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.otto)
    rows = read_csv(
        client.get(f"/teams/{org.bravo.id}/gaps.csv", headers=SPANISH).get_data(as_text=True)
    )
    assert rows[1] == ["small", "Líder de Infraestructura", "lead", "4", "4", "contratar", ""]
    client.post("/logout")
    auth.sign_in(org.mona)
    url = f"/teams/{org.alpha.id}/gaps.csv?gpus=500"
    rows = read_csv(client.get(url, headers=SPANISH).get_data(as_text=True))
    assert [row for row in rows if row[1] == "todo el equipo"] == [
        ["medium", "todo el equipo", "", "", "", "nadie", "certificación RHCE"],
        ["medium", "todo el equipo", "", "", "", "nadie", "certificación VCP-DCV"],
    ]


def test_a_bad_csv_query_is_refused_in_spanish(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/gaps.csv?gpus=x", headers=SPANISH)
    assert response.status_code == 400
    assert "gpus debe ser un número entero de 0 o más" in response.get_data(as_text=True)


def test_the_print_view_is_drawn_in_the_pages_language(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    html = spanish(client, f"/teams/{org.alpha.id}?print=1&gpus=500")
    page = text(html)
    assert "Alpha · preparación el 29 nov 2026" in page
    assert "500 GPU · Equipo mediano (100-1.000 GPU) · 2 de 10 puestos (20 %)" in page
    assert "Volver a la página del equipo" in page and "Back to the team page" not in page
