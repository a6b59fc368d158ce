"""The tracker's status list: one signed BitstringStatusListCredential of every revocation."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.badges.services import proofs, status_lists
from tracker.issuer.models import IssuedCredential
from tracker.issuer.rules import STATUS_LIST_BITS, STATUS_PURPOSE
from tracker.issuer.services import keys
from tracker.issuer.services.credentials import NO_LONGER_STANDS, Issuer

# The last list signed, by what it says and the key that signed it. Signing
# canonicalizes the document (RDF) and decrypts the key, milliseconds each time,
# and a verifier fetches the list for every credential it checks: the same list
# is served as it was signed until a revocation or a new key changes it. Keyed on
# the key's public part, not its id: a key made again under a reused id differs.
_signed: dict[tuple[str, str, str, tuple[int, ...]], dict[str, Any]] = {}


def revoked_indexes(session: Session) -> list[int]:
    """Return the list entries of every credential that no longer stands, in one query."""
    return list(
        session.scalars(
            select(IssuedCredential.status_index)
            .where(NO_LONGER_STANDS)
            .order_by(IssuedCredential.status_index)
        )
    )


def status_list_credential(session: Session, issuer: Issuer, now: dt.datetime) -> dict[str, Any]:
    """Return the status list as a credential signed by the issuer's newest key.

    Signed now, or when the same list was last signed by the same key.
    """
    revoked = tuple(revoked_indexes(session))
    url = issuer.status_list_url
    key = keys.signing_key(session, issuer.secret_keys.current, now)
    cache_key = (issuer.did, url, key.public_key, revoked)
    found = _signed.get(cache_key)
    if found is not None:
        return found
    bits = status_lists.empty_list(STATUS_LIST_BITS)
    for index in revoked:
        status_lists.set_bit(bits, index)
    document = {
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        "id": url,
        "type": ["VerifiableCredential", "BitstringStatusListCredential"],
        "issuer": issuer.did,
        "validFrom": proofs.stamp(now),
        "credentialSubject": {
            "id": f"{url}#list",
            "type": "BitstringStatusList",
            "statusPurpose": STATUS_PURPOSE,
            "encodedList": status_lists.encode(bits),
        },
    }
    signed = proofs.sign(
        document, keys.private_key(key, issuer.secret_keys), keys.method_id(issuer.did, key), now
    )
    _signed.clear()  # one list is current: the older ones are of no more use
    _signed[cache_key] = signed
    return signed
