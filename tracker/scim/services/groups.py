"""SCIM Groups: the tracker's teams; a Group's members are the people in the team.

A person is in one team: adding them to a Group moves them from their team,
removing them leaves them in none. A DELETE takes everyone out of the team
and hides it from SCIM; the team, its fleet and its history stay.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from scim2_models import (
    Context,
    InvalidValueException,
    NotFoundException,
    PatchOp,
    Reference,
    UniquenessException,
)
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from tracker.db import held_for_change
from tracker.errors import ValidationError
from tracker.i18n import msg
from tracker.people.models import Engineer, Team
from tracker.people.services.persons import update_engineer
from tracker.people.services.teams import create_team, find_team, update_team
from tracker.scim.models import ScimGroup, ScimUser
from tracker.scim.rules import MAX_EXTERNAL_ID_LENGTH, VIA
from tracker.scim.schemas import POLICY, Group, Member, User
from tracker.scim.services.resources import patch_without_derived, refusal, stamp, utc

KIND = "Group"
USER = "User"


def visible_groups() -> Select[tuple[Team, ScimGroup]]:
    """Return the query of every team SCIM has not deleted, with what SCIM keeps of them."""
    return (
        select(Team, ScimGroup)
        .outerjoin(ScimGroup, ScimGroup.team_id == Team.id)
        .where(ScimGroup.deleted_at.is_(None))
    )


def find_group(
    session: Session, group_id: str, for_change: bool = False
) -> tuple[Team, ScimGroup | None]:
    """Return the team with this SCIM id, or raise NotFound (also when SCIM deleted it).

    `for_change`: the team is read afresh and held until the transaction ends
    (db.FOR_CHANGE), so the version a write checks is the one it replaces.
    """
    if group_id.isdigit() and len(group_id) < 10:
        query = visible_groups().where(Team.id == int(group_id))
        if for_change:
            query = held_for_change(query, Team)
        row = session.execute(query).first()
        if row is not None:
            return row[0], row[1]
    raise NotFoundException(detail=msg("no Group with id %(id)s", id=group_id))


def _members(session: Session, team: Team) -> list[Engineer]:
    """Return the team's people SCIM has not deleted, by id."""
    return list(
        session.scalars(
            select(Engineer)
            .outerjoin(ScimUser, ScimUser.engineer_id == Engineer.id)
            .where(Engineer.team_id == team.id, ScimUser.deleted_at.is_(None))
            .order_by(Engineer.id)
        )
    )


def group_resource(session: Session, team: Team, state: ScimGroup | None, base_url: str) -> Group:
    """Return the team as a SCIM Group, with its meta."""
    people = _members(session, team)
    group = Group(
        id=str(team.id),
        external_id=state.external_id if state else None,
        display_name=team.name,
        members=[
            Member(value=str(p.id), ref=Reference[User](f"{base_url}/Users/{p.id}"), type=USER)
            for p in people
        ]
        or None,
    )
    changes = [utc(team.created_at), *(utc(p.updated_at) for p in people)]
    if state is not None:
        changes.append(utc(state.updated_at))
    stamp(group, KIND, f"{base_url}/Groups/{team.id}", team.created_at, max(changes))
    return group


def read_group(payload: Any) -> Group:
    """Validate a POST or PUT body as a Group; unknown attributes are dropped."""
    if not isinstance(payload, dict):
        raise InvalidValueException(detail=msg("the body must be a JSON object"))
    return Group.model_validate(
        payload, scim_ctx=Context.RESOURCE_REPLACEMENT_REQUEST, scim_policy=POLICY
    )


def read_patch(payload: Any) -> PatchOp[Group]:
    """Validate a PATCH body for a Group."""
    return PatchOp[Group].model_validate(
        patch_without_derived(KIND, payload),
        scim_ctx=Context.RESOURCE_PATCH_REQUEST,
        scim_policy=POLICY,
    )


def _external_id(group: Group) -> str | None:
    if group.external_id is not None and len(group.external_id) > MAX_EXTERNAL_ID_LENGTH:
        raise InvalidValueException(
            detail=msg("externalId must be at most %(max)s characters", max=MAX_EXTERNAL_ID_LENGTH)
        )
    return group.external_id


def _people(session: Session, group: Group) -> list[Engineer]:
    """Return the people a Group's members name, refusing what names no visible User."""
    people: list[Engineer] = []
    for member in group.members or []:
        if member.type not in (None, USER):
            raise InvalidValueException(
                detail=msg("members: a team holds Users, not %(type)s", type=member.type)
            )
        value = member.value or ""
        row = None
        if value.isdigit() and len(value) < 10:
            row = session.execute(
                select(Engineer)
                .outerjoin(ScimUser, ScimUser.engineer_id == Engineer.id)
                .where(Engineer.id == int(value), ScimUser.deleted_at.is_(None))
            ).first()
        if row is None:
            raise InvalidValueException(
                detail=msg("members: no User with id %(id)s", id=value or "''")
            )
        if row[0] not in people:
            people.append(row[0])
    return people


def _taken(name: str) -> UniquenessException:
    return UniquenessException(detail=msg("a Group named %(name)s exists", name=name))


def create_group(
    session: Session, group: Group, today: dt.date, now: dt.datetime
) -> tuple[Team, ScimGroup]:
    """Add the team a POSTed Group describes (or bring back the one SCIM deleted), fleet 0."""
    name = (group.display_name or "").strip()
    external_id = _external_id(group)
    people = _people(session, group)
    found = find_team(session, name) if name else None
    if found is not None:
        state = session.get(ScimGroup, found.id)
        if state is None or state.deleted_at is None:
            raise _taken(found.name)
        state.deleted_at = None
        write_group(session, found, state, group, today, now)
        return found, state
    try:
        team = create_team(session, name, 0)
    except ValidationError as exc:
        raise InvalidValueException(detail=refusal(exc.errors)) from None
    state = ScimGroup(team=team, external_id=external_id)
    session.add(state)
    _set_members(session, team, people, today)
    session.flush()
    return team, state


def _set_members(session: Session, team: Team, people: list[Engineer], today: dt.date) -> bool:
    """Make `people` the team's visible members: move them in, the others out."""
    changed = False
    wanted = {p.id for p in people}
    for person in _members(session, team):
        if person.id not in wanted:
            update_engineer(session, person, None, today, team_id=None, via=VIA)
            changed = True
    for person in people:
        if person.team_id != team.id:
            update_engineer(session, person, None, today, team_id=team.id, via=VIA)
            changed = True
    return changed


def write_group(
    session: Session,
    team: Team,
    state: ScimGroup | None,
    group: Group,
    today: dt.date,
    now: dt.datetime,
) -> ScimGroup:
    """Make the team what a Group says (PUT, or a patched copy), through the people services."""
    name = (group.display_name or "").strip()
    external_id = _external_id(group)
    people = _people(session, group)
    other = find_team(session, name) if name else None
    if other is not None and other.id != team.id:
        raise _taken(other.name)
    if name != team.name:
        try:
            update_team(session, team, name=name, gpus=team.gpus, manager_id=team.manager_id)
        except ValidationError as exc:
            raise InvalidValueException(detail=refusal(exc.errors)) from None
    if state is None:
        state = ScimGroup(team=team)
        session.add(state)
    moved = _set_members(session, team, people, today)
    if state.external_id != external_id or moved:
        state.external_id = external_id
        # Moving people changes the Group without writing its row.
        state.updated_at = now
    session.flush()
    return state


def patch_group(
    session: Session,
    team: Team,
    state: ScimGroup | None,
    patch: PatchOp[Group],
    base_url: str,
    today: dt.date,
    now: dt.datetime,
) -> ScimGroup | None:
    """Apply a PATCH (RFC 7644 §3.5.2) to the team: to its Group, then through the services."""
    group = group_resource(session, team, state, base_url)
    if not patch.patch(group, scim_policy=POLICY):
        return state
    return write_group(session, team, state, group, today, now)


def delete_group(
    session: Session, team: Team, state: ScimGroup | None, now: dt.datetime, today: dt.date
) -> None:
    """Take everyone out of the team and hide it from SCIM; the team stays."""
    _set_members(session, team, [], today)
    if state is None:
        state = ScimGroup(team=team)
        session.add(state)
    state.deleted_at = now
    session.flush()
