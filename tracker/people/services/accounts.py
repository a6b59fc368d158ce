"""Accounts: passwords, signing in, API tokens."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from collections.abc import Collection

from sqlalchemy import Date, bindparam, or_, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from tracker.errors import ValidationError
from tracker.i18n import day, join, msg
from tracker.people.models import ApiToken, Engineer
from tracker.people.rules import (
    MAX_TOKEN_LIFETIME_DAYS,
    MAX_TOKEN_NAME_LENGTH,
    MIN_PASSWORD_LENGTH,
    PASSWORD_LENGTH_RULE,
    TOKEN_EXPIRY_RULE,
    TOKEN_SCOPE_RULE,
    TOKEN_SCOPES,
    WRITE_SCOPE,
)

# A memory-hard key-derivation function; the test suite swaps in a cheap one.
PASSWORD_METHOD = "scrypt"

# A token's last use is recorded to the minute: writing it on every call
# would add an UPDATE to every API request.
TOKEN_USE_PRECISION = dt.timedelta(minutes=1)


def hash_password(password: str) -> str:
    """Return a salted scrypt hash of the password."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationError({"password": PASSWORD_LENGTH_RULE})
    return generate_password_hash(password, method=PASSWORD_METHOD)


def verify_password(engineer: Engineer | None, password: str) -> bool:
    """Check a password; spend the same time whether or not the account exists."""
    if engineer is None or not engineer.password_hash:
        check_password_hash(_DUMMY_HASH, password)
        return False
    return check_password_hash(engineer.password_hash, password)


def authenticate(session: Session, email: str, password: str) -> Engineer | None:
    """Return the active engineer with this email and password, or None (never says which)."""
    # reads.find_engineer's lookup: persons hashes passwords with this module.
    engineer = session.scalars(
        select(Engineer).where(Engineer.email == email.strip().lower())
    ).one_or_none()
    if not verify_password(engineer, password) or engineer is None or not engineer.active:
        return None
    return engineer


# Built once and kept: every signed-in request reads its engineer (see tracker.db.plain_rows).
_SIGNED_IN = select(Engineer).where(
    Engineer.id == bindparam("id"),
    Engineer.active.is_(True),
    Engineer.session_epoch == bindparam("epoch"),
)


def signed_in_engineer(session: Session, engineer_id: int, epoch: int) -> Engineer | None:
    """Return the active engineer of a session, if the session's epoch is still theirs."""
    found: Engineer | None = session.execute(
        _SIGNED_IN, {"id": engineer_id, "epoch": epoch}
    ).scalar_one_or_none()
    return found


def set_password(session: Session, engineer: Engineer, password: str) -> None:
    """Set a new password and end every session signed in with the old one."""
    engineer.password_hash = hash_password(password)
    engineer.session_epoch += 1
    session.flush()


def token_hash(token: str) -> str:
    """Return the stored form of a token's secret."""
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(
    session: Session,
    engineer: Engineer,
    name: str = "",
    scope: str = WRITE_SCOPE,
    expires_on: dt.date | None = None,
    today: dt.date | None = None,
) -> tuple[ApiToken, str]:
    """Create an API token; return it with its secret, which is shown once and stored hashed.

    A token with `expires_on` works through that day; the date must be from
    `today`, which is then required, to MAX_TOKEN_LIFETIME_DAYS after it.
    """
    errors: dict[str, str] = {}
    if scope not in TOKEN_SCOPES:
        errors["scope"] = TOKEN_SCOPE_RULE
    if len(name.strip()) > MAX_TOKEN_NAME_LENGTH:
        # Cut, two tokens' names could end alike: the owner could not tell them apart.
        errors["name"] = msg("name must be at most %(most)s characters", most=MAX_TOKEN_NAME_LENGTH)
    if expires_on is not None:
        if today is None:
            raise TypeError("create_token needs today to check an expiry date")
        latest = today + dt.timedelta(days=MAX_TOKEN_LIFETIME_DAYS)
        if expires_on < today:
            errors["expires_on"] = join([TOKEN_EXPIRY_RULE, f"({today.isoformat()})"], " ")
        elif expires_on > latest:
            errors["expires_on"] = msg(
                "the expiry date must be at most %(days)s days after today (%(latest)s);"
                " leave it out for a token that works until it is revoked",
                days=MAX_TOKEN_LIFETIME_DAYS,
                latest=day(latest),
            )
    if errors:
        raise ValidationError(errors)
    secret = "trk_" + secrets.token_urlsafe(32)
    token = ApiToken(
        engineer=engineer,
        name=name.strip(),
        token_hash=token_hash(secret),
        scope=scope,
        expires_on=expires_on,
    )
    session.add(token)
    session.flush()
    return token, secret


def expired(token: ApiToken, today: dt.date) -> bool:
    """Return whether a token's expiry day is past: it works through that day."""
    return token.expires_on is not None and token.expires_on < today


# expired()'s rule as the API's token lookup asks it, for the date bound to :today.
UNEXPIRED = or_(
    ApiToken.__table__.c.expires_on.is_(None),
    ApiToken.__table__.c.expires_on >= bindparam("today", type_=Date),
)


def revoke_token(session: Session, token: ApiToken, now: dt.datetime) -> None:
    """Revoke a token; it stops working at once."""
    if token.revoked_at is None:
        token.revoked_at = now
        session.flush()


_DUMMY_HASH = generate_password_hash("not a real password", method="scrypt")


def password_allowed(
    email: str,
    *,
    local_login: bool,
    break_glass: Collection[str],
    engineer: Engineer | None = None,
) -> bool:
    """Return whether a password may sign this address in.

    With local sign-in on, anyone's may. Off (single sign-on only), only a
    break-glass admin's: an address listed in `break_glass` whose account, once
    known (`engineer`), is an admin's.
    """
    if local_login:
        return True
    listed = email.strip().lower() in break_glass
    return listed and (engineer is None or engineer.is_admin)
