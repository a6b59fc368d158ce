"""The catalog's pages (tracker.catalog.views): the paths and the catalog, in English, Spanish."""

from __future__ import annotations

import re

from tests.helpers import ENGLISH, SPANISH

NBSP = "\xa0"
DASH = "\u2013"  # between the ends of a range


def text(response) -> str:
    """Return a page's text without tags, its spaces squashed (no-break ones kept)."""
    assert response.status_code == 200
    return re.sub(r"[ \t\n]+", " ", re.sub(r"<[^>]+>", "", response.get_data(as_text=True)))


def test_the_home_page_lists_the_paths(client):
    page = text(client.get("/", headers=ENGLISH))
    assert "NVIDIA infrastructure track" in page
    assert "48 h over 3 courses · target 3 months" in page
    assert "valid 24 months" in page
    assert "requires NCA-AIIO and 12 months of documented experience" in page


def test_the_home_page_in_spanish(client):
    page = text(client.get("/", headers=SPANISH))
    assert "Itinerario de infraestructura NVIDIA" in page
    assert "48 h en 3 cursos · objetivo: 3 meses" in page
    assert "vigencia de 24 meses" in page
    assert "requiere NCA-AIIO y 12 meses de experiencia documentada" in page
    for english in ("NVIDIA infrastructure track", "courses", "target", "requires", "valid 24"):
        assert english not in page


def test_the_catalog_page_shows_amounts_in_dollars(client):
    page = text(client.get("/catalog", headers=ENGLISH))
    assert "Skill levels" in page and "Team templates" in page and "Ways to train" in page
    assert f"$75,000{DASH}$95,000" in page
    assert f"10{DASH}99 GPUs · " in page and "1,000+ GPUs" in page
    assert f"$450,000{DASH}$550,000 a year" in page
    assert f"50%{DASH}70% off list price for groups of" in page
    assert "50 questions, 60 min" in page and "14 days" in page


def test_the_catalog_page_in_spanish_states_amounts_the_spanish_way(client):
    page = text(client.get("/catalog", headers=SPANISH))
    assert "Niveles de competencia" in page and "Plantillas de equipo" in page
    assert "Formas de formarse" in page and "Salario anual" in page
    assert f"75.000{NBSP}US${DASH}95.000{NBSP}US$" in page
    assert f"10{DASH}99 GPU · " in page and "1.000+ GPU" in page
    assert f"450.000{NBSP}US${DASH}550.000{NBSP}US$ al año" in page
    assert f"50{NBSP}%{DASH}70{NBSP}% de descuento sobre el precio de lista" in page
    assert "50 preguntas, 60 min" in page and "14 días" in page
    for english in ("Skill levels", "Team templates", "Ways to train", "a year", "questions"):
        assert english not in page
