"""The date rules agree with simple reference implementations, over random dates.

The references (below, and in tests/properties/helpers.py) are written differently
from tracker.progress.services on purpose: month by month and day by day, with no
calendar arithmetic shared.
"""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.properties.helpers import ref_add_months, ref_days_in_month
from tracker.progress.services.validity import (
    Status,
    add_months,
    days_left,
    expiry_date,
    is_valid_on,
    status_on,
    whole_months_between,
)

# The same cases every run: the suite fails for what changed, never for a draw.
SETTINGS = settings(max_examples=300, deadline=None, database=None, derandomize=True)
DATES = st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2150, 12, 31))
MONTHS = st.integers(min_value=-240, max_value=240)


def ref_status(earned: dt.date, expires: dt.date | None, on: dt.date, within: int) -> str:
    """Valid through the expiry day, expired the day after, expiring within `within` days."""
    if earned > on:
        return "missing"
    if expires is None:
        return "valid"
    if expires < on:
        return "expired"
    if on + dt.timedelta(days=within) >= expires:
        return "expiring"
    return "valid"


def cert(earned: dt.date, expires: dt.date | None) -> SimpleNamespace:
    return SimpleNamespace(earned_on=earned, expires_on=expires)


@SETTINGS
@given(DATES, MONTHS)
def test_add_months_agrees_with_the_reference(start, months):
    result = add_months(start, months)
    assert result == ref_add_months(start, months)
    assert (result.year * 12 + result.month) - (start.year * 12 + start.month) == months
    assert result.day == min(start.day, ref_days_in_month(result.year, result.month))


@SETTINGS
@given(DATES, st.one_of(st.none(), st.integers(min_value=1, max_value=120)))
def test_expiry_is_the_validity_later_clamped_to_the_month_end(earned, validity):
    expires = expiry_date(earned, validity)
    if validity is None:
        assert expires is None
    else:
        assert expires == ref_add_months(earned, validity)
        assert expires > earned


@SETTINGS
@given(DATES, DATES)
def test_whole_months_between_is_the_largest_step_that_fits(start, end):
    months = whole_months_between(start, end)
    if end < start:
        assert months == 0
        return
    assert ref_add_months(start, months) <= end
    assert ref_add_months(start, months + 1) > end


@SETTINGS
@given(
    DATES,
    st.one_of(st.none(), st.integers(min_value=0, max_value=3000)),
    st.integers(min_value=-4000, max_value=4000),
    st.integers(min_value=0, max_value=400),
)
def test_status_on_agrees_with_the_reference(earned, lifetime, offset, within):
    expires = None if lifetime is None else earned + dt.timedelta(days=lifetime)
    on = earned + dt.timedelta(days=offset)
    held = cert(earned, expires)
    status = status_on(held, on, within)
    assert status == Status(ref_status(earned, expires, on, within))
    assert is_valid_on(held, on) == (status in (Status.VALID, Status.EXPIRING))
    if expires is not None:
        assert days_left(held, on) == (expires - on).days
    assert status_on(None, on, within) == Status.MISSING


@SETTINGS
@given(DATES, st.integers(min_value=1, max_value=120), st.integers(min_value=-30, max_value=30))
def test_a_certification_is_valid_through_its_expiry_day_and_expired_the_day_after(
    earned, validity, shift
):
    expires = expiry_date(earned, validity)
    held = cert(earned, expires)
    on = expires + dt.timedelta(days=shift)
    assert (status_on(held, on) == Status.EXPIRED) == (shift > 0)
    if shift == 0:
        assert status_on(held, on, 0) == Status.EXPIRING and days_left(held, on) == 0
