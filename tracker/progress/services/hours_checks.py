"""Hours' checks: an entry's fields, and the refusals of a full day and an unknown course."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlalchemy.exc import IntegrityError

from tracker.catalog.rules import DECIMAL_PLACES, HUNDREDTH
from tracker.errors import ValidationError
from tracker.i18n import N_, amount, day, msg
from tracker.progress.ddl import DAY_CHECK
from tracker.progress.rules import (
    HOURS_PER_DAY,
    HOURS_PER_DAY_TEXT,
    HOURS_RANGE_TEXT,
    MAX_NOTE_LENGTH,
)


def check_hours(
    hired_on: dt.date | None, logged_on: dt.date, hours: Decimal, today: dt.date, note: str
) -> None:
    """Refuse an entry's hours, date (not in the future, nor before the hire date) or note."""
    errors: dict[str, str] = {}
    if not isinstance(hours, Decimal) or not hours.is_finite():
        errors["hours"] = N_("hours must be a number")
    elif hours <= 0 or hours > HOURS_PER_DAY:
        errors["hours"] = HOURS_RANGE_TEXT
    elif hours != hours.quantize(HUNDREDTH):
        errors["hours"] = msg("hours must have at most %(places)s decimals", places=DECIMAL_PLACES)
    date = date_problem(hired_on, logged_on, today)
    if date is not None:
        errors["logged_on"] = date
    if len(note.strip()) > MAX_NOTE_LENGTH:
        errors["note"] = msg("note must be at most %(most)s characters", most=MAX_NOTE_LENGTH)
    if errors:
        raise ValidationError(errors)


def date_problem(hired_on: dt.date | None, logged_on: dt.date, today: dt.date) -> str | None:
    """Return what is wrong with an entry's date (in the future, before the hire date), if any."""
    if logged_on > today:
        return N_("date must not be in the future")
    if hired_on and logged_on < hired_on:
        return msg("date must not be before the hire date %(date)s", date=day(hired_on))
    return None


def overfills_a_day(exc: IntegrityError) -> bool:
    """Return whether the database refused a write for passing the hours a day holds."""
    return DAY_CHECK in str(exc.orig)


def day_full(logged_on: dt.date, total: Decimal) -> ValidationError:
    """Return the error of an entry that does not fit in its day."""
    return ValidationError(
        {
            "hours": msg(
                "%(rule)s; %(total)s h are already logged on %(date)s",
                rule=HOURS_PER_DAY_TEXT,
                total=amount(total),
                date=day(logged_on),
            )
        }
    )


def refuse_course(course_code: str | None, course_id: int | None) -> ValidationError:
    """Return the error of an entry naming no known course."""
    if course_code is not None:
        return ValidationError({"course": msg("unknown course code %(code)r", code=course_code)})
    return ValidationError({"course_id": msg("no course with id %(id)s", id=course_id)})
