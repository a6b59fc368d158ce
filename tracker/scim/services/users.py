"""SCIM Users: the tracker's people, read and written through the people services.

userName is the person's e-mail address; name.formatted their name;
active whether they may sign in. A DELETE deactivates the person and hides
them from SCIM; their history stays. Creating a user with the e-mail of one
SCIM deleted brings that person back (a rehire keeps their record).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from scim2_models import (
    Context,
    InvalidValueException,
    NotFoundException,
    PatchOp,
    UniquenessException,
)
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from tracker.db import held_for_change
from tracker.errors import ValidationError
from tracker.i18n import msg
from tracker.people.models import Engineer
from tracker.people.services.checks import normalise_email
from tracker.people.services.persons import create_person, set_active, set_identity
from tracker.people.services.reads import find_engineer
from tracker.scim.models import ScimUser
from tracker.scim.rules import MAX_EXTERNAL_ID_LENGTH, VIA
from tracker.scim.schemas import POLICY, WORK, Email, Name, User
from tracker.scim.services.resources import (
    field,
    patch_without_derived,
    refusal,
    stamp,
    without_derived,
)
from tracker.signals import erasing_person

KIND = "User"


def visible_users() -> Select[tuple[Engineer, ScimUser]]:
    """Return the query of every person SCIM has not deleted, with what SCIM keeps of them."""
    return (
        select(Engineer, ScimUser)
        .outerjoin(ScimUser, ScimUser.engineer_id == Engineer.id)
        .where(ScimUser.deleted_at.is_(None))
    )


def find_user(
    session: Session, user_id: str, for_change: bool = False
) -> tuple[Engineer, ScimUser | None]:
    """Return the person with this SCIM id, or raise NotFound (also when SCIM deleted them).

    `for_change`: the person is read afresh and held until the transaction ends
    (db.FOR_CHANGE), so the version a write checks is the one it replaces.
    """
    if user_id.isdigit() and len(user_id) < 10:
        query = visible_users().where(Engineer.id == int(user_id))
        if for_change:
            query = held_for_change(query, Engineer)
        row = session.execute(query).first()
        if row is not None:
            return row[0], row[1]
    raise NotFoundException(detail=msg("no User with id %(id)s", id=user_id))


def user_resource(engineer: Engineer, state: ScimUser | None, base_url: str) -> User:
    """Return the person as a SCIM User, with its meta."""
    user = User(
        id=str(engineer.id),
        external_id=state.external_id if state else None,
        user_name=engineer.email,
        name=Name(formatted=engineer.name),
        display_name=engineer.name,
        emails=[Email(value=engineer.email, type=WORK, primary=True)],
        active=engineer.active,
    )
    modified = max(engineer.updated_at, state.updated_at) if state else engineer.updated_at
    stamp(user, KIND, f"{base_url}/Users/{engineer.id}", engineer.created_at, modified)
    return user


def read_user(payload: Any, *, active: bool) -> User:
    """Validate a POST or PUT body as a User; derived and unknown attributes are dropped.

    name.formatted, when left out, is taken from displayName, else from
    name.givenName and name.familyName; `active` when left out is `active`
    (true for a new user, the person's state for a replacement).
    """
    if not isinstance(payload, dict):
        raise InvalidValueException(detail=msg("the body must be a JSON object"))
    payload = dict(payload)
    name = field(payload, "name")
    if not isinstance(name, dict) or not field(name, "formatted"):
        given = " ".join(
            str(part)
            for part in (field(name, "givenName"), field(name, "familyName"))
            if isinstance(part, str) and part.strip()
        )
        formatted = field(payload, "displayName") or given
        if formatted:
            payload = {k: v for k, v in payload.items() if k.lower() != "name"}
            payload["name"] = {"formatted": formatted}
    if field(payload, "active") is None:
        payload["active"] = active
    return User.model_validate(
        without_derived(KIND, payload),
        scim_ctx=Context.RESOURCE_REPLACEMENT_REQUEST,
        scim_policy=POLICY,
    )


def read_patch(payload: Any) -> PatchOp[User]:
    """Validate a PATCH body for a User; operations on derived attributes are dropped."""
    return PatchOp[User].model_validate(
        patch_without_derived(KIND, payload),
        scim_ctx=Context.RESOURCE_PATCH_REQUEST,
        scim_policy=POLICY,
    )


def _email(user: User) -> str:
    try:
        return normalise_email(user.user_name or "")
    except ValidationError as exc:
        raise InvalidValueException(detail=refusal(exc.errors)) from None


def _external_id(user: User) -> str | None:
    if user.external_id is not None and len(user.external_id) > MAX_EXTERNAL_ID_LENGTH:
        raise InvalidValueException(
            detail=msg("externalId must be at most %(max)s characters", max=MAX_EXTERNAL_ID_LENGTH)
        )
    return user.external_id


def _taken(email: str) -> UniquenessException:
    return UniquenessException(detail=msg("a User with userName %(email)s exists", email=email))


def _set_active(session: Session, engineer: Engineer, active: bool) -> None:
    """Activate or deactivate through the people services; their refusal is SCIM's."""
    try:
        set_active(session, engineer, active, via=VIA)
    except ValidationError as exc:
        raise InvalidValueException(detail=refusal(exc.errors)) from None


def create_user(session: Session, user: User, today: dt.date) -> tuple[Engineer, ScimUser]:
    """Add the person a POSTed User describes (or bring back the one SCIM deleted)."""
    email = _email(user)
    external_id = _external_id(user)
    found = find_engineer(session, email)
    if found is not None:
        state = session.get(ScimUser, found.id)
        if state is None or state.deleted_at is None:
            raise _taken(email)
        state.deleted_at = None
        write_user(session, found, state, user)
        return found, state
    try:
        engineer = create_person(
            session,
            email=email,
            name=user.name.formatted or "" if user.name else "",
            today=today,
            via=VIA,
        )
    except ValidationError as exc:
        raise InvalidValueException(detail=refusal(exc.errors)) from None
    state = ScimUser(engineer=engineer, external_id=external_id)
    session.add(state)
    if user.active is False:
        _set_active(session, engineer, False)
    session.flush()
    return engineer, state


def write_user(
    session: Session, engineer: Engineer, state: ScimUser | None, user: User
) -> ScimUser:
    """Make the person what a User says (PUT, or a patched copy), through the people services."""
    email = _email(user)
    external_id = _external_id(user)
    name = user.name.formatted if user.name and user.name.formatted else engineer.name
    other = find_engineer(session, email)
    if other is not None and other.id != engineer.id:
        raise _taken(email)
    if email != engineer.email or name != engineer.name:
        try:
            set_identity(session, engineer, email=email, name=name, via=VIA)
        except ValidationError as exc:
            raise InvalidValueException(detail=refusal(exc.errors)) from None
    if user.active is not None:
        _set_active(session, engineer, user.active)
    if state is None:
        state = ScimUser(engineer=engineer)
        session.add(state)
    if state.external_id != external_id:
        state.external_id = external_id
    session.flush()
    return state


def patch_user(
    session: Session,
    engineer: Engineer,
    state: ScimUser | None,
    patch: PatchOp[User],
    base_url: str,
) -> ScimUser | None:
    """Apply a PATCH (RFC 7644 §3.5.2) to the person: to their User, then through the services."""
    user = user_resource(engineer, state, base_url)
    if not patch.patch(user, scim_policy=POLICY):
        return state
    return write_user(session, engineer, state, user)


def delete_user(
    session: Session, engineer: Engineer, state: ScimUser | None, now: dt.datetime
) -> None:
    """Deactivate the person and hide them from SCIM; their records stay."""
    _set_active(session, engineer, False)
    if state is None:
        state = ScimUser(engineer=engineer)
        session.add(state)
    state.deleted_at = now
    session.flush()


__all__ = [
    "create_user",
    "delete_user",
    "find_user",
    "patch_user",
    "read_patch",
    "read_user",
    "user_resource",
    "visible_users",
    "write_user",
]


@erasing_person.connect
def _forget_external_id(engineer: Engineer, session: Session, **_: object) -> None:
    """Forget the identity provider's id of a person being erased: it names them there."""
    state = session.get(ScimUser, engineer.id)
    if state is not None:
        state.external_id = None
