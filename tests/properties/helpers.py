"""Reference date rules for the property tests, written apart from tracker.progress.services.

Month by month and day by day, with no calendar arithmetic shared with the code under test.
"""

from __future__ import annotations

import datetime as dt


def ref_days_in_month(year: int, month: int) -> int:
    """Count the days of a month by walking from its first day."""
    day = dt.date(year, month, 1)
    count = 0
    while day.month == month:
        count += 1
        day += dt.timedelta(days=1)
    return count


def ref_add_months(start: dt.date, months: int) -> dt.date:
    """Step one month at a time, then clamp the day to the month's end."""
    year, month = start.year, start.month
    step = 1 if months >= 0 else -1
    for _ in range(abs(months)):
        month += step
        if month == 13:
            year, month = year + 1, 1
        elif month == 0:
            year, month = year - 1, 12
    return dt.date(year, month, min(start.day, ref_days_in_month(year, month)))
