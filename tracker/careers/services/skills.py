"""Specialities: proficiency assessments, their confirmation, and a team's coverage."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from tracker.careers.models import SkillAssessment
from tracker.careers.rules import (
    HELD_AT,
    MAX_PROFICIENCY,
    MIN_PROFICIENCY,
    PROFICIENCY_RANGE,
    is_whole,
)
from tracker.catalog.models.skills import Speciality
from tracker.errors import ValidationError
from tracker.i18n import N_, msg
from tracker.people.models import Engineer, Team
from tracker.people.services.access import can_view


def can_assess(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may write `engineer`'s proficiency (self, manager, admin)."""
    return can_view(actor, engineer)


def specialities(session: Session) -> list[Speciality]:
    """Return the catalog's specialities: established ones first, in catalog order."""
    return list(session.scalars(select(Speciality).order_by(Speciality.emerging, Speciality.id)))


def find_speciality(session: Session, code: str) -> Speciality | None:
    """Return the speciality with this code (case-insensitive), if any."""
    return session.scalars(
        select(Speciality).where(func.lower(Speciality.code) == code.strip().lower())
    ).one_or_none()


def _proficiency_error(value: object) -> str | None:
    if not is_whole(value) or not MIN_PROFICIENCY <= value <= MAX_PROFICIENCY:
        return msg("level must be a whole number %(range)s", range=PROFICIENCY_RANGE)
    return None


def assess(
    session: Session,
    engineer: Engineer,
    speciality: Speciality,
    proficiency: int,
    actor: Engineer,
) -> SkillAssessment:
    """Record a proficiency; the engineer's own is self-assessed, anyone else's confirmed.

    The caller checks that `actor` may (can_assess). A new row is written every
    time, so the history stays; the newest row counts.
    """
    if problem := _proficiency_error(proficiency):
        raise ValidationError({"level": problem})
    row = SkillAssessment(
        engineer_id=engineer.id,
        speciality_id=speciality.id,
        proficiency=proficiency,
        assessed_by_id=actor.id,
        confirmed=actor.id != engineer.id,
    )
    session.add(row)
    session.flush()
    return row


def current_assessment(
    session: Session, engineer_id: int, speciality_id: int
) -> SkillAssessment | None:
    """Return the newest assessment of one speciality for one engineer."""
    return session.scalars(
        select(SkillAssessment)
        .where(
            SkillAssessment.engineer_id == engineer_id,
            SkillAssessment.speciality_id == speciality_id,
        )
        .order_by(SkillAssessment.id.desc())
        .limit(1)
    ).first()


def confirm(
    session: Session, engineer: Engineer, speciality: Speciality, actor: Engineer
) -> SkillAssessment:
    """Confirm the current proficiency as the engineer's manager (a confirmed row, same level)."""
    if actor.id == engineer.id:
        raise ValidationError({"speciality": N_("your manager confirms your proficiency, not you")})
    latest = current_assessment(session, engineer.id, speciality.id)
    if latest is None:
        raise ValidationError(
            {
                "speciality": msg(
                    "%(name)s has no proficiency in %(speciality)s to confirm",
                    name=engineer.name,
                    speciality=speciality.name,
                )
            }
        )
    if latest.confirmed:
        return latest
    return assess(session, engineer, speciality, latest.proficiency, actor)


def current_skills(
    session: Session, engineer_ids: Iterable[int]
) -> dict[int, dict[int, SkillAssessment]]:
    """Return engineer id -> speciality id -> the newest assessment, in one query."""
    ids = list(engineer_ids)
    result: dict[int, dict[int, SkillAssessment]] = {i: {} for i in ids}
    if not ids:
        return result
    rows = session.scalars(
        select(SkillAssessment)
        .where(SkillAssessment.engineer_id.in_(ids))
        .options(selectinload(SkillAssessment.speciality))
        .order_by(SkillAssessment.id)
    )
    for row in rows:
        result[row.engineer_id][row.speciality_id] = row
    return result


def skill_history(session: Session, engineer_id: int) -> list[SkillAssessment]:
    """Return every assessment of an engineer, newest first, with who assessed."""
    return list(
        session.scalars(
            select(SkillAssessment)
            .where(SkillAssessment.engineer_id == engineer_id)
            .options(selectinload(SkillAssessment.speciality))
            .order_by(SkillAssessment.id.desc())
        )
    )


def assessors(session: Session, rows: Iterable[SkillAssessment]) -> dict[int, Engineer]:
    """Return the people who made these assessments, by id."""
    ids = {r.assessed_by_id for r in rows if r.assessed_by_id is not None}
    if not ids:
        return {}
    return {e.id: e for e in session.scalars(select(Engineer).where(Engineer.id.in_(ids)))}


@dataclass(frozen=True)
class SpecialityCoverage:
    """Who in a team holds one speciality, at what proficiency."""

    speciality: Speciality
    # (engineer, newest assessment or None), in the team's order.
    cells: list[tuple[Engineer, SkillAssessment | None]]

    @property
    def holders(self) -> list[Engineer]:
        """Return the members at HELD_AT or above."""
        return [e for e, a in self.cells if a is not None and a.proficiency >= HELD_AT]

    @property
    def single_point_of_failure(self) -> bool:
        return len(self.holders) == 1

    @property
    def uncovered(self) -> bool:
        return not self.holders


@dataclass(frozen=True)
class Coverage:
    """A team's specialities by people."""

    team: Team
    members: list[Engineer]
    rows: list[SpecialityCoverage]

    @property
    def single_points_of_failure(self) -> list[Speciality]:
        return [r.speciality for r in self.rows if r.single_point_of_failure]

    @property
    def uncovered(self) -> list[Speciality]:
        return [r.speciality for r in self.rows if r.uncovered]


def team_coverage(session: Session, team: Team) -> Coverage:
    """Return the proficiency of each active member in each speciality (the newest row counts).

    A speciality only one member holds at 3 or above is a single point of
    failure; one nobody holds at 3 or above is uncovered.
    """
    members = list(
        session.scalars(
            select(Engineer)
            .where(Engineer.team_id == team.id, Engineer.active.is_(True))
            .order_by(func.lower(Engineer.name), Engineer.id)
        )
    )
    skills = current_skills(session, [m.id for m in members])
    rows = [
        SpecialityCoverage(s, [(m, skills[m.id].get(s.id)) for m in members])
        for s in specialities(session)
    ]
    return Coverage(team, members, rows)
