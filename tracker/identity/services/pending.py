"""Sign-ins under way: each one's state, nonce and PKCE verifier, used once and soon."""

from __future__ import annotations

import datetime as dt
import secrets

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from tracker.identity.models import SignInRequest
from tracker.identity.rules import MAX_NEXT_LENGTH, SIGN_IN_LIFETIME
from tracker.identity.services.refusals import SignInRefused


def begin_sign_in(session: Session, *, now: dt.datetime, next_path: str = "") -> SignInRequest:
    """Start a sign-in: fresh random state, nonce and verifier; forget the long-expired ones."""
    session.execute(delete(SignInRequest).where(SignInRequest.created_at < now - SIGN_IN_LIFETIME))
    request = SignInRequest(
        state=secrets.token_urlsafe(32),
        nonce=secrets.token_urlsafe(32),
        # RFC 7636: 43 to 128 characters of the unreserved set; 86 here.
        code_verifier=secrets.token_urlsafe(64),
        next_path=next_path if len(next_path) <= MAX_NEXT_LENGTH else "",
        created_at=now,
    )
    session.add(request)
    session.flush()
    return request


def finish_sign_in(session: Session, state: str, *, now: dt.datetime) -> SignInRequest:
    """Mark the sign-in of `state` used and return it; raise SignInRefused if it cannot be.

    One statement marks it, so two answers with one state (a replay, or two
    workers at once) find it unused only once.
    """
    marked = session.execute(
        update(SignInRequest)
        .where(
            SignInRequest.state == state,
            SignInRequest.used_at.is_(None),
            SignInRequest.created_at >= now - SIGN_IN_LIFETIME,
        )
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    if marked.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's CursorResult
        raise SignInRefused("state", "state_used_or_expired")
    return session.scalars(
        select(SignInRequest)
        .where(SignInRequest.state == state)
        .execution_options(populate_existing=True)
    ).one()
