"""Teams: finding, creating and changing them; the teams overview."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from tracker.errors import ValidationError
from tracker.i18n import msg
from tracker.people.models import Engineer, Team
from tracker.people.rules import (
    GPUS_RULE,
    MAX_GPUS,
    MAX_TEAM_NAME_LENGTH,
    ONE_LINE_RULE,
    is_one_line,
)
from tracker.people.services.access import is_whole, resolve_manager


def find_team(session: Session, name: str) -> Team | None:
    """Return the team with this name (case-insensitive), if any."""
    return session.scalars(
        select(Team).where(func.lower(Team.name) == name.strip().lower())
    ).one_or_none()


def resolve_team(session: Session, team_id: int | None) -> tuple[Team | None, str | None]:
    """Return the team with this id (None for no team), or the rule it breaks."""
    if team_id is None:
        return None, None
    team = session.get(Team, team_id) if is_whole(team_id) else None
    if team is None:
        return None, msg(
            "unknown team (no team with id %(id)s); choose one of the listed teams", id=team_id
        )
    return team, None


def teams(session: Session) -> list[Team]:
    """Return every team by name."""
    return list(session.scalars(select(Team).order_by(func.lower(Team.name))))


def teams_overview(session: Session) -> list[tuple[Team, int]]:
    """Return every team by name with its number of active members."""
    # Deactivated people are in no count, as on every other page.
    members = (
        select(Engineer.team_id, func.count(Engineer.id).label("n"))
        .where(Engineer.active.is_(True))
        .group_by(Engineer.team_id)
        .subquery()
    )
    rows = session.execute(
        select(Team, func.coalesce(members.c.n, 0))
        .outerjoin(members, members.c.team_id == Team.id)
        .options(selectinload(Team.manager))
        .order_by(func.lower(Team.name))
    )
    return [(team, count) for team, count in rows.tuples()]


def _team_errors(
    session: Session, team: Team | None, name: str, gpus: object, manager_id: int | None
) -> tuple[dict[str, str], Engineer | None]:
    errors: dict[str, str] = {}
    name = name.strip()
    if not name or len(name) > MAX_TEAM_NAME_LENGTH:
        errors["name"] = msg("name must be 1 to %(max)s characters", max=MAX_TEAM_NAME_LENGTH)
    elif not is_one_line(name):
        errors["name"] = ONE_LINE_RULE
    else:
        other = find_team(session, name)
        if other is not None and other is not team:
            errors["name"] = msg("a team named %(name)r already exists", name=other.name)
    if not is_whole(gpus) or not 0 <= gpus <= MAX_GPUS:
        errors["gpus"] = GPUS_RULE
    manager = team.manager if team is not None else None
    if team is None or manager_id != team.manager_id:
        manager, problem = resolve_manager(session, manager_id, None)
        if problem:
            errors["manager"] = problem
    return errors, manager


def create_team(session: Session, name: str, gpus: int, manager_id: int | None = None) -> Team:
    """Create a team responsible for `gpus` GPUs; its manager must be an active manager or admin."""
    errors, manager = _team_errors(session, None, name, gpus, manager_id)
    if errors:
        raise ValidationError(errors)
    team = Team(name=name.strip(), gpus=gpus, manager=manager)
    session.add(team)
    session.flush()
    return team


def update_team(
    session: Session, team: Team, *, name: str, gpus: int, manager_id: int | None
) -> Team:
    """Rename a team, change its fleet size or its manager."""
    errors, manager = _team_errors(session, team, name, gpus, manager_id)
    if errors:
        raise ValidationError(errors)
    team.name = name.strip()
    team.gpus = gpus
    team.manager = manager
    session.flush()
    return team
