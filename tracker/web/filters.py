"""The Jinja filters of numbers, amounts, dates and names: each in the page's locale."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from flask import Flask
from jinja2 import pass_context

from tracker.i18n import (
    DEFAULT_CURRENCY,
    carries_code,
    format_day,
    format_hours,
    format_money,
    format_month,
    format_number,
    format_points,
    in_locale,
    with_code,
)
from tracker.web.language import current_locale, localized


def hours_filter(value: Decimal | int | float) -> str:
    """Show hours without trailing zeros: 8, 1.5, 1,234.5 (1.234,5 in Spanish)."""
    return format_hours(value, current_locale())


def number_filter(value: Decimal | int | float) -> str:
    """Show a number grouped as the locale does."""
    return format_number(value, current_locale())


def percent_filter(points: Decimal | int | float) -> str:
    """Show percentage points (87 → 87% / 87 %)."""
    return format_points(points, current_locale())


def money_filter(amount: Decimal | int | float, currency: str = DEFAULT_CURRENCY) -> str:
    """Show an amount of money in its currency ($1,234 / 1.234 US$)."""
    return format_money(amount, current_locale(), currency)


def day_filter(day: dt.date) -> str:
    """Show a date as the locale writes it (Dec 1, 2026 / 1 dic 2026)."""
    return format_day(day, current_locale())


def month_filter(day: dt.date, short: bool = False) -> str:
    """Show a month and year (Dec 2026 / dic 2026), or the month alone with short=True."""
    return format_month(day, current_locale(), short=short)


def named(entry: object, field: str | None = None) -> str:
    """Show a catalog entry's name (or `field`) in the page's language, else as written."""
    # `{{ level|named }}`, `{{ strategy|named("description") }}`; a vendor's title
    # has no translation and shows as the vendor wrote it.
    return in_locale(entry, current_locale(), field)


def coded(entry: Any) -> str:
    """Show a catalog entry's name in the page's language with its code: "Six Sigma (SIX-SIGMA)"."""
    return with_code(named(entry), entry.code)


def shows_code(entry: Any) -> bool:
    """Say whether an entry's name in the page's language already shows its code."""
    return carries_code(named(entry), entry.code)


# The name each filter has in the templates.
FILTERS: tuple[tuple[str, Callable[..., str]], ...] = (
    ("hours", hours_filter),
    ("number", number_filter),
    ("percent", percent_filter),
    ("money", money_filter),
    ("day", day_filter),
    ("month", month_filter),
    ("named", named),
    ("coded", coded),
    ("tr", localized),
)


def per_request(template_filter: Callable[..., str]) -> Callable[..., str]:
    """Return a filter Jinja runs at each rendering, never once when it compiles a template.

    Jinja folds a filter of a constant (`{{ 100|percent }}`) into the compiled
    template, in the language of whichever request compiled it first; a filter
    that takes the context is never folded.
    """

    @pass_context
    def unfolded(_context: Any, *args: Any, **kwargs: Any) -> str:
        return template_filter(*args, **kwargs)

    return unfolded


def add_filters(app: Flask) -> None:
    """Give the app's templates the FILTERS, each run at every rendering."""
    for name, template_filter in FILTERS:
        app.add_template_filter(per_request(template_filter), name)
    # `{% if credential is showing_its_code %}`, in the page's language.
    app.add_template_test(shows_code, "showing_its_code")
