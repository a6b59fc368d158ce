"""The one clock: today's date in the configured time zone, and the pin that wins over it."""

from __future__ import annotations

import datetime as dt

import pytest

from tracker.clock import today_in

# At 23:30 UTC on 30 November it is already 1 December east of UTC+0:30;
# at 03:00 UTC on 1 December it is still 30 November west of UTC-3.
LATE = dt.datetime(2026, 11, 30, 23, 30, tzinfo=dt.UTC)
EARLY = dt.datetime(2026, 12, 1, 3, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("zone", "instant", "expected"),
    [
        ("UTC", LATE, dt.date(2026, 11, 30)),
        ("Pacific/Kiritimati", LATE, dt.date(2026, 12, 1)),
        ("Europe/Madrid", LATE, dt.date(2026, 12, 1)),
        ("UTC", EARLY, dt.date(2026, 12, 1)),
        ("America/Mexico_City", EARLY, dt.date(2026, 11, 30)),
    ],
)
def test_today_is_the_date_in_the_configured_zone(zone, instant, expected):
    assert today_in({"TIMEZONE": zone}, instant) == expected


def test_a_pinned_date_wins_over_the_clock():
    pinned = dt.date(2026, 11, 29)
    assert today_in({"TIMEZONE": "Pacific/Kiritimati", "TODAY": pinned}, LATE) == pinned
    assert today_in({"TODAY": "2026-11-29"}, LATE) == pinned


def test_no_zone_means_utc():
    assert today_in({}, LATE) == dt.date(2026, 11, 30)
