"""The deployment's Ed25519 keys and the DID document (did:web) that publishes them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    PrivateFormat,
    load_der_private_key,
)
from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.badges.services import proofs
from tracker.issuer.models import IssuerKey
from tracker.issuer.rules import KEY_PREFIX


def _encrypt(key: Ed25519PrivateKey, secret: str) -> bytes:
    return key.private_bytes(
        Encoding.DER, PrivateFormat.PKCS8, BestAvailableEncryption(secret.encode())
    )


def create_key(session: Session, secret: str, now: dt.datetime) -> IssuerKey:
    """Make a new signing key; the older ones stay published, so what they signed verifies."""
    key = Ed25519PrivateKey.generate()
    row = IssuerKey(
        private_key=_encrypt(key, secret),
        public_key=proofs.multikey(key.public_key()),
        created_at=now,
    )
    session.add(row)
    session.flush()
    return row


def signing_key(session: Session, secret: str, now: dt.datetime) -> IssuerKey:
    """Return the newest key, made on first use."""
    row = session.scalar(select(IssuerKey).order_by(IssuerKey.id.desc()).limit(1))
    return row if row is not None else create_key(session, secret, now)


def private_key(row: IssuerKey, secret: str) -> Ed25519PrivateKey:
    """Return a key's private part, decrypted with the deployment's secret key."""
    key = load_der_private_key(row.private_key, secret.encode())
    if not isinstance(key, Ed25519PrivateKey):
        raise TypeError("an issuer key is not Ed25519")
    return key


def method_id(did: str, row: IssuerKey) -> str:
    """Return a key's verification method id in the DID document."""
    return f"{did}#{KEY_PREFIX}{row.id}"


def did_document(session: Session, did: str) -> dict[str, Any]:
    """Return the DID document of `did`: every key, each able to assert credentials."""
    rows = session.scalars(select(IssuerKey).order_by(IssuerKey.id)).all()
    methods = [
        {
            "id": method_id(did, row),
            "type": "Multikey",
            "controller": did,
            "publicKeyMultibase": row.public_key,
        }
        for row in rows
    ]
    return {
        "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
        "id": did,
        "verificationMethod": methods,
        "assertionMethod": [method["id"] for method in methods],
    }


def jwks(session: Session, did: str) -> dict[str, Any]:
    """Return every public key as a JSON Web Key Set, each named by its DID URL."""
    rows = session.scalars(select(IssuerKey).order_by(IssuerKey.id)).all()
    keys = []
    for row in rows:
        public = proofs.from_multikey(row.public_key)
        keys.append(
            {**proofs.jwk(public), "kid": method_id(did, row), "alg": "EdDSA", "use": "sig"}
        )
    return {"keys": keys}
