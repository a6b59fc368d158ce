"""Verifying Open Badges 3.0 as VC-JWTs that joserfc signed with Ed25519."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from joserfc import jws
from joserfc.jwk import OctKey, OKPKey

from tests.issuer.vc_node import Signer, Site, badge, fetch, hashed, site
from tracker.badges.services import proofs
from tracker.badges.services.ob3 import verify_ob3
from tracker.badges.services.verified import BadgeRefused

TODAY = dt.date(2026, 12, 1)
EMAIL = "ada@example.com"
SALT = "pepper-42"


def _okp(signer: Signer) -> OKPKey:
    raw = signer.private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    return OKPKey.import_key(raw)


def _jwt(signer: Signer, payload: dict[str, Any], kid: str, alg: str = "Ed25519") -> str:
    body = json.dumps(payload).encode()
    header = {"alg": alg, "kid": kid, "typ": "vc+jwt"}
    return jws.serialize_compact(header, body, _okp(signer), algorithms=[alg])


@pytest.fixture(scope="module")
def web() -> Iterator[Site]:
    with site() as served:
        yield served


def test_a_vc_2_jwt_signed_by_a_did_key_verifies() -> None:
    signer = Signer(bytes(range(32)))
    token = _jwt(signer, badge(signer.did, hashed(EMAIL, SALT)), signer.key_id)

    verified = verify_ob3(token, [EMAIL], TODAY, fetch)

    assert (verified.format, verified.issuer_id, verified.document) == ("ob3", signer.did, token)
    assert verified.issued_on == dt.date(2026, 1, 15)


def test_a_vc_1_1_jwt_with_a_key_set_on_the_issuers_site_verifies(web: Site) -> None:
    signer = Signer(bytes(range(32)))
    web.put("/jwks.json", {"keys": [{**proofs.jwk(signer.public), "kid": "badge-key"}]})
    credential = badge(web.url, hashed(EMAIL, SALT))
    for field in ("id", "validFrom"):
        credential.pop(field)
    expires = int(dt.datetime(2027, 3, 1, tzinfo=dt.UTC).timestamp())
    claims = {
        "iss": web.url,
        "jti": "urn:uuid:11111111-2222-4333-8444-555555555555",
        "nbf": int(dt.datetime(2026, 2, 1, tzinfo=dt.UTC).timestamp()),
        "exp": expires,
        "vc": credential,
    }
    # OB 3.0 names the algorithm EdDSA (RFC 9864 later renamed it Ed25519).
    with pytest.warns(Warning):
        token = _jwt(signer, claims, f"{web.url}/jwks.json#badge-key", alg="EdDSA")

    verified = verify_ob3(token, [EMAIL], TODAY, fetch)

    assert verified.assertion_id == claims["jti"]
    assert (verified.issued_on, verified.expires_on) == (dt.date(2026, 2, 1), dt.date(2027, 3, 1))


def _refusal(token: str) -> BadgeRefused:
    with pytest.raises(BadgeRefused) as refused:
        verify_ob3(token, [EMAIL], TODAY, fetch)
    return refused.value


def test_a_tampered_jwt_is_refused() -> None:
    signer = Signer(bytes(range(32)))
    header, payload, signature = _jwt(
        signer, badge(signer.did, hashed(EMAIL, SALT)), signer.key_id
    ).split(".")
    other = _jwt(signer, badge(signer.did, hashed("eve@example.com", SALT)), signer.key_id).split(
        "."
    )[1]
    forged = ".".join([header, other, signature])

    assert _refusal(forged).reason == "the badge's signature does not match the issuer's key"
    assert payload != other


def test_a_jwt_signed_by_another_key_is_refused() -> None:
    issuer, impostor = Signer(bytes(range(32))), Signer(bytes(range(1, 33)))
    token = _jwt(impostor, badge(issuer.did, hashed(EMAIL, SALT)), issuer.key_id)

    assert _refusal(token).reason == "the badge's signature does not match the issuer's key"


def test_a_key_published_on_another_site_is_refused(web: Site) -> None:
    signer = Signer(bytes(range(32)))
    web.put("/jwks.json", {"keys": [{**proofs.jwk(signer.public), "kid": "badge-key"}]})
    token = _jwt(
        signer,
        badge("https://academy.example", hashed(EMAIL, SALT)),
        f"{web.url}/jwks.json#badge-key",
    )

    assert _refusal(token).reason.startswith("the badge's key")


def test_a_jwt_of_another_algorithm_is_refused() -> None:
    header = {"alg": "HS256", "kid": "did:key:z6Mk#z6Mk"}
    token = jws.serialize_compact(header, b"{}", OctKey.generate_key(256), algorithms=["HS256"])

    assert _refusal(token).reason == "the badge's JWT is signed with HS256, not Ed25519 (EdDSA)"
