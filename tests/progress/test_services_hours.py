"""Logging hours (services.hours.log_hours): the refusals, a day's 24 hours and exact decimals."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy import select

from tests import factories
from tests.factories import hours
from tests.progress.helpers import TODAY, D, assert_refused
from tracker.progress.models import HourLog
from tracker.progress.services.hours import log_hours
from tracker.progress.services.paths import logged_hours


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (Decimal(0), "more than 0"),
        (Decimal("0.00"), "more than 0"),
        (Decimal("-1"), "more than 0"),
        (Decimal("-0.01"), "more than 0"),
        (Decimal("24.01"), "at most 24"),
        (Decimal(25), "at most 24"),
        (Decimal("1.255"), "2 decimals"),
        (Decimal("0.001"), "2 decimals"),
        (Decimal("NaN"), "a number"),
        (Decimal("sNaN"), "a number"),
        (Decimal("Infinity"), "a number"),
        (Decimal("-Infinity"), "a number"),
        (float("nan"), "a number"),
        (1.5, "a number"),
    ],
)
def test_log_hours_refuses_bad_hours(db, value, fragment):
    """Hours on a day are more than 0 and at most 24, in hundredths of an hour."""
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2026, 1, 5), value, TODAY),
        "hours",
        fragment,
    )


def test_log_hours_day_total_above_24_refused_naming_hours_already_logged(db):
    """A day holds at most 24 hours, over every course."""
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    gpu = factories.course(db, "GPU-ARCH")
    log_hours(db, who, fdl, D(2026, 1, 5), hours(8), TODAY)
    log_hours(db, who, gpu, D(2026, 1, 5), hours("12.5"), TODAY)
    assert_refused(
        db,
        lambda: log_hours(db, who, gpu, D(2026, 1, 5), hours("3.51"), TODAY),
        "hours",
        "20.5 h are already logged on 2026-01-05",
    )
    # exactly 24 in the day is accepted
    log_hours(db, who, fdl, D(2026, 1, 5), hours("3.5"), TODAY)
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2026, 1, 5), hours("0.01"), TODAY),
        "hours",
        "24 h are already logged",
    )
    # other days, and other engineers, are unaffected
    log_hours(db, who, fdl, D(2026, 1, 6), hours(24), TODAY)
    log_hours(db, factories.engineer(db), fdl, D(2026, 1, 5), hours(24), TODAY)


def test_log_hours_exactly_24_in_one_entry(db):
    who = factories.engineer(db)
    entry = log_hours(db, who, factories.course(db, "GPU-ARCH"), D(2026, 1, 5), hours(24), TODAY)
    db.expire_all()
    assert entry.hours == Decimal(24)


@pytest.mark.parametrize(
    ("logged_on", "fragment"),
    [
        (TODAY + dt.timedelta(days=1), "future"),
        (D(2024, 3, 14), "hire date 2024-03-15"),
    ],
)
def test_log_hours_refuses_future_date_or_before_hire(db, logged_on, fragment):
    who = factories.engineer(db, hired_on=D(2024, 3, 15))
    fdl = factories.course(db, "FDL")
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, logged_on, hours(1), TODAY),
        "logged_on",
        fragment,
    )


@pytest.mark.parametrize("logged_on", [D(2024, 3, 15), TODAY])
def test_log_hours_accepts_the_hire_date_and_today(db, logged_on):
    who = factories.engineer(db, hired_on=D(2024, 3, 15))
    entry = log_hours(db, who, factories.course(db, "FDL"), logged_on, hours(1), TODAY)
    assert entry.logged_on == logged_on


def test_log_hours_refuses_a_note_too_long(db):
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2026, 1, 5), hours(1), TODAY, note="x" * 501),
        "note",
        "500",
    )
    entry = log_hours(db, who, fdl, D(2026, 1, 5), hours(1), TODAY, note="x" * 500)
    assert entry.note == "x" * 500


def test_log_hours_reports_every_field_at_once(db):
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    error = assert_refused(
        db,
        lambda: log_hours(db, who, fdl, D(2027, 1, 5), hours(0), TODAY, note="x" * 501),
        "hours",
    )
    assert set(error.errors) == {"hours", "logged_on", "note"}


@pytest.mark.parametrize("value", ["1.25", "0.01", "7.5", "23.99", "1.250"])
def test_log_hours_stores_decimals_exactly(db, value):
    """Hours are kept exactly (hundredths), never as floats that drift."""
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    entry = log_hours(db, who, fdl, D(2026, 1, 5), hours(value), TODAY, note=" evening ")
    db.expire_all()
    stored = db.scalar(select(HourLog.hours).where(HourLog.id == entry.id))
    assert isinstance(stored, Decimal)
    assert stored == Decimal(value)
    assert entry.hours == Decimal(value)
    assert entry.note == "evening"
    assert logged_hours(db, who.id) == {fdl.id: Decimal(value)}


def test_log_hours_stores_1_25_as_decimal_1_25(db):
    who = factories.engineer(db)
    fdl = factories.course(db, "FDL")
    entry = log_hours(db, who, fdl, D(2026, 1, 5), Decimal("1.25"), TODAY)
    db.expire_all()
    assert repr(entry.hours) == "Decimal('1.25')"
    # sums stay exact too: 0.1 + 0.2 is 0.3, not 0.30000000000000004
    log_hours(db, who, fdl, D(2026, 1, 6), Decimal("0.1"), TODAY)
    log_hours(db, who, fdl, D(2026, 1, 7), Decimal("0.2"), TODAY)
    assert logged_hours(db, who.id) == {fdl.id: Decimal("1.55")}
