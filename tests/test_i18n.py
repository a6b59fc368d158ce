"""The interface's languages: how one is chosen, where a person sets it, the Spanish catalogue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from tests import factories
from tests.factories import PASSWORD
from tests.helpers import fresh
from tracker import TRANSLATIONS_DIR, create_app
from tracker.config import PROJECT_ROOT
from tracker.errors import ValidationError
from tracker.people.rules import LOCALE_RULE
from tracker.people.services.persons import find_engineer, set_locale

SPANISH = {"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-GB,en;q=0.9"}

# The files whose strings are translated so far; the next ones join this list as
# their strings are marked, until it is every file `make messages` reads.
TRANSLATED = [
    "templates/base.html",
    "templates/error.html",
    "templates/people/login.html",
    "templates/people/profile.html",
    "tracker/web.py",
    "tracker/extensions.py",
    "tracker/people/views.py",
    "tracker/people/forms.py",
    "templates/admin/webhooks.html",
    "tracker/webhooks/views.py",
    "tracker/webhooks/forms.py",
]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None, "_l": None}


def html_lang(response) -> str:
    found = re.search(r'<html lang="([^"]*)"', response.get_data(as_text=True))
    assert found, "the page has no <html lang>"
    return found.group(1)


# --- the choice: setting, visitor's choice, Accept-Language, TRACKER_DEFAULT_LOCALE --------


def test_without_any_preference_the_default_language_is_english(client):
    assert html_lang(client.get("/login")) == "en"


def test_the_browsers_accept_language_chooses(client):
    response = client.get("/login", headers=SPANISH)
    assert html_lang(response) == "es"
    page = response.get_data(as_text=True)
    assert "Iniciar sesión" in page and "Correo electrónico" in page and "Contraseña" in page


def test_a_language_the_tracker_lacks_falls_back_to_the_default(client, app, monkeypatch):
    assert html_lang(client.get("/login", headers={"Accept-Language": "fr"})) == "en"
    monkeypatch.setitem(app.config, "DEFAULT_LOCALE", "es")
    assert html_lang(client.get("/login", headers={"Accept-Language": "fr"})) == "es"
    assert html_lang(client.get("/login", headers=ENGLISH)) == "en"


def test_the_persons_setting_wins_over_the_browser(client, auth, db):
    person = factories.engineer(db, locale="es")
    auth.sign_in(person)
    response = client.get("/profile", headers=ENGLISH)
    assert html_lang(response) == "es"
    assert "Perfil" in response.get_data(as_text=True)


def test_the_browsers_choice_setting_leaves_it_to_the_browser(client, auth, db):
    auth.sign_in(factories.engineer(db))
    assert html_lang(client.get("/profile", headers=SPANISH)) == "es"
    assert html_lang(client.get("/profile", headers=ENGLISH)) == "en"


def test_a_visitor_chooses_a_language_on_the_sign_in_page(client):
    page = client.get("/login", headers=ENGLISH).get_data(as_text=True)
    assert 'lang="es"' in page and "Español" in page and "English" in page
    response = client.post("/locale", data={"locale": "es", "next": "/login"}, headers=ENGLISH)
    assert response.status_code == 302 and response.headers["Location"] == "/login"
    assert html_lang(client.get("/login", headers=ENGLISH)) == "es"


def test_a_visitors_choice_refuses_an_unknown_language(client):
    response = client.post("/locale", data={"locale": "fr"})
    assert response.status_code == 400
    assert "The language must be one of: en, es." in response.get_data(as_text=True)


def test_a_visitors_choice_goes_only_to_pages_of_this_site(client):
    response = client.post("/locale", data={"locale": "es", "next": "https://evil.example/"})
    assert response.headers["Location"] == "/login"


def test_signed_out_the_persons_language_stays(client, auth, db):
    auth.sign_in(factories.engineer(db, locale="es"))
    response = client.post("/logout", headers=ENGLISH, follow_redirects=True)
    assert html_lang(response) == "es"
    assert "Has cerrado la sesión." in response.get_data(as_text=True)


# --- the setting -----------------------------------------------------------------------


def test_the_profile_saves_the_language_and_answers_in_it(client, auth, db):
    person = factories.engineer(db)
    auth.sign_in(person)
    response = client.post("/profile/locale", data={"locale": "es"}, headers=ENGLISH)
    assert response.status_code == 302
    assert fresh(db, person).locale == "es"
    page = client.get("/profile", headers=ENGLISH).get_data(as_text=True)
    assert "Idioma guardado." in page
    assert re.search(
        r'<option[^>]*selected[^>]*value="es"|<option[^>]*value="es"[^>]*selected', page
    )
    client.post("/profile/locale", data={"locale": ""})
    assert fresh(db, person).locale == ""


def test_the_profile_refuses_an_unknown_language_naming_the_rule(client, auth, db):
    person = factories.engineer(db)
    auth.sign_in(person)
    response = client.post("/profile/locale", data={"locale": "fr"})
    assert response.status_code == 400
    assert "choose one of the listed languages" in response.get_data(as_text=True)
    spanish = client.post("/profile/locale", data={"locale": "fr"}, headers=SPANISH)
    assert "elige uno de los idiomas de la lista" in spanish.get_data(as_text=True)
    assert fresh(db, person).locale == ""


def test_the_profile_shows_dates_and_labels_in_the_language(client, auth, db):
    auth.sign_in(factories.engineer(db, locale="es", hired_on=factories.TODAY))
    page = client.get("/profile").get_data(as_text=True)
    assert "incorporación: 29 nov 2026" in page and "nivel 1" in page and "ingeniero" in page
    assert "Experiencia documentada" in page and "Cambiar la contraseña" in page


def test_the_services_refuse_an_unknown_language(db):
    with pytest.raises(ValidationError) as refused:
        factories.engineer(db, locale="fr")
    assert refused.value.errors == {"locale": LOCALE_RULE}
    person = factories.engineer(db)
    with pytest.raises(ValidationError):
        set_locale(db, person, "EN")


def test_the_database_refuses_an_unknown_language(db):
    person = factories.engineer(db)
    with pytest.raises(IntegrityError), db.begin_nested():
        db.execute(text("UPDATE engineers SET locale = 'fr' WHERE id = :id"), {"id": person.id})


def test_tracker_user_add_takes_a_language(runner, db):
    email = "hablante@example.com"
    result = runner.invoke(
        args=["user", "add", email, "--name", "Hablante", "--locale", "es", "--password", PASSWORD]
    )
    assert result.exit_code == 0, result.output
    assert find_engineer(db, email).locale == "es"


def test_tracker_user_add_refuses_an_unknown_language(runner, db):
    email = "parleur@example.com"
    result = runner.invoke(
        args=["user", "add", email, "--name", "Parleur", "--locale", "fr", "--password", PASSWORD]
    )
    assert result.exit_code != 0
    assert f"locale: {LOCALE_RULE}" in result.output
    assert find_engineer(db, email) is None


# --- the frame -------------------------------------------------------------------------


def test_the_menu_and_sign_out_are_in_the_language(client, auth, db):
    auth.sign_in(factories.engineer(db, locale="es"))
    page = client.get("/profile").get_data(as_text=True)
    assert "Panel" in page and "Horas" in page and "Cerrar sesión" in page
    assert 'aria-label="Principal"' in page


def test_the_error_page_is_in_the_language(client):
    response = client.get("/no-such-page", headers=SPANISH)
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "404 · No encontrado" in page and "Volver a la página de inicio" in page
    english = client.get("/no-such-page", headers=ENGLISH).get_data(as_text=True)
    assert "404 · Not Found" in english


def test_the_sign_in_request_is_flashed_in_the_browsers_language(client):
    response = client.get("/profile", headers=SPANISH, follow_redirects=True)
    assert "Inicia sesión para ver esta página." in response.get_data(as_text=True)


def test_a_failed_sign_in_says_so_in_the_language(client, db, limiter):
    response = client.post(
        "/login", data={"email": "nobody@example.com", "password": "wrong"}, headers=SPANISH
    )
    assert response.status_code == 401
    assert "El correo electrónico o la contraseña no son correctos." in response.text


def test_an_unknown_default_language_is_refused_at_start(database_url):
    with pytest.raises(ValueError, match="TRACKER_DEFAULT_LOCALE must be one of en, es"):
        create_app({"DATABASE_URL": database_url, "SECRET_KEY": "x", "DEFAULT_LOCALE": "fr"})


# --- the catalogue ---------------------------------------------------------------------


def spanish_catalogue():
    with (TRANSLATIONS_DIR / "es" / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source)


def extracted(path: str) -> set[str]:
    method = "jinja2" if path.endswith(".html") else "python"
    found = extract_from_file(method, str(PROJECT_ROOT / path), keywords=KEYWORDS)
    return {message if isinstance(message, str) else message[0] for _, message, _, _ in found}


@pytest.mark.parametrize("path", TRANSLATED)
def test_the_spanish_catalogue_translates_every_string_of(path):
    assert (PROJECT_ROOT / path).exists(), f"{path} is gone: update TRANSLATED"
    catalogue = spanish_catalogue()
    strings = extracted(path)
    assert strings, f"{path} marks no string for translation"
    missing = sorted(s for s in strings if s not in catalogue)
    assert not missing, f"run `make messages`; not in the Spanish catalogue: {missing}"
    empty = sorted(s for s in strings if not catalogue[s].string)
    assert not empty, f"untranslated in messages.po: {empty}"
    fuzzy = sorted(s for s in strings if catalogue[s].fuzzy)
    assert not fuzzy, f"fuzzy in messages.po (check and drop the flag): {fuzzy}"


def test_the_spanish_catalogue_keeps_every_placeholder():
    problems = [
        (message.id, [str(e) for e in errors])
        for message, errors in spanish_catalogue().check()
        if errors
    ]
    assert not problems


def test_the_catalogue_is_compiled_where_the_app_reads_it():
    assert Path(TRANSLATIONS_DIR, "es", "LC_MESSAGES", "messages.mo").exists()
