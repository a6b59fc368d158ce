"""The one clock: today's date in the organisation's time zone, and the current UTC time.

Rules never read the clock; they take "today" as a parameter. Pages, commands and
the scheduler ask this module, so they all agree on which day it is: the day in
TRACKER_TIMEZONE, not the server's. A pinned date (the `TODAY` setting, which
tests and demonstrations set) wins over the clock.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Mapping
from typing import Any

from flask import current_app, has_app_context


def utcnow() -> dt.datetime:
    """Return the current UTC time, naive, as the database stores it."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def today_in(config: Mapping[str, Any], now: dt.datetime | None = None) -> dt.date:
    """Return the date `now` (default: this instant) falls on in the configured time zone."""
    pinned = config.get("TODAY")
    if pinned:
        return pinned if isinstance(pinned, dt.date) else dt.date.fromisoformat(str(pinned))
    zone = zoneinfo.ZoneInfo(config.get("TIMEZONE") or "UTC")
    instant = now or dt.datetime.now(dt.UTC)
    return instant.astimezone(zone).date()


def today() -> dt.date:
    """Return today's date for the current application (its time zone, or its pin)."""
    if not has_app_context():
        raise RuntimeError("tracker.clock.today() needs an application context")
    return today_in(current_app.config)
