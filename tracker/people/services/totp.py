"""Two-step sign-in: TOTP secrets (RFC 6238), each time step used once, recovery codes.

The functions take the instant they judge (`now`, naive UTC as the clock gives
it) and flush; the request or command commits. A refused code raises
CodeRefused, whose `reason` the account trail keeps.

Secrets are stored encrypted with a key derived from the deployment's secret
key (`secret_key`, which the caller passes), so that a database dump alone
gives no codes. A row stored before that holds the plain base32 secret: it
still signs in, and is encrypted at its next right code (or by
`rekey_secrets`). So is one encrypted under a key since replaced, which
opens while that key is one of the fallbacks (`keys`).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import logging
import re
import secrets
from dataclasses import dataclass, field

import pyotp
import segno
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session

from tracker.audit.accounts import record_account_event
from tracker.config import SecretKeys
from tracker.errors import ValidationError
from tracker.people.models import Engineer, RecoveryCode
from tracker.people.rules import (
    RECOVERY_CODE_ALPHABET,
    RECOVERY_CODE_COUNT,
    RECOVERY_CODE_GROUP,
    RECOVERY_CODE_RULE,
    TOTP_CODE_RULE,
    TOTP_DIGITS,
    TOTP_ENCRYPTION_INFO,
    TOTP_INTERVAL_SECONDS,
    TOTP_ISSUER,
    TOTP_REQUIRED_ROLES,
    TOTP_SECRET_LENGTH,
    TOTP_UNREADABLE_RULE,
    TOTP_VALID_WINDOW,
)

log = logging.getLogger(__name__)

# A plain secret is base32 (upper case); a Fernet token never is: it starts "gAAAAA".
_PLAIN_SECRET = re.compile(r"[A-Z2-7]+=*")


class CodeRefused(ValidationError):
    """A second-step code that does not sign in; `reason` is a key of SIGN_IN_REFUSALS."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__({"code": message})
        self.reason = reason


class SecretUnreadable(Exception):
    """A stored secret that neither the secret key nor a fallback decrypts (changed since)."""


# --- storing -----------------------------------------------------------------


def _fernet(secret_key: str) -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=TOTP_ENCRYPTION_INFO).derive(
        secret_key.encode()
    )
    return Fernet(base64.urlsafe_b64encode(key))


def encrypt_secret(secret: str, secret_key: str) -> str:
    """Return the stored form of a TOTP secret: a Fernet token under the secret key's TOTP key."""
    return _fernet(secret_key).encrypt(secret.encode()).decode("ascii")


def is_plain(stored: str) -> bool:
    """Return whether a stored secret is plain base32, from before secrets were encrypted."""
    return _PLAIN_SECRET.fullmatch(stored) is not None


def _opened(stored: str, keys: SecretKeys) -> tuple[str, bool]:
    """Return the secret a stored value holds, and whether it is stored under the current key.

    SecretUnreadable when no key opens it.
    """
    if is_plain(stored):
        return stored, False
    for key in keys.newest_first():
        try:
            secret = _fernet(key).decrypt(stored.encode("ascii")).decode("ascii")
        except (InvalidToken, UnicodeError):
            continue
        return secret, key == keys.current
    raise SecretUnreadable


def decrypt_secret(stored: str, keys: SecretKeys) -> str:
    """Return the TOTP secret a stored value holds; SecretUnreadable if no key opens it."""
    return _opened(stored, keys)[0]


def _secret_of(engineer: Engineer, stored: str, keys: SecretKeys) -> tuple[str, bool]:
    """Return the person's secret and whether it is stored as it should be, or refuse the code."""
    try:
        return _opened(stored, keys)
    except SecretUnreadable:
        log.error(
            "the TOTP secret of engineer %s does not decrypt with this TRACKER_SECRET_KEY"
            " nor its fallbacks (changed since it was stored?); `tracker user reset-totp`"
            " clears it",
            engineer.id,
        )
        raise CodeRefused("unreadable_secret", TOTP_UNREADABLE_RULE) from None


# --- reading ----------------------------------------------------------------


def is_enrolled(engineer: Engineer) -> bool:
    """Return whether the person has set up an authenticator app."""
    return engineer.totp_secret is not None


def role_requires_totp(engineer: Engineer) -> bool:
    """Return whether the person's access role must give a code after a password (admins)."""
    return engineer.access_role in TOTP_REQUIRED_ROLES


def second_step_required(engineer: Engineer) -> bool:
    """Return whether a password alone does not sign this person in (admins, the enrolled)."""
    return role_requires_totp(engineer) or is_enrolled(engineer)


def new_secret() -> str:
    """Return a fresh random TOTP secret (base32)."""
    return pyotp.random_base32(TOTP_SECRET_LENGTH)


def _totp(secret: str) -> pyotp.TOTP:
    return pyotp.TOTP(secret, digits=TOTP_DIGITS, interval=TOTP_INTERVAL_SECONDS)


def provisioning_uri(secret: str, email: str) -> str:
    """Return the otpauth:// URI an authenticator app reads from the QR code."""
    return _totp(secret).provisioning_uri(name=email, issuer_name=TOTP_ISSUER)


def qr_code(uri: str) -> str:
    """Return the QR code of `uri` as an SVG data: URI (drawn here, no outside service)."""
    return segno.make(uri, error="m").svg_data_uri(scale=5, border=4)


def grouped(secret: str) -> str:
    """Return a secret in groups of four, as people type it into an app by hand."""
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def time_step(now: dt.datetime) -> int:
    """Return the TOTP time step `now` (naive UTC) falls in."""
    return int(now.replace(tzinfo=dt.UTC).timestamp()) // TOTP_INTERVAL_SECONDS


def code_at(secret: str, step: int) -> str:
    """Return the code of a time step (what the app shows during it)."""
    return _totp(secret).generate_otp(step)


def _digits(code: str) -> str:
    return "".join(code.split())


def looks_like_totp(code: str) -> bool:
    """Return whether a typed code is an authenticator code (digits) and not a recovery code."""
    return _digits(code).isdigit()


def _matching_step(secret: str, code: str, now: dt.datetime) -> int | None:
    """Return the step within the window whose code this is, or None."""
    code = _digits(code)
    if len(code) != TOTP_DIGITS or not code.isdigit():
        return None
    step = time_step(now)
    for candidate in range(step - TOTP_VALID_WINDOW, step + TOTP_VALID_WINDOW + 1):
        if pyotp.utils.strings_equal(code, code_at(secret, candidate)):
            return candidate
    return None


# --- writing ----------------------------------------------------------------


def check_code(
    session: Session, engineer: Engineer, code: str, now: dt.datetime, *, keys: SecretKeys
) -> None:
    """Accept an authenticator code once: its time step is spent, and no earlier one works.

    The step is claimed by one conditional UPDATE, so two requests racing with
    one code cannot both sign in. A secret still stored plain, or under a
    fallback key, is encrypted under the current key by the same UPDATE.
    """
    stored = engineer.totp_secret
    if stored is None:
        raise CodeRefused("wrong_code", TOTP_CODE_RULE)
    secret, settled = _secret_of(engineer, stored, keys)
    step = _matching_step(secret, code, now)
    if step is None:
        raise CodeRefused("wrong_code", TOTP_CODE_RULE)
    # A sign-in is not a change of the record: updated_at stays.
    values: dict[str, object] = {"totp_last_step": step, "updated_at": Engineer.updated_at}
    if not settled:
        values["totp_secret"] = encrypt_secret(secret, keys.current)
    claimed = session.execute(
        update(Engineer)
        .where(
            Engineer.id == engineer.id,
            or_(Engineer.totp_last_step.is_(None), Engineer.totp_last_step < step),
        )
        .values(values)
        .execution_options(synchronize_session=False)
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult
        raise CodeRefused("replayed_code", TOTP_CODE_RULE)
    session.expire(engineer, ["totp_last_step", "totp_secret"])


def _normalised_recovery(code: str) -> str:
    return "".join(ch for ch in code.lower() if ch in RECOVERY_CODE_ALPHABET)


def recovery_hash(code: str) -> str:
    """Return the stored form of a recovery code (spaces, dashes and case ignored)."""
    return hashlib.sha256(_normalised_recovery(code).encode()).hexdigest()


def _new_recovery_code() -> str:
    chars = [secrets.choice(RECOVERY_CODE_ALPHABET) for _ in range(2 * RECOVERY_CODE_GROUP)]
    return "".join(chars[:RECOVERY_CODE_GROUP]) + "-" + "".join(chars[RECOVERY_CODE_GROUP:])


def replace_recovery_codes(session: Session, engineer: Engineer, now: dt.datetime) -> list[str]:
    """Give the person RECOVERY_CODE_COUNT new recovery codes; return them (shown once)."""
    session.execute(delete(RecoveryCode).where(RecoveryCode.engineer_id == engineer.id))
    codes: list[str] = []
    while len(codes) < RECOVERY_CODE_COUNT:
        code = _new_recovery_code()
        if code not in codes:
            codes.append(code)
    session.add_all(
        RecoveryCode(engineer_id=engineer.id, code_hash=recovery_hash(c), created_at=now)
        for c in codes
    )
    session.flush()
    return codes


def use_recovery_code(session: Session, engineer: Engineer, code: str, now: dt.datetime) -> None:
    """Accept an unused recovery code of this person, once."""
    normalised = _normalised_recovery(code)
    if len(normalised) != 2 * RECOVERY_CODE_GROUP:
        raise CodeRefused("wrong_recovery_code", RECOVERY_CODE_RULE)
    used = session.execute(
        update(RecoveryCode)
        .where(
            RecoveryCode.engineer_id == engineer.id,
            RecoveryCode.code_hash == recovery_hash(normalised),
            RecoveryCode.used_at.is_(None),
        )
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    if used.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult
        raise CodeRefused("wrong_recovery_code", RECOVERY_CODE_RULE)


def recovery_codes_left(session: Session, engineer: Engineer) -> int:
    """Return how many of the person's recovery codes are still unused."""
    return (
        session.scalar(
            select(func.count()).where(
                RecoveryCode.engineer_id == engineer.id, RecoveryCode.used_at.is_(None)
            )
        )
        or 0
    )


def enrol(
    session: Session,
    engineer: Engineer,
    secret: str,
    code: str,
    now: dt.datetime,
    *,
    secret_key: str,
    address: str = "",
) -> list[str]:
    """Set up the app whose first code is `code`; return the new recovery codes.

    The code's step is spent at once: the code that confirmed the set-up does
    not also pass a sign-in.
    """
    step = _matching_step(secret, code, now)
    if step is None:
        raise CodeRefused("wrong_code", TOTP_CODE_RULE)
    engineer.totp_secret = encrypt_secret(secret, secret_key)
    engineer.totp_last_step = step
    session.flush()
    codes = replace_recovery_codes(session, engineer, now)
    record_account_event(
        session,
        "totp_enrolled",
        engineer_id=engineer.id,
        email=engineer.email,
        method="web",
        address=address,
        at=now,
    )
    return codes


def set_secret(session: Session, engineer: Engineer, secret: str, *, secret_key: str) -> None:
    """Give the person a known secret without a code (the demo organisation's admin)."""
    engineer.totp_secret = encrypt_secret(secret, secret_key)
    engineer.totp_last_step = None
    session.flush()


@dataclass
class Rewrite:
    """What a pass over the stored secrets did: how many it rewrote, whose it cannot read."""

    rewritten: int = 0
    unreadable: list[str] = field(default_factory=list)


def rekey_secrets(session: Session, keys: SecretKeys) -> Rewrite:
    """Encrypt under the current key every secret stored plain or under a fallback key.

    Report the ones no key opens. A migration cannot do this: it does not know the keys.
    """
    return _rewrite_secrets(session, keys, encrypt=True)


def store_secrets_plain(session: Session, keys: SecretKeys) -> Rewrite:
    """Decrypt every encrypted secret back to plain; report the ones no key opens.

    Before a downgrade past the secrets' encryption, whose narrower column holds
    only plain secrets: without it those people would set up their app again.
    """
    return _rewrite_secrets(session, keys, encrypt=False)


def _rewrite_secrets(session: Session, keys: SecretKeys, *, encrypt: bool) -> Rewrite:
    done = Rewrite()
    rows = session.execute(
        select(Engineer.id, Engineer.email, Engineer.totp_secret)
        .where(Engineer.totp_secret.is_not(None))
        .order_by(Engineer.id)
    ).all()
    for engineer_id, email, stored in rows:
        try:
            secret, settled = _opened(stored, keys)
        except SecretUnreadable:
            done.unreadable.append(email)
            continue
        if settled if encrypt else is_plain(stored):
            continue  # already as asked
        value = encrypt_secret(secret, keys.current) if encrypt else secret
        # Only if it is still that value: a sign-in meanwhile rewrote it already.
        changed = session.execute(
            update(Engineer)
            .where(Engineer.id == engineer_id, Engineer.totp_secret == stored)
            .values(totp_secret=value, updated_at=Engineer.updated_at)
            .execution_options(synchronize_session=False)
        )
        done.rewritten += changed.rowcount  # type: ignore[attr-defined]  # a CursorResult
    session.flush()
    return done


def reset(
    session: Session,
    engineer: Engineer,
    *,
    actor: Engineer | None = None,
    via: str | None = None,
) -> bool:
    """Clear the person's app and recovery codes; False when there was nothing to clear.

    An admin is asked to set up an app again at their next password sign-in.
    """
    had_codes = session.scalar(
        select(RecoveryCode.id).where(RecoveryCode.engineer_id == engineer.id).limit(1)
    )
    if engineer.totp_secret is None and had_codes is None:
        return False
    engineer.totp_secret = None
    engineer.totp_last_step = None
    session.execute(delete(RecoveryCode).where(RecoveryCode.engineer_id == engineer.id))
    record_account_event(
        session,
        "totp_reset",
        engineer_id=engineer.id,
        email=engineer.email,
        method=via,
        actor_id=actor.id if actor else None,
    )
    session.flush()
    return True
