"""The request's language read fast: the same answers as Flask-Babel's, forced blocks included."""

from __future__ import annotations

from flask import Flask, render_template_string
from flask_babel import force_locale, get_locale

from tracker.web.language import current_locale, translations

SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}


def test_the_locale_follows_the_request_and_forced_blocks(app: Flask) -> None:
    with app.test_request_context("/", headers=SPANISH):
        assert current_locale() == "es" == str(get_locale())
        with force_locale("en"):
            assert current_locale() == "en"
        assert current_locale() == "es"
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert current_locale() == "en"


def test_outside_a_request_the_default_language(app: Flask) -> None:
    with app.app_context():
        assert current_locale() == "en"
    assert current_locale() == "en"


def test_templates_translate_in_the_forced_language_then_the_request_s(app: Flask) -> None:
    draw = "{{ _('Sign in') }}"
    with app.test_request_context("/", headers=SPANISH):
        spanish = render_template_string(draw)
        assert spanish != "Sign in"
        assert translations().gettext("Sign in") == spanish
        with force_locale("en"):
            assert render_template_string(draw) == "Sign in"
        assert render_template_string(draw) == spanish
