"""The request's language, read fast, and domain messages shown in it.

Flask-Babel answers `get_locale()` and each template `_()` through its
context proxies, a few microseconds a call; a team page calls them over a
thousand times. `current_locale` and `translations` read the same
per-context values Flask-Babel keeps (`g._flask_babel.babel_locale`), so
`force_locale` blocks and the locale selector still decide, and fall back on
Flask-Babel whenever it has not picked a locale yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from babel import Locale
from babel.support import NullTranslations, Translations
from flask import Flask
from flask.globals import _cv_app
from flask_babel import get_locale, get_translations
from flask_babel.speaklater import LazyString

from tracker.i18n import DEFAULT_LOCALE, translate, translate_errors


def _babel_context() -> Any:
    context = _cv_app.get(None)
    return None if context is None else getattr(context.g, "_flask_babel", None)


# By the Locale object itself: comparing Locales field by field costs as much as str().
_IDENTIFIERS: dict[int, tuple[Locale, str]] = {}
KEPT = 64


def _identifier(locale: Locale) -> str:
    kept = _IDENTIFIERS.get(id(locale))
    if kept is not None and kept[0] is locale:
        return kept[1]
    if len(_IDENTIFIERS) >= KEPT:
        _IDENTIFIERS.clear()
    _IDENTIFIERS[id(locale)] = (locale, str(locale))
    return str(locale)


def current_locale() -> str:
    """Return the language this request (or forced block) is drawn in: "en", "es"."""
    locale = getattr(_babel_context(), "babel_locale", None) or get_locale()
    return DEFAULT_LOCALE if locale is None else _identifier(locale)


def localized(text: str) -> str:
    """Return a domain message in the request's language (any other text as it is)."""
    return translate(text, current_locale())


def lazy_localized(text: str) -> LazyString:
    """Return a domain message shown in the language of the request that draws it (a form's)."""
    return LazyString(localized, text)


def localized_errors(errors: Mapping[str, str]) -> dict[str, str]:
    """Return a field → message map in the request's language."""
    return translate_errors(errors, current_locale())


def translations() -> Translations | NullTranslations:
    """Return the request's catalog of translations, looked up once per locale and request."""
    babel = _babel_context()
    locale = getattr(babel, "babel_locale", None)
    kept = getattr(babel, "tracker_translations", None)
    if locale is not None and kept is not None and kept[0] is locale:
        return kept[1]
    found = get_translations()
    babel = _babel_context()
    if babel is not None:
        babel.tracker_translations = (getattr(babel, "babel_locale", None), found)
    return found


def install_gettext(app: Flask) -> None:
    """Give the templates' `_()` and `ngettext()` the request's catalog, looked up once."""
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s: translations().ugettext(s),
        ngettext=lambda s, p, n: translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: translations().unpgettext(c, s, p, n),
    )
