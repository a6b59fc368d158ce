"""Reminder windows: the days before expiry that open a reminder, and who is copied."""

from __future__ import annotations

from dataclasses import dataclass

from tracker.errors import ValidationError
from tracker.reminders.rules import (
    COPY_MANAGER_FROM_DAYS,
    DEFAULT_WINDOWS,
    EXPIRED_GRACE_DAYS,
    MAX_WINDOW_DAYS,
    WINDOWS_RULE,
)


@dataclass(frozen=True)
class Windows:
    """Days before expiry that open a reminder, most distant first; and who is copied.

    Windows are ranges: the 30-day window is due from 30 days before the expiry
    until the 7-day one opens, so a late pass still finds it; a pass after
    downtime gets the most urgent one only. The expiry notice (window EXPIRED)
    is due from the day after the expiry for `expired_grace_days`.
    """

    before: tuple[int, ...] = DEFAULT_WINDOWS
    expired_grace_days: int = EXPIRED_GRACE_DAYS
    copy_manager_from: int = COPY_MANAGER_FROM_DAYS

    @property
    def widest(self) -> int:
        return max(self.before)


def parse_windows(text: str) -> Windows:
    """Read "90,60,30,7" (empty: the default windows); refuse anything but positive days."""
    if not text.strip():
        return Windows()
    try:
        days = tuple(sorted({int(part) for part in text.split(",") if part.strip()}, reverse=True))
    except ValueError:
        days = ()
    if not days or any(d <= 0 or d > MAX_WINDOW_DAYS for d in days):
        raise ValidationError({"windows": f"{WINDOWS_RULE} (got {text!r})"})
    return Windows(before=days)
