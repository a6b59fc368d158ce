"""Provisioning tokens: created with a secret shown once, stored hashed, revoked at once."""

from __future__ import annotations

import datetime as dt
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.people.services.accounts import TOKEN_USE_PRECISION, token_hash
from tracker.scim.models import ScimToken
from tracker.scim.rules import MAX_SCIM_TOKEN_NAME_LENGTH, SCIM_TOKEN_PREFIX


def create_scim_token(session: Session, name: str = "") -> tuple[ScimToken, str]:
    """Create a provisioning token; return it with its secret, which is shown once."""
    secret = SCIM_TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ScimToken(name=name.strip()[:MAX_SCIM_TOKEN_NAME_LENGTH], token_hash=token_hash(secret))
    session.add(token)
    session.flush()
    return token, secret


def scim_tokens(session: Session) -> list[ScimToken]:
    """Return every provisioning token, oldest first."""
    return list(session.scalars(select(ScimToken).order_by(ScimToken.id)))


def live_scim_token(session: Session, secret: str, now: dt.datetime) -> ScimToken | None:
    """Return the unrevoked token with this secret, recording its use to the minute."""
    token = session.scalars(
        select(ScimToken).where(
            ScimToken.token_hash == token_hash(secret), ScimToken.revoked_at.is_(None)
        )
    ).one_or_none()
    if token is not None and (
        token.last_used_at is None or not now - TOKEN_USE_PRECISION < token.last_used_at <= now
    ):
        token.last_used_at = now
        session.flush()
    return token


def revoke_scim_token(session: Session, token: ScimToken, now: dt.datetime) -> None:
    """Revoke a provisioning token; it stops working at once."""
    if token.revoked_at is None:
        token.revoked_at = now
        session.flush()
