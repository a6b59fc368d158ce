"""The words the daily pass's SQL is written in: the day, constants written in, dates.

Shared by the pass's statements (`pass_sql`, `reminders_sql`); the tables'
aliases stay with the statement that names them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Date, Integer, String, bindparam, cast, func, literal_column
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement

from tracker.people.rules import BROWSER_LOCALE

# The pass's statements are built once per set of windows, with the day's
# dates as bound parameters (`pass_sql.day_params`): building a statement of
# this size costs more than running it on a quiet day.
TODAY = bindparam("today", type_=Date)


def const(value: str | int) -> ColumnElement[Any]:
    """A constant written into the SQL itself, not a bound parameter.

    The pass's statements are cached once built, so their constants never
    change; written in, they keep the SQL short. psycopg caches its parsing of
    a statement's placeholders only below 4,096 characters
    (`MAX_CACHED_STATEMENT_LENGTH`), and parsing the reminders' statement
    again on every pass cost as much as a round trip.
    """
    if isinstance(value, int):
        return literal_column(str(int(value)), Integer)
    return literal_column("'" + value.replace("'", "''") + "'", String)


class IsoDate(FunctionElement):
    """A date as YYYY-MM-DD text, in SQL."""

    type = String()
    inherit_cache = True


@compiles(IsoDate)
def _iso_date(element, compiler, **kw) -> str:
    # SQLite keeps dates as YYYY-MM-DD text already.
    return f"CAST({compiler.process(element.clauses, **kw)} AS TEXT)"


@compiles(IsoDate, "postgresql")
def _iso_date_postgresql(element, compiler, **kw) -> str:
    return f"to_char({compiler.process(element.clauses, **kw)}, 'YYYY-MM-DD')"


class DaysBetween(FunctionElement):
    """The days from the first date to the second, in SQL."""

    type = Integer()
    inherit_cache = True


@compiles(DaysBetween)
def _days_between(element, compiler, **kw) -> str:
    first, second = (compiler.process(c, **kw) for c in element.clauses)
    return f"CAST(julianday({second}) - julianday({first}) AS INTEGER)"


@compiles(DaysBetween, "postgresql")
def _days_between_postgresql(element, compiler, **kw) -> str:
    first, second = (compiler.process(c, **kw) for c in element.clauses)
    return f"({second} - {first})"


def as_text(value) -> ColumnElement:
    """Return `value` as text, in SQL."""
    return cast(value, String)


def escalation_key(lapse) -> ColumnElement:
    """The dedupe key of a certification's escalation: `lapse` has its certification_id."""
    return "escalation:" + as_text(lapse.certification_id)


def locale_of(setting: ColumnElement[str] | InstrumentedAttribute[str]) -> ColumnElement[str]:
    """A person's language in mail: their setting, else the deployment's (see `reader_locale`)."""
    # The setting is one of LOCALES or BROWSER_LOCALE (a check constraint), never null.
    return func.coalesce(
        func.nullif(setting, const(BROWSER_LOCALE)), bindparam("default_locale", type_=String)
    )
