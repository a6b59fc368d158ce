"""Dates and validity: months, expiry dates, a certification's status on a date.

Plain functions: the date they reason about is a parameter; none reads the clock.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Iterable, Mapping
from enum import StrEnum

from sqlalchemy import ColumnElement, and_, exists, false, or_
from sqlalchemy.orm import aliased

from tracker.catalog.models.credentials import Credential
from tracker.i18n import N_
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.progress.rules import EXPIRING_WITHIN_DAYS


def add_months(start: dt.date, months: int) -> dt.date:
    """Return the same day `months` later, clamped to the end of a shorter month.

    2024-02-29 + 24 months = 2026-02-28; 2025-01-31 + 1 month = 2025-02-28.
    """
    index = start.year * 12 + (start.month - 1) + months
    year, month = divmod(index, 12)
    last_day = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(start.day, last_day))


def expiry_date(earned_on: dt.date, validity_months: int | None) -> dt.date | None:
    """Return the last day a certification earned on `earned_on` is valid, or None."""
    if validity_months is None:
        return None
    return add_months(earned_on, validity_months)


def whole_months_between(start: dt.date, end: dt.date) -> int:
    """Return the largest n with add_months(start, n) <= end (0 when end is before start)."""
    if end < start:
        return 0
    months = (end.year - start.year) * 12 + end.month - start.month
    while months > 0 and add_months(start, months) > end:
        months -= 1
    return months


def experience_months(engineer: Engineer, on: dt.date) -> int:
    """Return documented months before joining plus whole months since the hire date."""
    since_hire = whole_months_between(engineer.hired_on, on) if engineer.hired_on else 0
    return engineer.experience_months + since_hire


# --- certification status ---------------------------------------------------


class Status(StrEnum):
    """A certification's state on a date."""

    VALID = "valid"
    EXPIRING = "expiring"
    EXPIRED = "expired"
    MISSING = "missing"
    # Its issuer revoked it (found by checking its badge): it counts for nothing.
    REVOKED = "revoked"


# What people read for each status: the status badge of every page and the heat map's
# CSV, translated where they are shown.
STATUS_LABELS: Mapping[Status, str] = {
    Status.VALID: N_("valid"),
    Status.EXPIRING: N_("expiring"),
    Status.EXPIRED: N_("expired"),
    Status.MISSING: N_("missing"),
    Status.REVOKED: N_("revoked"),
}


def is_valid_on(cert: Certification, on: dt.date) -> bool:
    """Return whether the certification holds on `on` (its expiry day included).

    One its issuer revoked holds no more from the day the revocation was found.
    Readiness's plain rows carry no `revoked_on`: their query leaves revoked ones out.
    """
    revoked_on = getattr(cert, "revoked_on", None)
    return (
        cert.earned_on <= on
        and (cert.expires_on is None or on <= cert.expires_on)
        and (revoked_on is None or on < revoked_on)
    )


def status_on(
    cert: Certification | None, on: dt.date, expiring_within: int = EXPIRING_WITHIN_DAYS
) -> Status:
    """Return the status of a certification on a date.

    Valid through its expiry date, expired the day after; "expiring" when valid
    and the expiry is at most `expiring_within` days away; "missing" when there
    is none or it was earned after `on`; "revoked" from the day its issuer's
    revocation was found.
    """
    if cert is None or cert.earned_on > on:
        return Status.MISSING
    revoked_on = getattr(cert, "revoked_on", None)
    if revoked_on is not None and on >= revoked_on:
        return Status.REVOKED
    if cert.expires_on is None:
        return Status.VALID
    if on > cert.expires_on:
        return Status.EXPIRED
    if (cert.expires_on - on).days <= expiring_within:
        return Status.EXPIRING
    return Status.VALID


def days_left(cert: Certification, on: dt.date) -> int | None:
    """Return the days from `on` to the expiry (0 on the day itself, negative after)."""
    return None if cert.expires_on is None else (cert.expires_on - on).days


def newest_per_credential(certs: Iterable[Certification]) -> dict[int, Certification]:
    """Return the certification that counts for each credential: the newest one."""
    newest: dict[int, Certification] = {}
    for cert in certs:
        best = newest.get(cert.credential_id)
        if best is None or (cert.earned_on, cert.id or 0) > (best.earned_on, best.id or 0):
            newest[cert.credential_id] = cert
    return newest


def newest_of_its_credential() -> ColumnElement[bool]:
    """Return the condition on Certification of newest_per_credential, per engineer, in SQL."""
    newer = aliased(Certification)
    return ~exists().where(
        newer.engineer_id == Certification.engineer_id,
        newer.credential_id == Certification.credential_id,
        or_(
            newer.earned_on > Certification.earned_on,
            and_(newer.earned_on == Certification.earned_on, newer.id > Certification.id),
        ),
    )


def status_is(
    status: str, on: dt.date, expiring_within: int = EXPIRING_WITHIN_DAYS
) -> ColumnElement[bool]:
    """Return the condition on Certification of status_on(cert, on, expiring_within) == status."""
    expires = Certification.expires_on
    window_ends = on + dt.timedelta(days=expiring_within)
    revoked = and_(Certification.revoked_on.is_not(None), Certification.revoked_on <= on)
    earned = Certification.earned_on <= on
    if status == Status.REVOKED:
        return and_(earned, revoked)
    held = and_(earned, ~revoked)
    if status == Status.VALID:
        return and_(held, or_(expires.is_(None), expires > window_ends))
    if status == Status.EXPIRING:
        return and_(held, expires >= on, expires <= window_ends)
    if status == Status.EXPIRED:
        return and_(held, expires < on)
    if status == Status.MISSING:
        return Certification.earned_on > on
    return false()


def holding(
    certs: Iterable[Certification], credential: Credential, on: dt.date
) -> Certification | None:
    """Return a certification satisfying `credential` (or a member of its group) valid on `on`.

    Of several, the one valid longest wins, so callers can tell when it lapses.
    """
    wanted = credential.satisfying_ids()
    valid = [c for c in certs if c.credential_id in wanted and is_valid_on(c, on)]
    if not valid:
        return None
    return max(valid, key=lambda c: (c.expires_on or dt.date.max, c.earned_on))


def latest_for(certs: Iterable[Certification], credential: Credential) -> Certification | None:
    """Return the newest certification satisfying `credential`, valid or not."""
    wanted = credential.satisfying_ids()
    matching = [c for c in certs if c.credential_id in wanted]
    return max(matching, key=lambda c: (c.earned_on, c.id or 0), default=None)
