"""Who may hold which access role: the checks a change of role or of state must pass."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tracker.i18n import N_, join, msg
from tracker.people.models import Engineer, Team
from tracker.people.rules import ACCESS_ROLE_RULE, ACCESS_ROLES, LAST_ADMIN_RULE, MANAGER_ROLES


def reports(session: Session, engineer: Engineer) -> list[str]:
    """Name what `engineer` manages: teams and people."""
    team_names = session.scalars(
        select(Team.name).where(Team.manager_id == engineer.id).order_by(Team.name)
    ).all()
    people_names = session.scalars(
        select(Engineer.name).where(Engineer.manager_id == engineer.id).order_by(Engineer.name)
    ).all()
    return [msg("team %(name)s", name=n) for n in team_names] + list(people_names)


def access_role_error(
    session: Session, engineer: Engineer, actor: Engineer | None, role: object
) -> str | None:
    """Return why `actor` may not give `engineer` the access role `role`, or None."""
    if role not in ACCESS_ROLES:
        return ACCESS_ROLE_RULE
    if actor is not None and actor.id == engineer.id and role != engineer.access_role:
        return N_("you cannot change your own access role; ask another admin to do it")
    if role not in MANAGER_ROLES and engineer.access_role in MANAGER_ROLES:
        managed = reports(session, engineer)
        if managed:
            return msg(
                "%(name)s manages %(managed)s; "
                "choose other managers for them before removing the manager role",
                name=engineer.name,
                managed=join(managed, ", "),
            )
    if role != "admin" and engineer.access_role == "admin":
        return last_admin_error(session, engineer)
    return None


def last_admin_error(session: Session, engineer: Engineer) -> str | None:
    """Refuse to take away the last active admin (by demotion or deactivation)."""
    if engineer.access_role != "admin" or not engineer.active:
        return None
    others = session.scalar(
        select(func.count())
        .select_from(Engineer)
        .where(Engineer.access_role == "admin", Engineer.active, Engineer.id != engineer.id)
    )
    return LAST_ADMIN_RULE if not others else None
