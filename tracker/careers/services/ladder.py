"""The ladder: levels, what a level's rule asks for, promotion readiness, level changes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from tracker.careers.models import Evidence
from tracker.careers.rules import EVIDENCE_KINDS, EVIDENCE_REASON, OWN_LEVEL_RULE
from tracker.catalog.models.credentials import Credential
from tracker.catalog.models.levels import Level
from tracker.errors import ValidationError
from tracker.i18n import day, msg
from tracker.people.models import Engineer, JobRoleAssignment, LevelChange, Team
from tracker.people.rules import MANAGER_ROLES
from tracker.people.services.access import manages
from tracker.people.services.persons import set_level
from tracker.progress.models import Certification
from tracker.progress.services.validity import experience_months, holding, latest_for


def can_manage(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may set `engineer`'s level and confirm their skills.

    Their manager (directly or through the team) or an admin; never oneself.
    """
    if not actor.active or actor.id == engineer.id:
        return False
    if actor.access_role == "admin":
        return True
    return actor.access_role == "manager" and manages(actor, engineer)


def load_levels(session: Session) -> dict[int, Level]:
    """Return the ladder's levels by number, with their required credentials and groups."""
    levels = session.scalars(
        select(Level).options(
            selectinload(Level.required_credentials).selectinload(Credential.members)
        )
    ).all()
    return {level.number: level for level in levels}


def level_on(current: int, changes: Sequence[LevelChange], on: dt.date) -> int:
    """Return the level held on `on` from the level history; `current` when there is none.

    The newest change made on or before `on` counts; before the first change,
    the level it changed from (or, for the level recorded on creation, the one it set).
    """
    ordered = sorted(changes, key=lambda c: (c.changed_on, c.id or 0))
    before = [c for c in ordered if c.changed_on <= on]
    if before:
        return before[-1].to_level
    if ordered:
        first = ordered[0]
        return first.from_level if first.from_level is not None else first.to_level
    return current


def _credential_lack(credential: Credential, certs: Sequence[Certification], on: dt.date) -> str:
    """Say which credential is missing, naming the one that lapsed when one did."""
    last = latest_for((c for c in certs if c.earned_on <= on), credential)
    if last is not None and last.expires_on is not None and last.expires_on < on:
        through = day(last.expires_on)
        if credential.kind == "group":
            return msg(
                "a valid %(code)s (%(lapsed)s was valid through %(date)s)",
                code=credential.code,
                lapsed=last.credential.code,
                date=through,
            )
        return msg(
            "a valid %(code)s (it was valid through %(date)s)", code=credential.code, date=through
        )
    if credential.kind == "group":
        members = ", ".join(m.code for m in credential.members)
        return msg("a valid %(code)s (one of %(members)s)", code=credential.code, members=members)
    return msg("a valid %(code)s", code=credential.code)


def rule_lacks(
    level: Level,
    experience: int,
    certs: Sequence[Certification],
    evidence: Sequence[Evidence],
    on: dt.date,
) -> list[str]:
    """Return what keeps someone from `level`'s rule on `on` (empty when they meet it)."""
    lacks: list[str] = []
    if experience < level.min_experience_months:
        lacks.append(
            msg(
                "%(months)s months of experience (has %(has)s)",
                months=level.min_experience_months,
                has=experience,
            )
        )
    for credential in level.required_credentials:
        if holding(certs, credential, on) is None:
            lacks.append(_credential_lack(credential, certs, on))
    if level.requires_evidence and not any(
        e.kind in EVIDENCE_KINDS and e.occurred_on <= on for e in evidence
    ):
        lacks.append(EVIDENCE_REASON)
    return lacks


def level_by_rule(
    levels: dict[int, Level],
    experience: int,
    certs: Sequence[Certification],
    evidence: Sequence[Evidence],
    on: dt.date,
) -> int | None:
    """Return the highest level whose rule is met on `on`; None without a ladder.

    Each level's rule stands on its own, as the ladder states them (level 4 asks
    for 24 months and a vendor expert credential, not level 3's certifications).
    A manager sets the level (docs/domain.md): this is the guide it is compared with.
    """
    met = [n for n, lv in levels.items() if not rule_lacks(lv, experience, certs, evidence, on)]
    return max(met, default=None)


@dataclass(frozen=True)
class Career:
    """Where an engineer stands on the ladder on a date."""

    engineer: Engineer
    on: dt.date
    level: int
    level_row: Level | None
    experience_months: int
    next_level: Level | None
    lacks: list[str]
    evidence: list[Evidence] = field(default_factory=list)
    # The level the ladder's rules give (level_by_rule), and what the level held's own
    # rule lacks when it is above that.
    rule_level: int | None = None
    level_lacks: list[str] = field(default_factory=list)

    @property
    def meets_next_level(self) -> bool:
        return self.next_level is not None and not self.lacks

    @property
    def level_differs(self) -> bool:
        """Return whether the level held is not the one the ladder's rules give."""
        return self.rule_level is not None and self.rule_level != self.level


def _career(
    engineer: Engineer,
    levels: dict[int, Level],
    certs: Sequence[Certification],
    evidence: Sequence[Evidence],
    changes: Sequence[LevelChange],
    on: dt.date,
) -> Career:
    level = level_on(engineer.level, changes, on)
    experience = experience_months(engineer, on)
    following = levels.get(level + 1)
    lacks = rule_lacks(following, experience, certs, evidence, on) if following else []
    return Career(
        engineer=engineer,
        on=on,
        level=level,
        level_row=levels.get(level),
        experience_months=experience,
        next_level=following,
        lacks=lacks,
        evidence=[e for e in evidence if e.occurred_on <= on],
        rule_level=level_by_rule(levels, experience, certs, evidence, on),
        level_lacks=(
            rule_lacks(levels[level], experience, certs, evidence, on) if level in levels else []
        ),
    )


def _by_engineer(rows: Iterable, ids: Iterable[int]) -> dict[int, list]:
    grouped: dict[int, list] = {i: [] for i in ids}
    for row in rows:
        grouped.setdefault(row.engineer_id, []).append(row)
    return grouped


def careers(session: Session, engineers: Sequence[Engineer], on: dt.date) -> list[Career]:
    """Return each engineer's career on `on`, loading everything in a fixed number of queries."""
    ids = [e.id for e in engineers]
    if not ids:
        return []
    levels = load_levels(session)
    certs = _by_engineer(
        session.scalars(
            select(Certification)
            .where(Certification.engineer_id.in_(ids))
            .options(selectinload(Certification.credential))
        ),
        ids,
    )
    evidence = _by_engineer(
        session.scalars(
            select(Evidence)
            .where(Evidence.engineer_id.in_(ids))
            .order_by(Evidence.occurred_on, Evidence.id)
        ),
        ids,
    )
    changes = _by_engineer(
        session.scalars(select(LevelChange).where(LevelChange.engineer_id.in_(ids))), ids
    )
    return [_career(e, levels, certs[e.id], evidence[e.id], changes[e.id], on) for e in engineers]


def career(session: Session, engineer: Engineer, on: dt.date) -> Career:
    """Return `engineer`'s level, experience, next level and what they lack for it on `on`."""
    return careers(session, [engineer], on)[0]


def managed_people(session: Session, actor: Engineer) -> list[Engineer]:
    """Return the active people whose level `actor` may set, by name (everyone for an admin)."""
    if not actor.active or actor.access_role not in MANAGER_ROLES:
        return []
    query = (
        select(Engineer)
        .where(Engineer.active.is_(True), Engineer.id != actor.id)
        .options(
            selectinload(Engineer.team),
            selectinload(Engineer.role_assignments).selectinload(JobRoleAssignment.job_role),
        )
        .order_by(func.lower(Engineer.name), Engineer.id)
    )
    if actor.access_role != "admin":
        managed_teams = select(Team.id).where(Team.manager_id == actor.id)
        query = query.where((Engineer.manager_id == actor.id) | Engineer.team_id.in_(managed_teams))
    return list(session.scalars(query))


def promotions(session: Session, actor: Engineer, on: dt.date) -> list[Career]:
    """Return the careers of `actor`'s people on `on`: those ready for promotion first."""
    people = managed_people(session, actor)
    return sorted(
        careers(session, people, on),
        key=lambda c: (not c.meets_next_level, len(c.lacks), c.engineer.name.lower()),
    )


def change_level(
    session: Session,
    engineer: Engineer,
    level: int,
    actor: Engineer,
    today: dt.date,
    *,
    via: str | None = None,
) -> LevelChange | None:
    """Set `engineer`'s level as `actor`, keeping the history (who, when, from, to).

    None when the level is already that one. Refused for one's own level.
    """
    if actor.id == engineer.id:
        raise ValidationError({"level": OWN_LEVEL_RULE})
    return set_level(session, engineer, level, actor, today, via=via)
