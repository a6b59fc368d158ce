"""The request's language: domain messages shown in it."""

from __future__ import annotations

from collections.abc import Mapping

from flask_babel import get_locale
from flask_babel.speaklater import LazyString

from tracker.i18n import DEFAULT_LOCALE, translate, translate_errors


def current_locale() -> str:
    """Return the language this request (or forced block) is drawn in: "en", "es"."""
    return str(get_locale() or DEFAULT_LOCALE)


def localized(text: str) -> str:
    """Return a domain message in the request's language (any other text as it is)."""
    return translate(text, current_locale())


def lazy_localized(text: str) -> LazyString:
    """Return a domain message shown in the language of the request that draws it (a form's)."""
    return LazyString(localized, text)


def localized_errors(errors: Mapping[str, str]) -> dict[str, str]:
    """Return a field → message map in the request's language."""
    return translate_errors(errors, current_locale())
