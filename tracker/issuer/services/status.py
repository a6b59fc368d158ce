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
    """Return the status list as a credential signed now by the issuer's key."""
    bits = status_lists.empty_list(STATUS_LIST_BITS)
    for index in revoked_indexes(session):
        status_lists.set_bit(bits, index)
    url = issuer.status_list_url
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
    key = keys.signing_key(session, issuer.secret, now)
    return proofs.sign(
        document, keys.private_key(key, issuer.secret), keys.method_id(issuer.did, key), now
    )
