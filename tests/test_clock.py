"""The one clock: today's date in the configured time zone, and the pin that wins over it."""

from __future__ import annotations

import datetime as dt

import pytest
from flask import Flask

from tests import factories
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


def _zone_off_utc() -> tuple[str, dt.date]:
    """Return a zone whose date differs from UTC's right now, and that date."""
    now = dt.datetime.now(dt.UTC)
    for zone in ("Pacific/Kiritimati", "Pacific/Pago_Pago"):  # UTC+14, UTC-11
        there = today_in({"TIMEZONE": zone}, now)
        if there != now.date():
            return zone, there
    raise AssertionError("at any instant one of the two zones is on another date")


@pytest.fixture
def unpinned(app: Flask, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dt.date]:
    """Let the app read the clock in a zone whose date is not UTC's."""
    zone, there = _zone_off_utc()
    monkeypatch.delitem(app.config, "TODAY", raising=False)
    monkeypatch.setitem(app.config, "TIMEZONE", zone)
    return zone, there


def test_the_dashboard_is_as_of_the_configured_zones_date(client, auth, db, unpinned):
    _zone, there = unpinned
    engineer = factories.engineer(db, email="tz@example.com")
    auth.login(engineer.email)
    page = client.get("/dashboard").get_data(as_text=True)
    assert f'as of <time datetime="{there.isoformat()}">' in page
    assert f'as of <time datetime="{dt.datetime.now(dt.UTC).date().isoformat()}">' not in page


def test_commands_reason_about_the_configured_zones_date(runner, db, unpinned):
    _zone, there = unpinned
    team = factories.team(db, name="Zone Team")
    result = runner.invoke(args=["readiness", team.name])
    assert result.exit_code == 0, result.output
    assert f"on {there.isoformat()}" in result.output
