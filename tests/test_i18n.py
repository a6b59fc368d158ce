"""The interface's languages: how one is chosen, and the Spanish catalogue."""

from __future__ import annotations

import re

import pytest

from tracker import create_app


def html_lang(response) -> str:
    found = re.search(r'<html lang="([^"]*)"', response.get_data(as_text=True))
    assert found, "the page has no <html lang>"
    return found.group(1)


def test_a_page_says_its_language_in_html_lang(client):
    assert html_lang(client.get("/login")) == "en"
    assert html_lang(client.get("/login", headers={"Accept-Language": "es-ES,es;q=0.9"})) == "es"


def test_the_sign_in_request_is_flashed_in_the_browsers_language(client):
    response = client.get("/profile", headers={"Accept-Language": "es"}, follow_redirects=True)
    assert "Inicia sesión para ver esta página." in response.get_data(as_text=True)


def test_an_unknown_default_language_is_refused_at_start(database_url):
    with pytest.raises(ValueError, match="TRACKER_DEFAULT_LOCALE must be one of en, es"):
        create_app({"DATABASE_URL": database_url, "SECRET_KEY": "x", "DEFAULT_LOCALE": "fr"})
