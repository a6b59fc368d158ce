"""Dates and validity (services.validity): months, expiry, status on a date, what counts."""

from __future__ import annotations

import pytest

from tests import factories
from tests.progress.helpers import D, cert
from tracker.progress.services.validity import (
    Status,
    add_months,
    days_left,
    experience_months,
    expiry_date,
    holding,
    is_valid_on,
    latest_for,
    newest_per_credential,
    status_on,
    whole_months_between,
)


@pytest.mark.parametrize(
    ("start", "months", "expected"),
    [
        # "2024-02-29 + 24 months = 2026-02-28"
        (D(2024, 2, 29), 24, D(2026, 2, 28)),
        # "2025-01-31 + 1 month = 2025-02-28"
        (D(2025, 1, 31), 1, D(2025, 2, 28)),
        # clamped to the last day of a shorter month: a leap February has 29 days
        (D(2024, 1, 31), 1, D(2024, 2, 29)),
        (D(2023, 12, 31), 2, D(2024, 2, 29)),
        # the 31st into 30-day months
        (D(2024, 3, 31), 1, D(2024, 4, 30)),
        (D(2024, 5, 31), 1, D(2024, 6, 30)),
        (D(2024, 8, 31), 1, D(2024, 9, 30)),
        (D(2024, 10, 31), 1, D(2024, 11, 30)),
        (D(2024, 1, 31), 3, D(2024, 4, 30)),
        # a day that exists in every month is kept
        (D(2024, 1, 15), 1, D(2024, 2, 15)),
        (D(2024, 2, 28), 12, D(2025, 2, 28)),
        (D(2024, 2, 29), 48, D(2028, 2, 29)),
        # zero months is the same day
        (D(2024, 2, 29), 0, D(2024, 2, 29)),
        # negative months go back, clamped the same way
        (D(2024, 3, 31), -1, D(2024, 2, 29)),
        (D(2025, 3, 31), -1, D(2025, 2, 28)),
        (D(2024, 1, 15), -1, D(2023, 12, 15)),
        (D(2024, 1, 15), -13, D(2022, 12, 15)),
        (D(2026, 2, 28), -24, D(2024, 2, 28)),
        # year rollover
        (D(2024, 12, 15), 1, D(2025, 1, 15)),
        (D(2024, 11, 30), 2, D(2025, 1, 30)),
        (D(2024, 12, 31), 14, D(2026, 2, 28)),
        (D(2024, 6, 10), 30, D(2026, 12, 10)),
    ],
)
def test_add_months(start, months, expected):
    """Calendar months: "the same day of the month N months later, clamped to the
    last day of a shorter month"."""
    assert add_months(start, months) == expected


@pytest.mark.parametrize(
    ("earned_on", "validity", "expected"),
    [
        # "2024-02-29 + 24 months = 2026-02-28"
        (D(2024, 2, 29), 24, D(2026, 2, 28)),
        (D(2025, 1, 31), 1, D(2025, 2, 28)),
        (D(2024, 6, 10), 24, D(2026, 6, 10)),
        # validity None: the credential does not expire
        (D(2024, 6, 10), None, None),
    ],
)
def test_expiry_date(earned_on, validity, expected):
    """ "It is valid from the pass date until pass date + validity, computed in
    calendar months"."""
    assert expiry_date(earned_on, validity) == expected


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (D(2024, 1, 15), D(2024, 1, 15), 0),
        (D(2024, 1, 15), D(2024, 2, 14), 0),  # the day before the monthly anniversary
        (D(2024, 1, 15), D(2024, 2, 15), 1),  # the anniversary itself
        (D(2024, 3, 15), D(2024, 5, 14), 1),
        (D(2024, 3, 15), D(2024, 5, 15), 2),
        (D(2024, 1, 31), D(2024, 2, 29), 1),  # hired on the 31st: one month on Feb 29
        (D(2025, 1, 31), D(2025, 2, 28), 1),  # ... and on Feb 28 in a common year
        (D(2025, 1, 31), D(2025, 2, 27), 0),
        (D(2025, 1, 31), D(2025, 3, 30), 1),  # Jan 31 + 2 months is Mar 31
        (D(2025, 1, 31), D(2025, 3, 31), 2),
        (D(2024, 12, 15), D(2025, 12, 14), 11),  # across the year end
        (D(2024, 12, 15), D(2025, 12, 15), 12),
        (D(2021, 1, 1), D(2026, 11, 29), 70),
        (D(2024, 2, 29), D(2026, 2, 28), 24),
        (D(2024, 5, 10), D(2024, 5, 9), 0),  # end before start -> 0
        (D(2024, 5, 10), D(2023, 1, 1), 0),
    ],
)
def test_whole_months_between(start, end, expected):
    """ "whole months since the hire date": the largest n with start + n months <= end."""
    assert whole_months_between(start, end) == expected


@pytest.mark.parametrize(
    ("hired_on", "documented", "on", "expected"),
    [
        (D(2025, 1, 31), 0, D(2025, 2, 28), 1),  # hired Jan 31: one month on Feb 28
        (D(2025, 1, 31), 6, D(2025, 2, 28), 7),
        (D(2025, 3, 15), 4, D(2025, 6, 14), 6),  # the day before the anniversary
        (D(2025, 3, 15), 4, D(2025, 6, 15), 7),
        (D(2025, 3, 15), 4, D(2025, 3, 1), 4),  # before the hire date: documented only
        (None, 9, D(2025, 6, 15), 9),  # no hire date: documented only
        (None, 0, D(2025, 6, 15), 0),
    ],
)
def test_experience_months(db, hired_on, documented, on, expected):
    """ "Experience on a date = documented months before joining + whole months since
    the hire date"."""
    who = factories.engineer(
        db, hired_on=hired_on, experience_months=documented, experience_text="GPU ops"
    )
    assert experience_months(who, on) == expected


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        (D(2024, 6, 10), Status.VALID),  # the pass date itself
        (D(2025, 1, 1), Status.VALID),
        (D(2026, 3, 11), Status.VALID),  # 91 days left
        (D(2026, 3, 12), Status.EXPIRING),  # exactly 90 days left
        (D(2026, 6, 9), Status.EXPIRING),
        (D(2026, 6, 10), Status.EXPIRING),  # the expiry date: still valid (expiring)
        (D(2026, 6, 11), Status.EXPIRED),  # the day after
        (D(2030, 1, 1), Status.EXPIRED),
        (D(2024, 6, 9), Status.MISSING),  # earned after the date asked
    ],
)
def test_status_on(on, expected):
    """ "It is valid on its expiry date and expired the day after"; expiring when the
    expiry is at most 90 days away (`<=`); missing before it was earned."""
    c = cert(D(2024, 6, 10), D(2026, 6, 10))
    assert status_on(c, on) == expected


def test_status_on_expiry_date_is_not_expired():
    """ "It is valid on its expiry date and expired the day after"."""
    c = cert(D(2024, 6, 10), D(2026, 6, 10))
    assert status_on(c, D(2026, 6, 10)) != Status.EXPIRED
    assert is_valid_on(c, D(2026, 6, 10))
    assert not is_valid_on(c, D(2026, 6, 11))


def test_status_on_none_is_missing():
    assert status_on(None, D(2025, 1, 1)) == Status.MISSING


def test_status_on_without_expiry_is_valid_for_good():
    """Externals are "recorded with an issue date and, where the holder enters one,
    an expiry": without one they never lapse."""
    c = cert(D(2020, 1, 1), None)
    assert status_on(c, D(2020, 1, 1)) == Status.VALID
    assert status_on(c, D(2099, 12, 31)) == Status.VALID
    assert status_on(c, D(2019, 12, 31)) == Status.MISSING


def test_status_on_custom_window():
    c = cert(D(2024, 6, 10), D(2026, 6, 10))
    assert status_on(c, D(2026, 5, 10), expiring_within=30) == Status.VALID  # 31 days
    assert status_on(c, D(2026, 5, 11), expiring_within=30) == Status.EXPIRING  # 30 days


@pytest.mark.parametrize(
    ("on", "expected"),
    [
        (D(2026, 3, 12), 90),
        (D(2026, 6, 9), 1),
        (D(2026, 6, 10), 0),  # 0 on the expiry day
        (D(2026, 6, 11), -1),  # negative after
    ],
)
def test_days_left(on, expected):
    assert days_left(cert(D(2024, 6, 10), D(2026, 6, 10)), on) == expected


def test_days_left_without_expiry_is_none():
    assert days_left(cert(D(2024, 6, 10), None), D(2026, 6, 10)) is None


def test_newest_per_credential():
    """ "Passing the same exam again renews it ... History is kept; the newest one
    counts"."""
    a_old = cert(D(2020, 1, 1), D(2022, 1, 1), credential_id=1, id=1)
    a_new = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=1, id=2)
    b_only = cert(D(2021, 5, 5), None, credential_id=2, id=3)
    # order of the input does not matter
    assert newest_per_credential([a_new, b_only, a_old]) == {1: a_new, 2: b_only}
    assert newest_per_credential([a_old, a_new, b_only]) == {1: a_new, 2: b_only}
    assert newest_per_credential([]) == {}


def test_newest_per_credential_same_day_takes_the_later_record():
    first = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=1, id=5)
    second = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=1, id=9)
    assert newest_per_credential([second, first]) == {1: second}


def test_holding_a_group_is_satisfied_by_any_member(db):
    """A group credential: "a named group any member of which satisfies it"."""
    group = factories.credential(db, "NVIDIA-ASSOCIATE+")
    assert {m.code for m in group.members} == {"NCA-AIIO", "NCP-AII", "NCP-AIO"}
    nca = factories.credential(db, "NCA-AIIO")
    ncp = factories.credential(db, "NCP-AII")
    cka = factories.credential(db, "CKA")

    associate = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=nca.id, id=1)
    professional = cert(D(2023, 1, 1), D(2025, 1, 1), credential_id=ncp.id, id=2)
    other = cert(D(2023, 1, 1), None, credential_id=cka.id, id=3)
    certs = [associate, professional, other]

    assert holding(certs, group, D(2021, 12, 31)) is None  # none earned yet
    assert holding(certs, group, D(2022, 6, 1)) is associate
    # both valid: the one valid longest wins
    assert holding(certs, group, D(2023, 6, 1)) is professional
    assert holding(certs, group, D(2024, 6, 1)) is professional  # associate lapsed
    assert holding(certs, group, D(2025, 1, 1)) is professional  # its expiry date
    assert holding(certs, group, D(2025, 1, 2)) is None  # both expired
    # a member's certification does not satisfy an unrelated credential
    assert holding(certs, cka, D(2023, 6, 1)) is other
    assert holding([associate, professional], cka, D(2023, 6, 1)) is None
    # a plain credential is satisfied only by itself
    assert holding(certs, nca, D(2023, 6, 1)) is associate
    assert holding(certs, nca, D(2024, 6, 1)) is None


def test_latest_for_returns_the_newest_valid_or_not(db):
    group = factories.credential(db, "NVIDIA-ASSOCIATE+")
    nca = factories.credential(db, "NCA-AIIO")
    ncp = factories.credential(db, "NCP-AII")
    associate = cert(D(2022, 1, 1), D(2024, 1, 1), credential_id=nca.id, id=1)
    professional = cert(D(2023, 1, 1), D(2025, 1, 1), credential_id=ncp.id, id=2)

    assert latest_for([associate, professional], group) is professional
    assert latest_for([associate, professional], nca) is associate
    assert latest_for([professional], nca) is None
    assert latest_for([], group) is None
