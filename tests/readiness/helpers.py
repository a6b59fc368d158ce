"""Shared scene-building helpers for the readiness tests."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tracker.people.models import Engineer, Team
from tracker.readiness.services.members import Member, load_members
from tracker.readiness.services.team import TeamReadiness

TODAY = factories.TODAY  # 2026-11-29
D = dt.date
LONG_AGO = D(2026, 1, 10)  # an earned-on date well before TODAY
FAR = D(2029, 1, 10)  # an expiry well after every date the tests ask about


def person(
    db: Session,
    name: str,
    team: Team | None,
    roles: tuple[str, ...] = ("operations",),
    level: int = 2,
    certs: dict[str, dt.date | None] | None = None,
    **extra: object,
) -> Engineer:
    """Create an engineer in `team` holding `certs` (code -> expiry, earned on LONG_AGO)."""
    who = factories.engineer(db, name=name, team=team, job_roles=roles, level=level, **extra)
    for code, expires_on in (certs or {}).items():
        factories.certification(db, who, code, LONG_AGO, expires_on)
    return who


def members(db: Session, team: Team) -> list[Member]:
    return load_members(db, [team.id]).get(team.id, [])


def seat_names(result: TeamReadiness) -> dict[str, list[str | None]]:
    """Return job role code -> the names filling its seats (None for an empty seat)."""
    out: dict[str, list[str | None]] = {}
    for seat in result.seats:
        name = seat.member.name if seat.member else None
        out.setdefault(seat.seat.slot.job_role.code, []).append(name)
    return out


def gap(result: TeamReadiness, role: str):
    """Return the (first) unfilled seat for job role `role`."""
    return next(s for s in result.gaps if s.seat.slot.job_role.code == role)


def candidate_lacks(seat) -> dict[str, list[str]]:
    return {c.member.name: c.lacks for c in seat.candidates}
