"""Languages below the web layer: messages marked for translation, catalogues, locale formats.

The domain marks what a person reads with `N_` (a fixed text) or `msg` (a text
with parameters) and never translates: the boundary that knows the reader
(a page, an API answer, a mail to one recipient) calls `translate` with the
reader's locale. Both kinds of mark are `str`, the English text, so a rule's
constant still fills a CHECK constraint or a log line as it is.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from functools import cache, lru_cache, partial
from pathlib import Path

from babel import Locale
from babel.dates import format_date
from babel.numbers import (
    NumberFormatError,
    format_currency,
    format_decimal,
    format_percent,
    get_group_symbol,
    parse_decimal,
)
from babel.support import NullTranslations, Translations

# The catalogues: <locale>/LC_MESSAGES/messages.po, compiled to .mo by `make translations`.
TRANSLATIONS_DIR = Path(__file__).resolve().parent / "translations"
# Every language the interface speaks; the first is the default's default.
LOCALES = ("en", "es")
DEFAULT_LOCALE = "en"
# What the article's salaries, course and exam costs are stated in.
DEFAULT_CURRENCY = "USD"


class Message(str):
    """A text marked for translation, with its parameters: its `str` is the English."""

    template: str
    params: Mapping[str, object]

    def __new__(cls, template: str, params: Mapping[str, object] | None = None) -> Message:
        params = dict(params or {})
        text = template % params if params else template
        made = super().__new__(cls, text)
        made.template = template
        made.params = params
        return made

    def translated(self, translations: NullTranslations) -> str:
        """Return the text in the language of `translations`, its parameters too."""
        template = translations.gettext(self.template)
        if not self.params:
            return template
        return template % {k: _translated(v, translations) for k, v in self.params.items()}


class Joined(Message):
    """Several messages shown as one, each translated on its own."""

    parts: tuple[str, ...]
    separator: str

    def __new__(cls, parts: Iterable[str], separator: str = "; ") -> Joined:
        listed = tuple(parts)
        made = str.__new__(cls, separator.join(listed))
        made.template = str(made)
        made.params = {}
        made.parts = listed
        made.separator = separator
        return made

    def translated(self, translations: NullTranslations) -> str:
        """Return each part in the language of `translations`, joined."""
        return self.separator.join(str(_translated(p, translations)) for p in self.parts)


class Shown(Message):
    """A value inside a message, in the reader's locale; in English as the domain writes it."""

    show: Callable[[str], str]

    def __new__(cls, english: str, show: Callable[[str], str]) -> Shown:
        made = str.__new__(cls, english)
        made.template = str(made)
        made.params = {}
        made.show = show
        return made

    def __reduce__(self) -> tuple[object, ...]:
        # Copies and pickles rebuild from the value's formatter, not from the text alone.
        return (type(self), (str(self), self.show))

    def translated(self, translations: NullTranslations) -> str:
        """Return the value as the language of `translations` writes it."""
        locale = translations.info().get("language") or DEFAULT_LOCALE
        return str(self) if locale == DEFAULT_LOCALE else self.show(locale)


def N_(text: str) -> Message:
    """Mark a fixed text for translation where it is shown."""
    return Message(text)


def msg(template: str, **params: object) -> Message:
    """Mark a text with `%(name)s` parameters for translation where it is shown."""
    return Message(template, params)


def join(parts: Iterable[str], separator: str = "; ") -> Joined:
    """Join messages into one whose parts are translated each."""
    return Joined(parts, separator)


def day(value: dt.date) -> Shown:
    """Mark a date inside a message: ISO in the English text, 1 dic 2026 in Spanish."""
    return Shown(value.isoformat(), partial(format_day, value))


def amount(value: Decimal | int) -> Shown:
    """Mark hours or an amount inside a message: 1234.5 in English, 1.234,5 in Spanish."""
    exact = Decimal(value)
    return Shown(f"{exact.normalize():f}", partial(format_hours, exact))


def grouped(value: Decimal | int) -> Shown:
    """Mark a number inside a message: 10,000,000 in English, grouped as the locale does."""
    return Shown(f"{value:,}", partial(format_number, value))


def money(value: Decimal | int, currency: str = DEFAULT_CURRENCY) -> Shown:
    """Mark an amount of money inside a message: $1,500.50 in English, 1.500,50 US$ in Spanish."""
    return Shown(
        format_money(value, DEFAULT_LOCALE, currency),
        partial(format_money, value, currency=currency),
    )


def _translated(value: object, translations: NullTranslations) -> object:
    if isinstance(value, Message):
        return value.translated(translations)
    return value


@cache
def translations_for(locale: str) -> NullTranslations:
    """Return the compiled catalogue of `locale` (English needs none)."""
    if locale == DEFAULT_LOCALE:
        return NullTranslations()
    return Translations.load(str(TRANSLATIONS_DIR), [locale])


def translate(text: str, locale: str) -> str:
    """Return `text` in `locale`: a marked message translated, any other text as it is."""
    if isinstance(text, Message):
        return text.translated(translations_for(locale))
    return text


def translate_errors(errors: Mapping[str, str], locale: str) -> dict[str, str]:
    """Return a field → message map with each message in `locale`."""
    return {field: translate(message, locale) for field, message in errors.items()}


def gettext(text: str, locale: str, **params: object) -> str:
    """Translate a literal text into `locale` (outside a request: mail, feeds, jobs)."""
    return translate(Message(text, params), locale)


def ngettext(singular: str, plural: str, n: int, locale: str, **params: object) -> str:
    """Translate a text whose form depends on the count `n` (given as `%(num)d`)."""
    template = translations_for(locale).ngettext(singular, plural, n)
    return template % {"num": n, **params}


# --- texts stored in several languages ----------------------------------------------------

# The fields an entry is known by, in the order looked for: a level's or role's
# name, a slot's or course's title, an ROI line's label.
NAME_FIELDS = ("name", "title", "label")


def _field(entry: object, key: str) -> object:
    if isinstance(entry, Mapping):
        return entry.get(key)
    return getattr(entry, key, None)


def in_locale(entry: object, locale: str, field: str | None = None) -> str:
    """Return an entry's name (or `field`) in `locale`, else as it is written (English)."""
    # The catalog keeps each of its words in English with the other languages
    # beside it (`name`, `name_es`); an empty translation means "not given".
    # Mappings (the catalog as plain data) read like objects.
    if field is None:
        field = next((f for f in NAME_FIELDS if _field(entry, f) is not None), NAME_FIELDS[0])
    if locale != DEFAULT_LOCALE:
        translated = _field(entry, f"{field}_{locale}")
        if translated:
            return str(translated)
    text = _field(entry, field)
    return "" if text is None else str(text)


# --- numbers as a reader types them ------------------------------------------------------

# One decimal mark and digits after it: a decimal whatever the reader's language,
# since no language groups thousands that way (1,5 / 1.5 / 0,25).
_ONE_DECIMAL_MARK = re.compile(r"[+-]?[0-9]*[.,][0-9]+")
# Spaces a number may be typed or pasted with (some languages group thousands by them).
_SPACES = re.compile(r"[\s\u00a0\u202f]+")


def read_decimal(text: str, locale: str) -> Decimal:
    """Return the number `text` as a reader of `locale` writes it; ValueError when it is none.

    1,5 is one and a half in Spanish and 1.5 in English; 1.234,5 and 1,234.5 are
    grouped as each language groups them. A single mark with digits after it is a
    decimal mark in either language (no language groups like that), so a
    Spanish reader on an English browser, or the other way round, is understood.
    """
    typed = _SPACES.sub("", text)
    try:
        return parse_decimal(typed, locale=locale, strict=True)
    except NumberFormatError:
        if _ONE_DECIMAL_MARK.fullmatch(typed):
            return Decimal(typed.replace(",", "."))
        raise ValueError(typed) from None


# Digits alone: a whole number in any language.
_DIGITS = re.compile(r"[+-]?[0-9]+")


def read_whole(text: str, locale: str) -> int:
    """Return the whole number `text` as a reader of `locale` writes it; ValueError when it is none.

    Plain digits, or digits grouped by threes with the language's separator, as
    its pages show them: 1.000 and 12.345.678 in Spanish, 1,000 in English. A
    group of other than three digits (1.00) is a typo or a decimal, not a whole number.
    """
    typed = _SPACES.sub("", text)
    if _DIGITS.fullmatch(typed):
        return int(typed)
    group = get_group_symbol(locale)
    if re.fullmatch(rf"[+-]?[0-9]{{1,3}}(?:{re.escape(group)}[0-9]{{3}})+", typed):
        return int(typed.replace(group, ""))
    raise ValueError(typed)


def carries_code(name: str, code: str) -> bool:
    """Say whether a name already ends with its code in brackets: "... Administrator (CKA)"."""
    return name.endswith(f"({code})")


def before_code(name: str, code: str) -> str:
    """Return a name without the code in brackets it ends with, for a text that adds the code."""
    return name.removesuffix(f"({code})").rstrip() if carries_code(name, code) else name


def with_code(name: str, code: str) -> str:
    """Return "name (CODE)", or the name alone when it already carries the code."""
    # Vendors write some codes into their titles; a second one only repeats it.
    return name if carries_code(name, code) else f"{name} ({code})"


# --- formats ------------------------------------------------------------------------------

# A page formats the same few hours, numbers and dates hundreds of times, and
# Babel parses its pattern at every call: each format remembers its answers.
# Equal values format alike (1.5 and 1.50 hours, 2 and 2.0), so they may share one.
FORMATS_KEPT = 4096


@lru_cache(maxsize=FORMATS_KEPT)
def format_hours(value: Decimal | int | float, locale: str) -> str:
    """Show hours without trailing zeros, grouped as the locale does: 1,234.5 / 1.234,5."""
    exact = Decimal(value).normalize()
    places = max(0, -int(exact.as_tuple().exponent))
    fraction = "." + "#" * places if places else ""
    return format_decimal(exact, format=f"#,##0{fraction}", locale=locale)


@lru_cache(maxsize=FORMATS_KEPT)
def format_number(value: Decimal | int | float, locale: str) -> str:
    """Show a number grouped and with the decimal sign of the locale."""
    return format_decimal(value, locale=locale)


@lru_cache(maxsize=FORMATS_KEPT)
def format_points(value: Decimal | int | float, locale: str) -> str:
    """Show percentage points (87 for 87 %) with the locale's sign and spacing."""
    return format_percent(Decimal(str(value)) / 100, locale=locale)


@lru_cache(maxsize=FORMATS_KEPT)
def format_money(
    amount: Decimal | int | float, locale: str, currency: str = DEFAULT_CURRENCY
) -> str:
    """Show an amount in `currency`, without cents when it has none: $1,234 / 1.234 US$."""
    exact = Decimal(str(amount))
    if exact == exact.to_integral_value():
        pattern = Locale.parse(locale).currency_formats["standard"].pattern
        whole = pattern.split(";")[0].replace(".00", "")
        return format_currency(exact, currency, format=whole, locale=locale, currency_digits=False)
    return format_currency(exact, currency, locale=locale)


@lru_cache(maxsize=FORMATS_KEPT)
def format_day(day: dt.date, locale: str) -> str:
    """Show a date the way the locale writes it: Dec 1, 2026 / 1 dic 2026."""
    return format_date(day, "medium", locale=locale)


@lru_cache(maxsize=FORMATS_KEPT)
def format_month(day: dt.date, locale: str, *, short: bool = False) -> str:
    """Show a date's month and year (Dec 2026 / dic 2026), or only the month (Dec / dic)."""
    return format_date(day, "LLL" if short else "LLL y", locale=locale)


def named(entry: object) -> Shown:
    """Mark a catalog entry's name inside a message: in English as the entry has it."""
    return Shown(in_locale(entry, DEFAULT_LOCALE), partial(in_locale, entry))
