"""Who calls the API: the owner of a live bearer token, found with one Core statement.

Every API request looks its token up (nothing is cached, so a revoked token or
a deactivated account stops working at once); the lookup reads only the
columns the API needs, without loading ORM objects. The views that need the
caller's full account load it on first use (views.caller()).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from tracker.people.models import ApiToken, Engineer
from tracker.people.services import TOKEN_USE_PRECISION, _token_hash

_tokens = ApiToken.__table__
_engineers = Engineer.__table__

_LIVE_TOKEN = (
    select(
        _tokens.c.id,
        _tokens.c.last_used_at,
        _engineers.c.id,
        _engineers.c.name,
        _engineers.c.access_role,
        _engineers.c.hired_on,
    )
    .select_from(_tokens.join(_engineers, _engineers.c.id == _tokens.c.engineer_id))
    .where(
        _tokens.c.token_hash == bindparam("token_hash"),
        _tokens.c.revoked_at.is_(None),
        _engineers.c.active.is_(True),
    )
)
_RECORD_USE = (
    update(_tokens)
    .where(_tokens.c.id == bindparam("token_id"))
    .values(last_used_at=bindparam("now"))
)


@dataclass(frozen=True)
class Caller:
    """The active engineer a live token belongs to: what permission checks read."""

    id: int
    name: str
    access_role: str
    hired_on: dt.date | None
    active: bool = True


def caller_for_token(session: Session, secret: str, now: dt.datetime) -> Caller | None:
    """Return the active engineer a live token belongs to, recording its use to the minute.

    The same answer as people.services.engineer_for_token, in one statement
    (two when the token's last use is more than a minute old).
    """
    connection = session.connection()
    row = connection.execute(_LIVE_TOKEN, {"token_hash": _token_hash(secret)}).first()
    if row is None:
        return None
    token_id, last_used_at, engineer_id, name, access_role, hired_on = row
    if last_used_at is None or not (now - TOKEN_USE_PRECISION < last_used_at <= now):
        connection.execute(_RECORD_USE, {"token_id": token_id, "now": now})
    return Caller(engineer_id, name, access_role, hired_on)
