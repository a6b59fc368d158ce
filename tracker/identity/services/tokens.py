"""Checking an ID token: its signature by the provider's keys, then who it is from and for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from joserfc import jws, jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    InvalidKeyIdError,
    JoseError,
    MissingClaimError,
)
from joserfc.jwk import Key, KeySet

from tracker.identity.rules import CLOCK_LEEWAY_SECONDS, MAX_SUBJECT_LENGTH, SIGNING_ALGORITHMS
from tracker.identity.services.refusals import SignInRefused

# The provider's signing keys: called with refresh=False first, and once with True when
# the token names a key the cached set lacks (the provider rotated its keys).
KeySource = Callable[[bool], KeySet]

# Which check a failing claim is, as the account trail names it.
CLAIM_REASONS = {
    "iss": "wrong_issuer",
    "aud": "wrong_audience",
    "nonce": "nonce_mismatch",
    "iat": "issued_in_future",
    "nbf": "not_yet_valid",
    "exp": "expired",
}


def _refused(reason: str) -> SignInRefused:
    return SignInRefused("token", reason)


def _signing_key(keys: KeySet, kid: str | None) -> Key | None:
    """Return the key of `kid` (the only key when the token names none), if the set has it."""
    candidates = KeySet([key for key in keys if key.get("use") in (None, "sig")])
    try:
        return candidates.get_by_kid(kid)
    except InvalidKeyIdError:
        return None


def verify_id_token(
    token: str,
    keys: KeySource,
    *,
    issuer: str,
    client_id: str,
    nonce: str,
    now: int,
    leeway: int = CLOCK_LEEWAY_SECONDS,
) -> dict[str, Any]:
    """Return the claims of an ID token that passes every check; raise SignInRefused.

    Checked: an asymmetric algorithm; the signature, by the provider's key that the
    header names (an unknown key asks the provider for its keys once more); the
    issuer; the audience, and the authorized party when there is one; expiry, issue
    time and not-before against `now` (seconds since the epoch) with `leeway`; the
    nonce this sign-in sent; a subject.
    """
    try:
        header = jws.extract_compact(token.encode("ascii")).headers()
    except (JoseError, ValueError, UnicodeError):
        raise _refused("malformed") from None
    algorithm = header.get("alg")
    if algorithm not in SIGNING_ALGORITHMS:
        raise _refused("algorithm")
    kid = header.get("kid")
    if not isinstance(kid, str | None):
        raise _refused("malformed")
    key = _signing_key(keys(False), kid)
    if key is None:
        key = _signing_key(keys(True), kid)
    if key is None:
        raise _refused("unknown_key")
    try:
        claims = jwt.decode(token, key, algorithms=[algorithm]).claims
    except BadSignatureError:
        raise _refused("bad_signature") from None
    except JoseError:
        # A key of another type than the algorithm's, or a payload that is no JSON object.
        raise _refused("malformed") from None

    registry = jwt.JWTClaimsRegistry(
        now=now,
        leeway=leeway,
        iss={"essential": True, "value": issuer},
        sub={"essential": True},
        aud={"essential": True, "value": client_id},
        exp={"essential": True},
        iat={"essential": True},
        nonce={"essential": True, "value": nonce},
    )
    try:
        registry.validate(claims)
    except ExpiredTokenError:
        raise _refused("expired") from None
    except MissingClaimError:
        raise _refused("missing_claim") from None
    except InvalidClaimError as exc:
        raise _refused(CLAIM_REASONS.get(exc.claim, "malformed")) from None

    # Several audiences: the token must say it was issued to this client (OIDC Core 3.1.3.7).
    audience = claims["aud"]
    azp = claims.get("azp")
    if (isinstance(audience, list) and len(audience) > 1 and azp is None) or (
        azp is not None and azp != client_id
    ):
        raise _refused("wrong_azp")
    if len(claims["sub"]) > MAX_SUBJECT_LENGTH:
        raise _refused("malformed")
    return claims
