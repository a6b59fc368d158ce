"""Reminder windows: the one due on a day, and the setting that lists them."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.reminders.helpers import (
    DAY,
    EXPIRES,
    WINDOWS,
    days_before,
    holder,
    run,
    windows_of,
)
from tracker.errors import ValidationError
from tracker.reminders.rules import EXPIRED
from tracker.reminders.services.windows import Windows, parse_windows


def window_due(db, day: dt.date, windows: Windows = WINDOWS) -> int | None:
    """Return the window one pass on `day` queues for a fresh certification expiring on EXPIRES."""
    _, cert = holder(db)
    queued = windows_of(run(db, day, windows), cert)
    assert len(queued) <= 1
    return queued[0] if queued else None


@pytest.mark.parametrize(
    ("left", "expected"),
    [
        (120, None),
        (91, None),
        (90, 90),
        (89, 90),
        (61, 90),
        (60, 60),
        (59, 60),
        (31, 60),
        (30, 30),
        (25, 30),
        (8, 30),
        (7, 7),
        (1, 7),
        (0, 7),
        (-1, EXPIRED),
        (-30, EXPIRED),
        (-31, None),
        (-400, None),
    ],
)
def test_the_window_due_is_a_range_opening_on_its_day(db, left, expected):
    """ "Default reminder windows: 90, 60, 30 and 7 days before expiry, and a notice on
    the day after expiry."

    Each window opens exactly on its day (not a day earlier) and stays due until
    the next, more urgent one opens; a pass 25 days before finds the 30-day
    window. The expiry day itself is still the 7-day window (valid through
    its expiry date), the expiry notice comes from the day after, and only
    within the grace period.
    """
    assert window_due(db, EXPIRES - dt.timedelta(days=left)) == expected


def test_the_expiry_day_is_not_the_expiry_notice(db):
    """A certification is valid through its expiry date: no expiry notice that day."""
    assert window_due(db, EXPIRES) == 7
    assert window_due(db, EXPIRES + DAY) == EXPIRED


def test_the_window_due_after_downtime_is_only_the_most_urgent(db):
    """ "If the scheduler was down across several windows, the next run sends only the
    most urgent window that is due, not a burst of stale ones."
    """
    # Down from 95 days before until 5 days before: 90, 60, 30 and 7 all passed.
    assert window_due(db, days_before(5)) == 7
    assert window_due(db, days_before(45)) == 60


def test_the_window_due_follows_configured_windows_and_grace(db):
    """ "Windows are configurable." """
    windows = Windows(before=(14, 3), expired_grace_days=2)
    assert window_due(db, days_before(15), windows) is None
    assert window_due(db, days_before(14), windows) == 14
    assert window_due(db, days_before(4), windows) == 14
    assert window_due(db, days_before(3), windows) == 3
    assert window_due(db, EXPIRES + 2 * DAY, windows) == EXPIRED
    assert window_due(db, EXPIRES + 3 * DAY, windows) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90,60,30,7", (90, 60, 30, 7)),
        ("7, 30 ,60,90", (90, 60, 30, 7)),
        ("30,30,7", (30, 7)),
        ("14", (14,)),
        ("90,,30,", (90, 30)),
    ],
)
def test_parse_windows_reads_distinct_days_most_distant_first(text, expected):
    assert parse_windows(text) == Windows(before=expected)


def test_an_empty_setting_means_the_default_windows():
    assert parse_windows("") == parse_windows("  ") == Windows()
    assert Windows().before == (90, 60, 30, 7)


@pytest.mark.parametrize("text", [" , ", "abc", "90,x", "0", "30,-7", "4000", "7.5"])
def test_parse_windows_refuses_anything_but_positive_day_counts(text):
    with pytest.raises(ValidationError) as caught:
        parse_windows(text)
    assert "windows" in caught.value.errors
