"""Who may see, record for or manage whom."""

from __future__ import annotations

from typing import TypeGuard

from sqlalchemy import ColumnElement, Select, false, func, or_, select, true
from sqlalchemy.orm import Session

from tracker.i18n import N_, msg
from tracker.people.models import Engineer, Team
from tracker.people.rules import MANAGER_ROLES, shown_name


def is_whole(value: object) -> TypeGuard[int]:
    """Return whether `value` is an int (and not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def manages(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `engineer` reports to `actor`, directly or through a team they manage."""
    if engineer.manager_id == actor.id:
        return True
    return engineer.team is not None and engineer.team.manager_id == actor.id


def can_view(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may read `engineer`'s records."""
    if not actor.active:
        return False
    if actor.id == engineer.id or actor.access_role == "admin":
        return True
    return actor.access_role == "manager" and manages(actor, engineer)


def can_record_results(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may record exam attempts and credentials for `engineer`."""
    return can_view(actor, engineer)


def can_log_hours(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may log, edit or delete `engineer`'s hours (owner or admin)."""
    return actor.active and (actor.id == engineer.id or actor.access_role == "admin")


def visible(actor: Engineer) -> ColumnElement[bool]:
    """Return the condition on Engineer of the people whose records `actor` may read."""
    if not actor.active:
        return false()
    if actor.access_role == "admin":
        return true()
    if actor.access_role == "manager":
        managed_teams = select(Team.id).where(Team.manager_id == actor.id)
        return or_(
            Engineer.id == actor.id,
            Engineer.manager_id == actor.id,
            Engineer.team_id.in_(managed_teams),
        )
    return Engineer.id == actor.id


def visible_ids(actor: Engineer) -> Select[tuple[int]]:
    """Return the query of the ids of the people whose records `actor` may read."""
    return select(Engineer.id).where(visible(actor))


def visible_engineers(session: Session, actor: Engineer) -> list[Engineer]:
    """Return the people whose records `actor` may read, by name."""
    if not actor.active:
        return []
    if actor.access_role not in ("admin", "manager"):
        return [actor]
    return list(session.scalars(select(Engineer).where(visible(actor)).order_by(Engineer.name)))


def resolve_manager(
    session: Session, manager_id: int | None, person: Engineer | None
) -> tuple[Engineer | None, str | None]:
    """Return the manager for `person` (None: a new person or a team), or the rule it breaks."""
    if manager_id is None:
        return None, None
    manager = session.get(Engineer, manager_id) if is_whole(manager_id) else None
    if manager is None:
        return None, msg("unknown manager (no person with id %(id)s)", id=manager_id)
    if person is not None and manager.id == person.id:
        return None, N_("a person cannot be their own manager")
    if manager.access_role not in MANAGER_ROLES:
        return None, msg(
            "%(name)s is not a manager or admin; give them the manager role first",
            name=shown_name(manager.id, manager.name),
        )
    if not manager.active:
        return None, msg(
            "%(name)s is deactivated and cannot manage anyone",
            name=shown_name(manager.id, manager.name),
        )
    if person is not None:
        seen: set[int] = set()
        boss = manager.manager
        while boss is not None and boss.id not in seen:
            if boss.id == person.id:
                return None, msg(
                    "%(manager)s reports to %(person)s; reporting lines must not loop",
                    manager=manager.name,
                    person=person.name,
                )
            seen.add(boss.id)
            boss = boss.manager
    return manager, None


def manager_candidates(session: Session) -> list[Engineer]:
    """Return the active people who may manage a team or a person (managers and admins)."""
    return list(
        session.scalars(
            select(Engineer)
            .where(Engineer.access_role.in_(MANAGER_ROLES), Engineer.active.is_(True))
            .order_by(func.lower(Engineer.name), Engineer.id)
        )
    )
