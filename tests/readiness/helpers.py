"""Shared scene-building helpers for the readiness tests."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal

from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import section, token_for
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.people.models import Engineer, Team
from tracker.people.services.persons import set_active
from tracker.progress.models import Certification, HourLog
from tracker.readiness.services.members import Member, load_members, load_templates
from tracker.readiness.services.team import TeamReadiness

TODAY = factories.TODAY  # 2026-11-29
D = dt.date
LONG_AGO = D(2026, 1, 10)  # an earned-on date well before TODAY
FAR = D(2029, 1, 10)  # an expiry well after every date the tests ask about
BEN_EXPIRY = D(2027, 1, 15)  # 47 days after TODAY: "expiring"
CY_EXPIRY = D(2026, 6, 1)  # before TODAY: "expired"
DASH = "\N{EN DASH}"  # the pages write ranges as 2\N{EN DASH}3


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


def grow(db: Session, team: Team, count: int, prefix: str) -> None:
    """Add `count` engineers to `team`, each with certifications and hour logs."""
    fdl = factories.course(db, "FDL")
    gpu = factories.course(db, "GPU-ARCH")
    for i in range(count):
        roles = ("operations", "network") if i % 3 == 0 else ("operations",)
        who = person(db, f"{prefix}{i:03d}", team, roles=roles, level=2 + i % 2)
        for code, earned, expires in [
            ("NCA-AIIO", D(2024, 1, 1), D(2026, 1, 1)),
            ("NCA-AIIO", LONG_AGO, D(2027, 2, 1) + dt.timedelta(days=i)),
            ("NVIDIA-NETWORKING", LONG_AGO, None),
        ]:
            db.add(
                Certification(
                    engineer_id=who.id,
                    credential_id=factories.credential(db, code).id,
                    earned_on=earned,
                    expires_on=expires,
                    evidence="scene",
                )
            )
        for day in range(1, 4):
            db.add(
                HourLog(
                    engineer_id=who.id,
                    course_id=(fdl if day % 2 else gpu).id,
                    logged_on=D(2026, 10, day),
                    hours=Decimal(2),
                )
            )
    db.flush()


@dataclass
class Org:
    """Alpha (Mona's, 50 GPUs) and Bravo (Otto's, 40 GPUs), an admin; tokens for the API."""

    mona: Engineer
    otto: Engineer
    admin: Engineer
    ada: Engineer
    ben: Engineer
    cy: Engineer
    otis: Engineer
    alpha: Team
    bravo: Team
    tokens: dict[str, str | None] = field(default_factory=dict)


def build_org(db: Session) -> Org:
    """Build Alpha and Bravo.

    Alpha: Ada (network L3) fills the network seat, Ben (NCA-AIIO expiring in 47 days)
    an operations seat; Cy's NCA-AIIO expired on 2026-06-01, so the lead and the second
    operations seat are open with Cy as the nearest candidate. Bravo: Otis alone.
    """
    mona = factories.engineer(db, name="Mona", access_role="manager")
    otto = factories.engineer(db, name="Otto", access_role="manager")
    admin = factories.engineer(db, name="Adele", access_role="admin")
    alpha = factories.team(db, gpus=50, name="Alpha", manager=mona)
    bravo = factories.team(db, gpus=40, name="Bravo", manager=otto)
    ada = person(
        db,
        "Ada",
        alpha,
        roles=("network",),
        level=3,
        certs={"NVIDIA-NETWORKING": None, "NCA-AIIO": FAR, "CKA": FAR},
    )
    ben = person(db, "Ben", alpha, certs={"NCA-AIIO": BEN_EXPIRY})
    cy = person(db, "Cy", alpha, certs={"NCA-AIIO": CY_EXPIRY})
    otis = person(db, "Otis", bravo, certs={"NCA-AIIO": FAR})
    return Org(mona, otto, admin, ada, ben, cy, otis, alpha, bravo)


def template(db: Session, code: str) -> TeamTemplate:
    return next(t for t in load_templates(db) if t.code == code)


def org_with_tokens(db: Session) -> Org:
    """Build Alpha and Bravo with an API token for each caller the API tests name.

    "deactivated" is the token of an admin who has since been deactivated; "none" is no token.
    """
    found = build_org(db)
    gone = factories.engineer(db, name="Gone", access_role="admin")
    found.tokens = {
        "mona": token_for(db, found.mona),
        "otto": token_for(db, found.otto),
        "admin": token_for(db, found.admin),
        "ben": token_for(db, found.ben),
        "deactivated": token_for(db, gone),
        "none": None,
    }
    set_active(db, gone, False)
    return found


def team_page(client: FlaskClient, team: Team, query: str = "") -> tuple[int, str]:
    response = client.get(f"/teams/{team.id}{query}")
    return response.status_code, response.get_data(as_text=True)


def roi_form(investment: list[tuple[str, object]], returns: list[tuple[str, object]]) -> dict:
    data: dict[str, object] = {}
    for kind, lines in (("investment", investment), ("returns", returns)):
        for i, (label, amount) in enumerate(lines):
            data[f"{kind}-{i}-label"] = label
            data[f"{kind}-{i}-amount"] = amount
    return data


def roi_result(html: str) -> str:
    return section(html, '<div role="status"><article class="roi-result">', "</article>")


def chart(html: str) -> str:
    """Return the team page's readiness history chart, its <svg> element."""
    found = re.search(r'<svg viewBox="0 0 640 206" role="img".*?</svg>', html, re.S)
    assert found is not None, "no history chart"
    return found.group(0)
