"""The interface's languages: how one is chosen, where a person sets it, the Spanish catalogue."""

from __future__ import annotations

import copy
import datetime as dt
import pickle
import re
from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from flask import render_template
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from tests import factories
from tests.factories import PASSWORD
from tests.helpers import ENGLISH, SPANISH, fresh, html_lang, token_for
from tracker import TRANSLATIONS_DIR, create_app
from tracker.config import PROJECT_ROOT
from tracker.errors import ValidationError
from tracker.i18n import (
    N_,
    amount,
    day,
    format_day,
    format_hours,
    format_money,
    format_month,
    format_points,
    grouped,
    join,
    msg,
    translate,
)
from tracker.people.rules import LOCALE_RULE
from tracker.people.services.persons import set_locale
from tracker.people.services.reads import find_engineer
from tracker.progress.rules import HOURS_PER_DAY_TEXT
from tracker.web.database import DATABASE_UNAVAILABLE
from tracker.web.language import lazy_localized

# What `make messages` reads: gettext's names, Flask-Babel's lazy ones, the domain's marks.
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "lazy_gettext": None,
    "_l": None,
    "N_": None,
    "msg": None,
}


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


@pytest.mark.parametrize("elsewhere", ["https://evil.example/", "/login\r\nSet-Cookie: x=1"])
def test_a_visitors_choice_goes_only_to_pages_of_this_site(client, elsewhere):
    response = client.post("/locale", data={"locale": "es", "next": elsewhere})
    assert response.status_code == 302 and response.headers["Location"] == "/login"


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


def test_a_filter_of_a_constant_is_drawn_in_each_readers_language(app):
    # Jinja computes a filter of a constant when it compiles the template: the
    # first reader's language would stay for everyone after (the forecast's ticks).
    with app.test_request_context(headers=ENGLISH):
        template = app.jinja_env.from_string(
            "{{ 100|percent }} · {{ 1234.5|hours }} · {{ [{'name': 'Team', 'name_es': 'Equipo'}]"
            " | map('named') | join }}"
        )
        assert template.render() == "100% · 1,234.5 · Team"
    with app.test_request_context(headers=SPANISH):
        assert template.render() == "100\xa0% · 1.234,5 · Equipo"


def test_an_unknown_default_language_is_refused_at_start(database_url):
    with pytest.raises(ValueError, match="TRACKER_DEFAULT_LOCALE must be one of en, es"):
        create_app({"DATABASE_URL": database_url, "SECRET_KEY": "x", "DEFAULT_LOCALE": "fr"})


# --- the catalogue ---------------------------------------------------------------------


def spanish_catalogue():
    with (TRANSLATIONS_DIR / "es" / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source)


def _forms(string: str | tuple[str, ...]) -> tuple[str, ...]:
    return string if isinstance(string, tuple) else (string,)


def not_hidden(directory: str) -> bool:
    """Look in every folder but hidden ones: Babel's default skips _macros too."""
    return not Path(directory).name.startswith(".")


def extracted() -> dict[str, list[str]]:
    """Return every string `make messages` extracts, with the files that mark it."""
    with (PROJECT_ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    found: dict[str, list[str]] = {}
    for path, _, message, _, _ in extract_from_dir(
        str(PROJECT_ROOT),
        method_map,
        options_map,
        keywords=KEYWORDS,
        directory_filter=not_hidden,
    ):
        singular = message if isinstance(message, str) else message[0]
        found.setdefault(singular, []).append(path)
    return found


def test_the_spanish_catalogue_translates_every_string_marked_in_code_and_templates():
    catalogue = spanish_catalogue()
    strings = extracted()
    assert len(strings) > 50, "the extraction finds the strings of code and templates"
    missing = sorted(f"{s!r} ({strings[s][0]})" for s in strings if s not in catalogue)
    assert not missing, f"run `make messages`; not in the Spanish catalogue: {missing}"
    # A plural needs every form Spanish has (its header says how many): a form left out
    # shows the English.
    forms = catalogue.num_plurals
    empty = sorted(
        f"{s!r} ({strings[s][0]})"
        for s in strings
        if not all(translated := _forms(catalogue[s].string))
        or (isinstance(catalogue[s].string, tuple) and len(translated) < forms)
    )
    assert not empty, f"untranslated in messages.po: {empty}"
    fuzzy = sorted(s for s in strings if catalogue[s].fuzzy)
    assert not fuzzy, f"fuzzy in messages.po (check and drop the flag): {fuzzy}"


# Words a template may show as they are, in every language.
UNTRANSLATED_WORDS = {"API"}
_TEMPLATE_CODE = (
    r"\{#.*?#\}",  # comments
    r"\{%-?\s*trans\b.*?\{%-?\s*endtrans\s*-?%\}",  # marked blocks
    r"\{%.*?%\}",
    r"\{\{.*?\}\}",
    r"<(script|style|code|pre)\b.*?</\1>",  # commands, file names, JSON: not prose
)


def test_every_word_a_template_shows_is_marked_for_translation():
    # What the catalogue test cannot see: text left outside _() and {% trans %}.
    unmarked = []
    for template in sorted((PROJECT_ROOT / "templates").rglob("*.html")):
        source = template.read_text()
        for pattern in _TEMPLATE_CODE:
            source = re.sub(pattern, " ", source, flags=re.S)
        attributes = re.findall(r'\b(?:aria-label|title|placeholder|alt)="([^"]*)"', source)
        texts = re.sub(r"<[^>]*>", "\n", source).splitlines() + attributes
        unmarked += [
            f"{template.relative_to(PROJECT_ROOT)}: {text.strip()!r}"
            for text in texts
            if re.search(r"[A-Za-z]{2,}", text) and text.strip() not in UNTRANSLATED_WORDS
        ]
    assert not unmarked, f"mark these with _() or {{% trans %}}: {unmarked}"


# --- marked messages: the domain marks, the boundary translates ------------------------


def test_a_marked_message_is_its_english_text_until_translated():
    refusal = msg("must be at most %(le)s", le=500)
    assert refusal == "must be at most 500"
    assert translate(refusal, "en") == "must be at most 500"
    assert translate(refusal, "es") == "debe ser como máximo 500"


def test_a_joined_message_translates_each_part_and_plain_text_stays_as_it_is():
    joined = join([N_("must be a list"), "CODE-1 is unknown"])
    assert joined == "must be a list; CODE-1 is unknown"
    assert translate(joined, "es") == "debe ser una lista; CODE-1 is unknown"
    assert translate("plain text", "es") == "plain text"


def test_a_parameter_that_is_itself_a_marked_message_is_translated_too():
    nested = msg("must be one of %(expected)s", expected=N_("must be a list"))
    assert translate(nested, "es") == "debe ser uno de debe ser una lista"


def test_numbers_and_dates_inside_a_message_keep_their_english_and_follow_the_locale():
    refusal = msg(
        "must be at most %(le)s",
        le=msg("%(n)s by %(day)s", n=grouped(10_000_000), day=day(dt.date(2026, 12, 1))),
    )
    assert refusal == "must be at most 10,000,000 by 2026-12-01"
    assert translate(refusal, "en") == "must be at most 10,000,000 by 2026-12-01"
    assert translate(refusal, "es") == "debe ser como máximo 10.000.000 by 1 dic 2026"


def test_a_lazily_localized_message_speaks_the_language_of_the_request_that_shows_it(app):
    shown = lazy_localized(msg("must be at most %(le)s", le=grouped(1_000_000)))
    with app.test_request_context(headers=SPANISH):
        assert str(shown) == "debe ser como máximo 1.000.000"
    with app.test_request_context(headers=ENGLISH):
        assert str(shown) == "must be at most 1,000,000"


@pytest.mark.parametrize(
    ("locale", "hours", "points", "whole", "cents", "day", "month"),
    [
        ("en", "1,234.5", "87%", "$1,234", "$1,234.50", "Dec 1, 2026", "Dec 2026"),
        ("es", "1.234,5", "87\xa0%", "1.234\xa0US$", "1.234,50\xa0US$", "1 dic 2026", "dic 2026"),
    ],
)
def test_numbers_amounts_and_dates_follow_the_locale(
    locale, hours, points, whole, cents, day, month
):
    assert format_hours(Decimal("1234.50"), locale) == hours
    assert format_hours(8, locale) == "8"
    assert format_points(87, locale) == points
    assert format_money(1234, locale) == whole
    assert format_money(Decimal("1234.5"), locale) == cents
    assert format_day(dt.date(2026, 12, 1), locale) == day
    assert format_month(dt.date(2026, 12, 1), locale) == month


def test_the_apis_refusals_speak_the_requests_language(client, db):
    token = token_for(db, factories.engineer(db))
    headers = {"Authorization": f"Bearer {token}"}
    english = client.post("/api/v1/hours", json={}, headers={**headers, **ENGLISH})
    spanish = client.post("/api/v1/hours", json={}, headers={**headers, **SPANISH})
    assert english.status_code == spanish.status_code == 400
    assert "this field is required" in english.json["errors"].values()
    assert "este campo es obligatorio" in spanish.json["errors"].values()
    # The keys are the API's field names in both languages.
    assert english.json["errors"].keys() == spanish.json["errors"].keys()


def test_a_date_or_an_amount_inside_a_message_is_iso_in_english_and_local_in_spanish():
    refusal = msg(
        "%(rule)s; %(total)s h are already logged on %(date)s",
        rule=HOURS_PER_DAY_TEXT,
        total=amount(Decimal("1234.50")),
        date=day(dt.date(2026, 12, 1)),
    )
    english = "a day holds at most 24 hours; 1234.5 h are already logged on 2026-12-01"
    assert refusal == english and translate(refusal, "en") == english
    assert translate(refusal, "es") == (
        "un día admite como máximo 24 horas; ya hay 1.234,5 h registradas el 1 dic 2026"
    )
    # Copies (the errors of a refused form are copied about) keep the value, not only its text.
    for copied in (copy.deepcopy(refusal), pickle.loads(pickle.dumps(refusal))):
        assert translate(copied, "es") == translate(refusal, "es")


# --- shared pieces of pages: the calendar feed, the outage page, the API reference --------


def test_the_calendar_feed_section_is_in_the_language(client, auth, db):
    auth.sign_in(factories.engineer(db, locale="es"))
    page = client.get("/profile").get_data(as_text=True)
    assert "Calendario suscrito" in page and "Crear enlace de calendario" in page
    assert "fechas de caducidad de mis certificaciones" in page
    assert "Calendar feed" not in page and "Create calendar link" not in page


def test_the_outage_page_is_in_the_language(app):
    with app.test_request_context("/", headers=SPANISH):
        page = render_template("unavailable.html", message=DATABASE_UNAVAILABLE)
    assert "503 · Servicio no disponible" in page
    assert "La base de datos no está disponible o está ocupada" in page
    assert "Service Unavailable" not in page and str(DATABASE_UNAVAILABLE) not in page


def test_the_api_reference_is_in_the_language_and_its_paths_stay(client):
    page = client.get("/api/docs", headers=SPANISH).get_data(as_text=True)
    assert "Referencia de la API" in page and "Rechazos" in page and "Operaciones" in page
    assert "Datos incorrectos: se nombra cada campo con la regla que incumple" in page
    assert "POST /api/v1/hours" in page and "ErrorsOut" in page
    for english in ("API reference", "Refusals", "Bad input:", "Every operation below"):
        assert english not in page
    # The document itself is the API's, in English whatever the reader's language.
    document = client.get("/api/v1/openapi.json", headers=SPANISH).get_json()
    described = document["components"]["responses"]["BadRequest"]["description"]
    assert described.startswith("Bad input:")


def test_the_apis_refusals_of_progress_rules_speak_the_requests_language(client, db):
    token = token_for(db, factories.engineer(db))
    headers = {"Authorization": f"Bearer {token}", **SPANISH}
    body = {"course": "FDL", "date": "2026-11-28", "hours": 30}
    too_many = client.post("/api/v1/hours", json=body, headers=headers)
    both = client.post("/api/v1/hours", json={**body, "hours": 2, "course_id": 1}, headers=headers)
    assert too_many.status_code == both.status_code == 400
    assert too_many.json["errors"]["hours"] == "las horas deben ser más de 0 y como máximo 24"
    assert both.json["errors"]["course"] == "indicar el curso por código o por course_id, no ambos"
    english = client.post("/api/v1/hours", json=body, headers={**headers, **ENGLISH})
    assert english.json["errors"]["hours"] == "hours must be more than 0 and at most 24"
