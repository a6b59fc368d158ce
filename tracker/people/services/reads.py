"""Reading people: by email, the overview, the catalog's job roles and levels, a level history."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from tracker.catalog.models.levels import Level
from tracker.catalog.models.skills import JobRole
from tracker.db import held_for_change
from tracker.people.models import Engineer, JobRoleAssignment, LevelChange


def find_engineer(session: Session, email: str, for_change: bool = False) -> Engineer | None:
    """Return the engineer with this email (case-insensitive), if any; held `for_change`."""
    # Held: read afresh and kept until the transaction ends (db.FOR_CHANGE), so
    # what a write checks of the person is what it changes.
    query = select(Engineer).where(Engineer.email == email.strip().lower())
    if for_change:
        query = held_for_change(query, Engineer)
    return session.scalars(query).one_or_none()


def people_overview(session: Session) -> list[Engineer]:
    """Return every person by name, with team, manager and job roles loaded."""
    return list(
        session.scalars(
            select(Engineer)
            .options(
                selectinload(Engineer.team),
                selectinload(Engineer.manager),
                selectinload(Engineer.role_assignments).selectinload(JobRoleAssignment.job_role),
            )
            .order_by(func.lower(Engineer.name), Engineer.id)
        )
    )


def job_roles(session: Session) -> list[JobRole]:
    """Return the job roles a person may hold."""
    return list(session.scalars(select(JobRole).order_by(JobRole.id)))


def levels(session: Session) -> list[Level]:
    """Return the ladder's levels, lowest first."""
    return list(session.scalars(select(Level).order_by(Level.number)))


def level_history(session: Session, engineer: Engineer) -> list[LevelChange]:
    """Return the level changes of a person, newest first."""
    return list(
        session.scalars(
            select(LevelChange)
            .where(LevelChange.engineer_id == engineer.id)
            .options(selectinload(LevelChange.changed_by))
            .order_by(LevelChange.changed_on.desc(), LevelChange.id.desc())
        )
    )
