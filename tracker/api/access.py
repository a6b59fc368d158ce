"""Which records a request names and whether the caller may reach them: 404, 400 or 403."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import request

from tracker.api.auth import READ_METHODS, caller
from tracker.api.errors import ApiError
from tracker.api.inputs import validated
from tracker.db import MAX_ID, get_for_change
from tracker.extensions import db_session
from tracker.i18n import N_, msg
from tracker.people.models import Engineer, Team
from tracker.people.rules import MANAGER_ROLES
from tracker.people.schemas import EngineerField
from tracker.people.services.access import can_view
from tracker.readiness.services.team import can_view_team

R = TypeVar("R")

NOT_YOURS = N_("you may not see this engineer's records")


def get_record(model: type[R], record_id: int | None, for_change: bool = False) -> R | None:
    """Return the record of `model` with `record_id`, or None (an id out of range names none).

    `for_change`: the record is read to be changed, and held until the request
    commits (db.get_for_change), so the version a write checks is the one it replaces.
    """
    if record_id is None or not 1 <= record_id <= MAX_ID:
        return None
    if for_change:
        return get_for_change(db_session(), model, record_id)
    return db_session().get(model, record_id)


def writes() -> bool:
    """Return whether the request may change the record its URL names (not GET, HEAD, OPTIONS)."""
    return request.method not in READ_METHODS


def engineer_in_url(engineer_id: int) -> Engineer:
    """Return the engineer the URL names when the caller may see their records."""
    engineer = get_record(Engineer, engineer_id, for_change=writes())
    if engineer is None:
        raise ApiError(404, {"engineer": msg("no engineer with id %(id)s", id=engineer_id)})
    if not can_view(caller(), engineer):
        raise ApiError(403, {"engineer": NOT_YOURS})
    return engineer


def engineer_in_query(engineer_id: int | None) -> Engineer:
    """Return the engineer of ?engineer=ID (the caller when absent)."""
    return caller() if engineer_id is None else engineer_in_url(engineer_id)


def engineer_in_body(
    data: dict[str, Any], allowed: Callable[[Engineer, Engineer], bool], action: str
) -> Engineer:
    """Return the engineer a write is for: `engineer` in the body, else the caller.

    `action` names the write in a refusal ("you may not ACTION for this engineer"):
    a text marked with N_, so that it is translated with the message.
    """
    engineer_id = validated(EngineerField, data).engineer
    if engineer_id is None:
        engineer = caller()
    else:
        # Held: what the write checks of them (their hire date...) is what commits with it.
        found = get_record(Engineer, engineer_id, for_change=writes())
        if found is None:
            raise ApiError(400, {"engineer": msg("no engineer with id %(id)s", id=engineer_id)})
        engineer = found
    if not allowed(caller(), engineer):
        raise ApiError(
            403, {"engineer": msg("you may not %(action)s for this engineer", action=action)}
        )
    return engineer


TEAM_READINESS = N_("team readiness is for managers and admins")


def managers_only(refusal: str = TEAM_READINESS) -> None:
    """Answer 403 with `refusal` (what is for managers and admins) to anyone else."""
    if caller().access_role not in MANAGER_ROLES:
        raise ApiError(403, {"engineer": refusal})


def team_in_url(team_id: int) -> Team:
    team = get_record(Team, team_id, for_change=writes())
    if team is None:
        raise ApiError(404, {"team": msg("no team with id %(id)s", id=team_id)})
    if not can_view_team(caller(), team):
        raise ApiError(
            403, {"team": N_("only the team's manager or an admin may see its readiness")}
        )
    return team
