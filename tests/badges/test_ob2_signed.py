"""Open Badges 2.0 signed assertions: an RS256 JWS by a key the issuer's profile lists.

The test signer is written with `cryptography` alone (RSASSA-PKCS1-v1_5 over
SHA-256 of "header.payload"), not with the JOSE library the verifier uses.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from sqlalchemy import select

from tests import factories
from tests.badges.conftest import OB2_CONTEXT, TODAY, Issuer, hashed
from tests.badges.helpers import baked, plain_png
from tests.helpers import Api, count, token_for
from tracker.badges.models import ImportedBadge
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.verification import reverify, verify_document, verify_image
from tracker.badges.services.verified import BadgeRefused

EMAIL = "ada@example.com"
FETCH = make_fetch({"127.0.0.1"})
ASSERTION_ID = "urn:uuid:2f6c1f0e-5d7e-4d8e-9a43-3f1b6a2c9d10"
# Generated once: RSA key generation is the slow part.
ISSUER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(payload: dict[str, Any], key: rsa.RSAPrivateKey = ISSUER_KEY, alg: str = "RS256") -> str:
    signing_input = (
        f"{_b64(json.dumps({'alg': alg}).encode())}.{_b64(json.dumps(payload).encode())}"
    )
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64(signature)}"


def pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


class Signing:
    """The issuer with a published key, and signed assertions of its badge class."""

    def __init__(self, issuer: Issuer) -> None:
        self.issuer = issuer
        self.server = issuer.server
        self.key_url = self.publish_key("/keys/1", ISSUER_KEY)
        issuer.profile["publicKey"] = self.key_url
        issuer.publish_profile()

    def publish_key(self, path: str, key: rsa.RSAPrivateKey, owner: str | None = None) -> str:
        return self.server.serve(
            path,
            {
                "@context": OB2_CONTEXT,
                "type": "CryptographicKey",
                "id": self.server.url(path),
                "owner": owner or self.issuer.profile["id"],
                "publicKeyPem": pem(key),
            },
        )

    def assertion(self, email: str = EMAIL, **extra: Any) -> dict[str, Any]:
        return {
            "@context": OB2_CONTEXT,
            "type": "Assertion",
            "id": ASSERTION_ID,
            "recipient": {"type": "email", "hashed": True, "salt": "deadsea",
                          "identity": hashed(email)},
            "badge": self.server.url("/badges/gpu-ops"),
            "issuedOn": "2026-03-15T10:00:00+00:00",
            "expires": "2028-03-15T10:00:00+00:00",
            "verification": {"type": "SignedBadge", "creator": self.key_url},
            **extra,
        }  # fmt: skip


@pytest.fixture
def signing(issuer: Issuer) -> Signing:
    return Signing(issuer)


def refusal(text: str) -> BadgeRefused:
    with pytest.raises(BadgeRefused) as caught:
        verify_document(text, [EMAIL], TODAY, FETCH)
    return caught.value


def test_a_signed_assertion_is_verified_by_the_key_its_issuer_lists(signing: Signing) -> None:
    token = sign(signing.assertion())
    badge = verify_document(token, [EMAIL], TODAY, FETCH)
    assert (badge.format, badge.assertion_id, badge.recipient) == ("ob2", ASSERTION_ID, EMAIL)
    assert (badge.badge_name, badge.issuer_name) == (
        "GPU Operations Practitioner",
        "Example Academy",
    )
    assert (str(badge.issued_on), str(badge.expires_on)) == ("2026-03-15", "2028-03-15")
    # The JWS is kept, so that a re-check verifies the signature again.
    assert badge.document == token
    assert reverify("ob2", badge.document, [EMAIL], TODAY, FETCH) == badge


def test_without_a_creator_each_key_the_issuer_embeds_is_tried(signing: Signing) -> None:
    issuer = signing.issuer
    issuer.profile["publicKey"] = [
        {"id": signing.server.url("/keys/old"), "type": "CryptographicKey",
         "owner": issuer.profile["id"], "publicKeyPem": pem(OTHER_KEY)},
        {"id": signing.key_url, "type": "CryptographicKey",
         "owner": issuer.profile["id"], "publicKeyPem": pem(ISSUER_KEY)},
    ]  # fmt: skip
    issuer.publish_profile()
    token = sign(signing.assertion(verification={"type": "SignedBadge"}))
    assert verify_document(token, [EMAIL], TODAY, FETCH).assertion_id == ASSERTION_ID


def test_a_tampered_payload_is_refused(signing: Signing) -> None:
    header, _, signature = sign(signing.assertion(email="eve@example.com")).split(".")
    forged = f"{header}.{_b64(json.dumps(signing.assertion()).encode())}.{signature}"
    assert "signature does not match" in refusal(forged).reason


def test_a_key_its_issuer_does_not_own_or_list_is_refused(signing: Signing) -> None:
    # Signed by a key published elsewhere, naming the issuer as its owner: not listed.
    stranger = signing.publish_key("/keys/stranger", OTHER_KEY)
    token = sign(signing.assertion(verification={"type": "SignedBadge", "creator": stranger}),
                 OTHER_KEY)  # fmt: skip
    assert "which its issuer does not list" in refusal(token).reason
    # Listed by the issuer, but the key says it is someone else's.
    signing.publish_key("/keys/1", ISSUER_KEY, owner="https://elsewhere.example/issuer")
    assert "not owned by the badge's issuer" in refusal(sign(signing.assertion())).reason
    # Signed with another key than the one named.
    signing.publish_key("/keys/1", ISSUER_KEY)
    assert "signature does not match" in refusal(sign(signing.assertion(), OTHER_KEY)).reason


@pytest.mark.parametrize("alg", ["HS256", "none", "RS512"])
def test_only_rs256_is_accepted(signing: Signing, alg: str) -> None:
    assert "not RS256" in refusal(sign(signing.assertion(), alg=alg)).reason


def test_a_signed_assertion_on_the_revocation_list_is_refused(signing: Signing) -> None:
    issuer = signing.issuer
    issuer.profile["revocationList"] = signing.server.serve(
        "/revoked",
        {"revokedAssertions": [{"id": ASSERTION_ID, "revocationReason": "issued by mistake"}]},
    )
    issuer.publish_profile()
    error = refusal(sign(signing.assertion()))
    assert error.kind == "revoked" and "issued by mistake" in error.reason


def test_its_json_without_the_signature_is_refused_with_what_to_give(signing: Signing) -> None:
    error = refusal(json.dumps(signing.assertion()))
    assert "verified from its signed text (the JWS) or its baked image" in error.reason


def test_a_baked_png_carrying_the_jws_verifies(signing: Signing) -> None:
    token = sign(signing.assertion())
    image = baked(plain_png(), token)
    assert verify_image(image, [EMAIL], TODAY, FETCH).document == token


def test_the_api_records_a_signed_assertion(db, client, pinned_today, signing: Signing) -> None:
    ada = factories.engineer(db, email=EMAIL)
    token = sign(signing.assertion())
    response = Api(client).post("/api/v1/credentials", token_for(db, ada), {"badge_json": token})
    assert response.status_code == 201, response.json
    assert response.json["verified"] is True
    imported = db.scalars(select(ImportedBadge)).one()
    assert (imported.format, imported.assertion_id) == ("ob2", ASSERTION_ID)
    forged = sign(signing.assertion(id="urn:uuid:another"), OTHER_KEY)
    refused = Api(client).post("/api/v1/credentials", token_for(db, ada), {"badge_json": forged})
    assert refused.status_code == 400
    assert "signature does not match" in refused.json["errors"]["badge_json"]
    assert count(db, ImportedBadge) == 1
