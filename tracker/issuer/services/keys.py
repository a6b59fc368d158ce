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
from tracker.config import SecretKeys
from tracker.issuer.models import IssuerKey
from tracker.issuer.rules import KEY_PREFIX
from tracker.people.services.totp import Rewrite


class KeyUnreadable(Exception):
    """An issuer key that neither the secret key nor a fallback decrypts (changed since)."""


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


def newest_opens(session: Session, secret_keys: SecretKeys) -> bool:
    """Return whether the secret key or a fallback opens the newest key (yes when there is none)."""
    row = session.scalar(select(IssuerKey).order_by(IssuerKey.id.desc()).limit(1))
    if row is None:
        return True
    try:
        _opened(row, secret_keys)
    except KeyUnreadable:
        return False
    return True


def _opened(row: IssuerKey, secret_keys: SecretKeys) -> tuple[Ed25519PrivateKey, bool]:
    """Return a key's private part, and whether the current secret key is the one it is under."""
    for secret in secret_keys.newest_first():
        try:
            key = load_der_private_key(row.private_key, secret.encode())
        except ValueError:  # not this secret
            continue
        if not isinstance(key, Ed25519PrivateKey):
            raise TypeError("an issuer key is not Ed25519")
        return key, secret == secret_keys.current
    raise KeyUnreadable(f"issuer key {row.id} does not decrypt with the secret key nor a fallback")


def private_key(row: IssuerKey, secret_keys: SecretKeys) -> Ed25519PrivateKey:
    """Return a key's private part, decrypted with the secret key or one of its fallbacks."""
    return _opened(row, secret_keys)[0]


def unlock(session: Session, row: IssuerKey, secret_keys: SecretKeys) -> Ed25519PrivateKey:
    """Return a key's private part, stored again under the current secret key if it was not."""
    key, settled = _opened(row, secret_keys)
    if not settled:
        row.private_key = _encrypt(key, secret_keys.current)
        session.flush()
    return key


def rekey_keys(session: Session, secret_keys: SecretKeys) -> Rewrite:
    """Encrypt every key under the current secret key; report the signing key if none opens it."""
    done = Rewrite()
    rows = session.scalars(select(IssuerKey).order_by(IssuerKey.id.desc())).all()
    for row in rows:
        try:
            key, settled = _opened(row, secret_keys)
        except KeyUnreadable:
            # An older key signs nothing again (only its published public part counts).
            if row is rows[0]:
                done.unreadable.append(method_name(row))
            continue
        if not settled:
            row.private_key = _encrypt(key, secret_keys.current)
            done.rewritten += 1
    session.flush()
    return done


def method_name(row: IssuerKey) -> str:
    """Return a key's name in its DID document (the fragment of its verification method)."""
    return f"{KEY_PREFIX}{row.id}"


def method_id(did: str, row: IssuerKey) -> str:
    """Return a key's verification method id in the DID document."""
    return f"{did}#{method_name(row)}"


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
