"""Verify an Open Badges 2.0 signed assertion: a JWS (RS256) by a key its issuer publishes.

The assertion is the JWS's payload. The key is a CryptographicKey its issuer's
profile lists under `publicKey` and that names the issuer as its `owner`:
`verification.creator` names which one, or else each listed key is tried. The
badge class, the issuer, the recipient, the revocation list and the dates are
checked as for a hosted assertion (ob2.verify_assertion); the document kept is
the JWS, so that a re-check verifies the signature again.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection
from typing import Any

from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import RSAKey
from joserfc.util import urlsafe_b64decode

from tracker import jsontext
from tracker.badges.rules import MAX_URL_LENGTH
from tracker.badges.services.ob2 import (
    Json,
    fetch_json,
    hosted_url,
    types_of,
    url_of,
    verify_assertion,
    verify_hosted,
)
from tracker.badges.services.verified import BadgeRefused, Fetch, VerifiedBadge
from tracker.i18n import N_, msg

COMPACT_JWS = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")
# Open Badges 2.0 signs with RS256 only.
ALGORITHM = "RS256"
SIGNED_TYPES = frozenset({"signedbadge", "signed"})


def _decoded(token: str) -> tuple[Json, Json] | None:
    """Return a compact JWS's header and payload, unverified; None when it is not one."""
    if not COMPACT_JWS.match(token):
        return None
    header_part, payload_part, _ = token.split(".")
    try:
        header = jsontext.loads(urlsafe_b64decode(header_part.encode()))
        payload = jsontext.loads(urlsafe_b64decode(payload_part.encode()))
    except ValueError:
        return None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        return None
    return header, payload


def is_signed_assertion(text: str) -> bool:
    """Return whether `text` is a compact JWS whose payload is an Open Badges 2.0 assertion."""
    decoded = _decoded(text.strip())
    return decoded is not None and "Assertion" in types_of(decoded[1]) and "vc" not in decoded[1]


def verify_signed(
    token: str, emails: Collection[str], today: dt.date, fetch: Fetch
) -> VerifiedBadge:
    """Verify a signed assertion given as its compact JWS."""
    token = token.strip()
    decoded = _decoded(token)
    if decoded is None or "Assertion" not in types_of(decoded[1]):
        raise BadgeRefused(N_("the badge is not a signed Open Badges 2.0 assertion"))
    header, assertion = decoded
    verification = assertion.get("verification")
    kind = verification.get("type") if isinstance(verification, dict) else None
    if str(kind).lower() not in SIGNED_TYPES:
        # Signed text of an assertion that says its issuer hosts it: the hosted copy counts.
        return verify_hosted(hosted_url(assertion), emails, today, fetch, received=assertion)
    if header.get("alg") != ALGORITHM:
        raise BadgeRefused(
            msg("the badge is signed with %(alg)s, not RS256", alg=str(header.get("alg")))
        )
    assertion_id = assertion.get("id")
    if not isinstance(assertion_id, str) or not assertion_id or len(assertion_id) > MAX_URL_LENGTH:
        raise BadgeRefused(N_("the assertion has no id"))
    creator = verification.get("creator") if isinstance(verification, dict) else None

    def vouched(issuer: Json) -> None:
        for key in _issuer_keys(issuer, creator, fetch):
            try:
                jws.deserialize_compact(token, key, algorithms=[ALGORITHM])
            except JoseError:
                continue
            return
        raise BadgeRefused(N_("the badge's signature does not match the issuer's key"))

    return verify_assertion(assertion, assertion_id, token, emails, today, fetch, vouched)


def _issuer_keys(issuer: Json, creator: object, fetch: Fetch) -> list[RSAKey]:
    """Return the keys the issuer owns that may have signed: `creator`, or each it lists."""
    listed = issuer.get("publicKey")
    entries: list[Any] = listed if isinstance(listed, list) else [] if listed is None else [listed]
    by_id = {_key_id(entry): entry for entry in entries if _key_id(entry)}
    if creator is not None:
        creator_id = _key_id(creator)
        if creator_id not in by_id:
            raise BadgeRefused(
                msg(
                    "the badge is signed with the key %(key)s, which its issuer does not list",
                    key=str(creator_id or creator)[:MAX_URL_LENGTH],
                )
            )
        by_id = {creator_id: by_id[creator_id]}
    if not by_id:
        raise BadgeRefused(N_("the badge's issuer publishes no public key"))
    return [_key(issuer, key_id, entry, fetch) for key_id, entry in by_id.items()]


def _key_id(entry: object) -> str:
    value = entry.get("id") if isinstance(entry, dict) else entry
    return value if isinstance(value, str) else ""


def _key(issuer: Json, key_id: str, entry: object, fetch: Fetch) -> RSAKey:
    """Return the RSA key a CryptographicKey holds, refused unless the issuer owns it."""
    document: Json
    if isinstance(entry, dict) and "publicKeyPem" in entry:
        document = entry
    else:
        document = fetch_json(fetch, url_of(key_id, N_("public key")), N_("public key"))
    if document.get("owner") != issuer.get("id"):
        raise BadgeRefused(
            msg("the key %(key)s is not owned by the badge's issuer", key=key_id[:MAX_URL_LENGTH])
        )
    pem = document.get("publicKeyPem")
    try:
        if not isinstance(pem, str):
            raise ValueError(pem)
        return RSAKey.import_key(pem)
    except (ValueError, TypeError, JoseError):
        raise BadgeRefused(
            msg("the key %(key)s is not an RSA public key", key=key_id[:MAX_URL_LENGTH])
        ) from None
