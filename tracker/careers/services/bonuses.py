"""Certification bonuses: amounts with their history, and the ledger per quarter."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import Select, and_, exists, func, or_, select
from sqlalchemy.orm import Session, aliased, selectinload

from tracker.careers.models import CertificationBonus
from tracker.careers.rules import (
    EARLIEST_DATE,
    FIRST_QUARTER_YEAR,
    LAST_QUARTER_YEAR,
    MAX_BONUS,
    QUARTER_PATTERN,
    QUARTER_RANGE_RULE,
    QUARTER_RULE,
)
from tracker.catalog.models.credentials import Credential
from tracker.catalog.rules import DECIMAL_PLACES, HUNDREDTH
from tracker.clock import utcnow
from tracker.db import held_for_change
from tracker.errors import ValidationError
from tracker.i18n import N_, day, grouped, msg
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.progress.services.validity import add_months

_QUARTER = re.compile(QUARTER_PATTERN)


@dataclass(frozen=True, order=True)
class Quarter:
    """A calendar quarter, written YYYY-Qn."""

    year: int
    number: int

    @property
    def starts_on(self) -> dt.date:
        return dt.date(self.year, 3 * self.number - 2, 1)

    @property
    def ends_on(self) -> dt.date:
        return add_months(self.starts_on, 3) - dt.timedelta(days=1)

    def __str__(self) -> str:
        return f"{self.year}-Q{self.number}"

    @classmethod
    def of(cls, day: dt.date) -> Quarter:
        return cls(day.year, (day.month - 1) // 3 + 1)

    @classmethod
    def parse(cls, text: str) -> Quarter:
        """Read YYYY-Qn (n 1-4); a ValidationError on "quarter" otherwise."""
        match = _QUARTER.fullmatch(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise ValidationError({"quarter": QUARTER_RULE})
        if not FIRST_QUARTER_YEAR <= int(match.group(1)) <= LAST_QUARTER_YEAR:
            raise ValidationError({"quarter": QUARTER_RANGE_RULE})
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def previous(self) -> Quarter:
        if self.number == 1:
            return Quarter(self.year - 1, 4)
        return Quarter(self.year, self.number - 1)

    @property
    def next(self) -> Quarter:
        if self.number == 4:
            return Quarter(self.year + 1, 1)
        return Quarter(self.year, self.number + 1)


def bonus_credential(session: Session, code: str) -> Credential:
    """Return the credential a bonus may be set on (not a group), or a ValidationError."""
    credential = session.scalars(
        select(Credential).where(func.upper(Credential.code) == (code or "").strip().upper())
    ).one_or_none()
    if credential is None:
        raise ValidationError({"credential": msg("unknown credential code %(code)r", code=code)})
    if credential.kind == "group":
        members = ", ".join(m.code for m in credential.members)
        raise ValidationError(
            {
                "credential": msg(
                    "%(code)s is a group and is never earned itself; "
                    "set the bonus on its members (%(members)s)",
                    code=credential.code,
                    members=members,
                )
            }
        )
    return credential


def set_bonus(
    session: Session,
    credential: Credential,
    amount: Decimal | int,
    renewals_earn: bool | None = None,
    *,
    effective_on: dt.date,
    today: dt.date,
    verified_only: bool | None = None,
) -> CertificationBonus:
    """Set what the organisation pays for earning `credential` on or after `effective_on`.

    Certifications passed before `effective_on` keep the amount in effect
    when they were passed; setting the same credential and date again corrects
    that amount. `effective_on` may be in the past (a correction, or a programme
    announced late, which pays what was not paid), never after `today`, and never
    so far back that it would change what a quarter already over paid a pass. `renewals_earn`
    None keeps the choice in effect on that date (no when there is none); so
    does `verified_only` (only a certification proved by its issuer's badge
    earns it).
    """
    errors: dict[str, str] = {}
    if credential.kind == "group":
        errors["credential"] = msg(
            "%(code)s is a group; set the bonus on its members", code=credential.code
        )
    value = Decimal(0)
    if isinstance(amount, bool) or not isinstance(amount, int | Decimal):
        errors["amount"] = N_("amount must be a number")
    else:
        value = Decimal(amount)
        if not value.is_finite() or not 0 <= value <= MAX_BONUS:
            errors["amount"] = msg("amount must be from 0 to %(max)s", max=grouped(MAX_BONUS))
        elif value != value.quantize(HUNDREDTH):
            errors["amount"] = msg(
                "amount must have at most %(places)s decimals", places=DECIMAL_PLACES
            )
    if not isinstance(effective_on, dt.date) or isinstance(effective_on, dt.datetime):
        errors["effective_on"] = N_("effective from must be a date (YYYY-MM-DD)")
    elif effective_on > today:
        errors["effective_on"] = msg(
            "effective from must not be after today (%(today)s)", today=day(today)
        )
    elif effective_on < EARLIEST_DATE:
        errors["effective_on"] = msg(
            "effective from must be %(earliest)s or later", earliest=day(EARLIEST_DATE)
        )
    if errors:
        raise ValidationError(errors)
    # Held: the terms the paid quarters are checked against are those a same-day
    # amount set meanwhile committed, and the row updated is the one checked.
    in_effect = bonus_on(session, credential, effective_on, for_change=True)
    before = (
        _Terms(in_effect.amount, in_effect.renewals_earn, in_effect.verified_only)
        if in_effect is not None
        else _Terms(Decimal(0), False, False)
    )
    after = _Terms(
        value,
        before.renewals_earn if renewals_earn is None else renewals_earn,
        before.verified_only if verified_only is None else verified_only,
    )
    paid = _paid_change(session, credential, effective_on, today, before, after)
    if paid is not None:
        raise ValidationError(
            {
                "effective_on": msg(
                    "the ledger of %(quarter)s is paid and would change (%(code)s passed on"
                    " %(passed)s): set the amount from %(first)s or later",
                    quarter=str(Quarter.of(paid)),
                    code=credential.code,
                    passed=day(paid),
                    first=day(Quarter.of(today).starts_on),
                )
            }
        )
    if in_effect is not None and in_effect.effective_on == effective_on:
        bonus = in_effect
        bonus.amount = value
        if renewals_earn is not None:
            bonus.renewals_earn = renewals_earn
        if verified_only is not None:
            bonus.verified_only = verified_only
        bonus.set_at = utcnow()
    else:
        if renewals_earn is None:
            renewals_earn = in_effect.renewals_earn if in_effect is not None else False
        if verified_only is None:
            verified_only = in_effect.verified_only if in_effect is not None else False
        bonus = CertificationBonus(
            credential_id=credential.id,
            credential=credential,
            effective_on=effective_on,
            amount=value,
            renewals_earn=renewals_earn,
            verified_only=verified_only,
        )
        session.add(bonus)
    session.flush()
    return bonus


@dataclass(frozen=True)
class _Terms:
    """What a bonus pays: its amount, for renewals too or not, for verified ones only or not."""

    amount: Decimal
    renewals_earn: bool
    verified_only: bool

    def pays(self, cert: Certification) -> Decimal:
        """Return what a certification earns under these terms (as ledger_query reads them)."""
        if self.amount <= 0 or cert.revoked_on is not None:
            return Decimal(0)
        if cert.renews_id is not None and not self.renewals_earn:
            return Decimal(0)
        if self.verified_only and cert.verified_at is None:
            return Decimal(0)
        return self.amount


def _paid_change(
    session: Session,
    credential: Credential,
    effective_on: dt.date,
    today: dt.date,
    before: _Terms,
    after: _Terms,
) -> dt.date | None:
    """Return the first pass paid in a quarter already over that the new terms would pay otherwise.

    Such a quarter's ledger is paid: no amount set later may change what it paid.
    """
    closed_until = Quarter.of(today).starts_on
    if effective_on >= closed_until:
        return None
    following = session.scalar(
        select(func.min(CertificationBonus.effective_on)).where(
            CertificationBonus.credential_id == credential.id,
            CertificationBonus.effective_on > effective_on,
        )
    )
    until = min(closed_until, following) if following is not None else closed_until
    paid = session.scalars(
        select(Certification)
        .where(
            Certification.credential_id == credential.id,
            Certification.earned_on >= effective_on,
            Certification.earned_on < until,
        )
        .order_by(Certification.earned_on)
    )
    # A pass that earned nothing may earn now (a programme announced late: back pay);
    # one paid keeps what it was paid.
    return next(
        (c.earned_on for c in paid if before.pays(c) and before.pays(c) != after.pays(c)), None
    )


def since(bonus: CertificationBonus) -> str:
    """Say from when a bonus applies: "from YYYY-MM-DD", or "from the start"."""
    if bonus.effective_on <= EARLIEST_DATE:
        return N_("from the start")
    return msg("from %(day)s", day=day(bonus.effective_on))


def bonus_on(
    session: Session, credential: Credential, day: dt.date, for_change: bool = False
) -> CertificationBonus | None:
    """Return the bonus in effect for a certification of `credential` passed on `day`.

    `for_change`: read afresh and held until the transaction ends (db.held_for_change).
    """
    query = (
        select(CertificationBonus)
        .where(
            CertificationBonus.credential_id == credential.id,
            CertificationBonus.effective_on <= day,
        )
        .order_by(CertificationBonus.effective_on.desc())
        .limit(1)
    )
    if for_change:
        query = held_for_change(query, CertificationBonus)
    return session.scalars(query).one_or_none()


def bonuses(session: Session, history: bool = False) -> list[CertificationBonus]:
    """Return each credential's current bonus (the latest set), by credential code.

    With `history`, every amount ever set instead: by code, the latest first.
    """
    query = (
        select(CertificationBonus)
        .join(CertificationBonus.credential)
        .options(selectinload(CertificationBonus.credential))
        .order_by(Credential.code, CertificationBonus.effective_on.desc())
    )
    if not history:
        later = aliased(CertificationBonus)
        query = query.where(
            ~exists().where(
                later.credential_id == CertificationBonus.credential_id,
                later.effective_on > CertificationBonus.effective_on,
            )
        )
    return list(session.scalars(query))


def bonus_credentials(session: Session) -> list[Credential]:
    """Return the credentials a bonus can be set on (exams and external ones), by code."""
    return list(
        session.scalars(
            select(Credential).where(Credential.kind != "group").order_by(Credential.code)
        )
    )


@dataclass(frozen=True)
class BonusRow:
    """One bonus earned: who, which certification, when it was passed, how much."""

    certification: Certification
    amount: Decimal
    renewal: bool

    @property
    def engineer(self) -> Engineer:
        return self.certification.engineer

    @property
    def credential(self) -> Credential:
        return self.certification.credential

    @property
    def passed_on(self) -> dt.date:
        return self.certification.earned_on


def ledger_query(
    quarter: Quarter, engineer_ids: Iterable[int] | Select[tuple[int]] | None = None
) -> Select[tuple[Certification, CertificationBonus]]:
    """Return the query of the bonuses earned in `quarter`, unordered: (certification, bonus).

    Each certification earned in it earns the bonus in effect on the day it was
    passed. A renewal (a certification renewing an earlier one of the same
    credential) earns only when that bonus says renewals earn, and one not proved
    by its issuer's badge only when the bonus does not ask for that; a revoked
    certification earns nothing. Bonuses of 0 are left out. `engineer_ids` limits
    the rows to those people (None: everyone).
    """
    # The bonus in effect on the day each certification was passed.
    in_effect = (
        select(func.max(CertificationBonus.effective_on))
        .where(
            CertificationBonus.credential_id == Certification.credential_id,
            CertificationBonus.effective_on <= Certification.earned_on,
        )
        .correlate(Certification)
        .scalar_subquery()
    )
    query = (
        select(Certification, CertificationBonus)
        .join(
            CertificationBonus,
            and_(
                CertificationBonus.credential_id == Certification.credential_id,
                CertificationBonus.effective_on == in_effect,
            ),
        )
        .where(
            Certification.earned_on >= quarter.starts_on,
            Certification.earned_on <= quarter.ends_on,
            CertificationBonus.amount > 0,
            or_(Certification.renews_id.is_(None), CertificationBonus.renewals_earn.is_(True)),
            # A certification its issuer revoked earns nothing; some bonuses want a badge.
            Certification.revoked_on.is_(None),
            or_(
                CertificationBonus.verified_only.is_(False),
                Certification.verified_at.is_not(None),
            ),
        )
        .options(selectinload(Certification.engineer), selectinload(Certification.credential))
    )
    if isinstance(engineer_ids, Select):
        query = query.where(Certification.engineer_id.in_(engineer_ids))
    elif engineer_ids is not None:
        query = query.where(Certification.engineer_id.in_(list(engineer_ids)))
    return query


def bonus_row(cert: Certification, bonus: CertificationBonus) -> BonusRow:
    """Return the ledger's row of a certification and the bonus it earned."""
    return BonusRow(cert, bonus.amount, cert.renews_id is not None)


def ledger(
    session: Session, quarter: Quarter, engineer_ids: Iterable[int] | None = None
) -> list[BonusRow]:
    """Return the bonuses earned in `quarter` (see ledger_query), by day, then name."""
    rows = [bonus_row(*row) for row in session.execute(ledger_query(quarter, engineer_ids))]
    return sorted(
        rows,
        key=lambda r: (r.passed_on, r.engineer.name.lower(), r.credential.code, r.certification.id),
    )
