"""Verifying Open Badges 3.0 credentials that an independent library signed."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.issuer.vc_node import Signer, Site, badge, encoded_list, fetch, hashed, site
from tracker.badges.services.ob3 import verify_ob3
from tracker.badges.services.verified import BadgeRefused

TODAY = dt.date(2026, 12, 1)
EMAIL = "ada@example.com"
SALT = "pepper-42"
KEY_SEED = bytes(range(32))
OTHER_SEED = bytes(range(1, 33))


@pytest.fixture(scope="module")
def web() -> Iterator[Site]:
    with site() as served:
        yield served


@pytest.fixture(scope="module")
def issuer(web: Site) -> Signer:
    """A did:web issuer whose DID document the local site publishes."""
    signer = Signer(KEY_SEED, web.did)
    web.put("/.well-known/did.json", signer.did_document())
    return signer


def refusal(document: dict[str, Any] | str, emails: tuple[str, ...] = (EMAIL,)) -> BadgeRefused:
    text = document if isinstance(document, str) else json.dumps(document)
    with pytest.raises(BadgeRefused) as refused:
        verify_ob3(text, emails, TODAY, fetch)
    return refused.value


def test_a_did_key_badge_verifies_and_says_what_it_is() -> None:
    signer = Signer(KEY_SEED)
    (signed,) = signer.sign(
        badge(signer.did, hashed(EMAIL, SALT), valid_until="2027-01-15T00:00:00Z")
    )
    text = json.dumps(signed)

    verified = verify_ob3(text, ["someone@else.org", "Ada@Example.com"], TODAY, fetch)

    assert verified.format == "ob3"
    assert verified.assertion_id == signed["id"]
    assert verified.badge_class_id == "https://academy.example/achievements/gpu-ops"
    assert verified.badge_name == "GPU cluster operations"
    assert (verified.issuer_id, verified.issuer_name) == (signer.did, "Example Academy")
    assert verified.recipient == EMAIL
    assert (verified.issued_on, verified.expires_on) == (dt.date(2026, 1, 15), dt.date(2027, 1, 15))
    assert verified.document == text


def test_a_did_web_badge_verifies_against_the_published_key(issuer: Signer) -> None:
    (signed,) = issuer.sign(badge(issuer.did, hashed(EMAIL, SALT)))

    verified = verify_ob3(json.dumps(signed), [EMAIL], TODAY, fetch)

    assert verified.issuer_id == issuer.did
    assert verified.expires_on is None


def test_a_tampered_badge_is_refused(issuer: Signer) -> None:
    (signed,) = issuer.sign(badge(issuer.did, hashed(EMAIL, SALT)))
    signed["credentialSubject"]["achievement"]["name"] = "Chief GPU wizard"

    refused = refusal(signed)

    assert (refused.kind, refused.reason) == (
        "invalid",
        "the badge's signature does not match the issuer's key",
    )


def test_a_tampered_signature_is_refused(issuer: Signer) -> None:
    (signed,) = issuer.sign(badge(issuer.did, hashed(EMAIL, SALT)))
    value = signed["proof"]["proofValue"]
    signed["proof"]["proofValue"] = value[:-2] + ("A" if value[-2] != "A" else "B") + value[-1]

    assert refusal(signed).reason == "the badge's signature does not match the issuer's key"


def test_a_badge_signed_by_another_key_under_the_issuers_name_is_refused(issuer: Signer) -> None:
    impostor = Signer(OTHER_SEED, issuer.did)
    (signed,) = impostor.sign(badge(issuer.did, hashed(EMAIL, SALT)))

    assert refusal(signed).reason == "the badge's signature does not match the issuer's key"


def test_a_badge_signed_by_a_key_of_someone_else_is_refused(issuer: Signer) -> None:
    other = Signer(OTHER_SEED)
    (signed,) = other.sign(badge(issuer.did, hashed(EMAIL, SALT)))

    refused = refusal(signed)

    assert refused.kind == "invalid"
    assert refused.reason.startswith(f"the badge is signed by {other.key_id}, not by its issuer")


def test_an_expired_badge_is_refused_as_expired(issuer: Signer) -> None:
    (signed,) = issuer.sign(
        badge(issuer.did, hashed(EMAIL, SALT), valid_until="2026-11-30T23:59:59Z")
    )

    refused = refusal(signed)

    assert (refused.kind, refused.reason) == ("expired", "the badge expired on 2026-11-30")


def test_a_badge_valid_through_today_verifies(issuer: Signer) -> None:
    (signed,) = issuer.sign(
        badge(issuer.did, hashed(EMAIL, SALT), valid_until="2026-12-01T18:00:00Z")
    )

    assert verify_ob3(json.dumps(signed), [EMAIL], TODAY, fetch).expires_on == TODAY


def test_a_badge_not_yet_valid_is_refused(issuer: Signer) -> None:
    (signed,) = issuer.sign(
        badge(issuer.did, hashed(EMAIL, SALT), valid_from="2026-12-02T00:00:00Z")
    )

    assert refusal(signed).reason == "the badge is valid only from 2026-12-02"


def test_a_badge_of_someone_else_is_refused_as_the_recipients(issuer: Signer) -> None:
    (signed,) = issuer.sign(badge(issuer.did, hashed("grace@example.com", SALT)))

    refused = refusal(signed)

    assert (refused.kind, refused.reason) == (
        "recipient",
        "the badge was issued to none of your e-mail addresses",
    )


def test_a_hash_without_its_salt_does_not_match(issuer: Signer) -> None:
    identity = hashed(EMAIL, SALT) | {"salt": "other"}
    (signed,) = issuer.sign(badge(issuer.did, identity))

    assert refusal(signed).kind == "recipient"


def test_a_plain_address_and_a_mailto_subject_match(issuer: Signer) -> None:
    plain = {
        "type": "IdentityObject",
        "identityType": "emailAddress",
        "hashed": False,
        "identityHash": EMAIL.upper(),
    }
    by_id = badge(issuer.did, plain, number=2)
    by_id["credentialSubject"]["id"] = f"mailto:{EMAIL}"
    del by_id["credentialSubject"]["identifier"]
    first, second = issuer.sign(badge(issuer.did, plain), by_id)

    assert verify_ob3(json.dumps(first), [EMAIL], TODAY, fetch).recipient == EMAIL
    assert verify_ob3(json.dumps(second), [EMAIL], TODAY, fetch).recipient == EMAIL


def _status_list(web: Site, issuer: Signer, path: str, *revoked: int) -> str:
    url = f"{web.url}{path}"
    listed = {
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        "id": url,
        "type": ["VerifiableCredential", "BitstringStatusListCredential"],
        "issuer": issuer.did,
        "validFrom": "2026-01-01T00:00:00Z",
        "credentialSubject": {
            "id": f"{url}#list",
            "type": "BitstringStatusList",
            "statusPurpose": "revocation",
            "encodedList": encoded_list(*revoked),
        },
    }
    (signed,) = issuer.sign(listed)
    return web.put(path, signed)


def _entry(url: str, index: int) -> dict[str, Any]:
    return {
        "id": f"{url}#{index}",
        "type": "BitstringStatusListEntry",
        "statusPurpose": "revocation",
        "statusListIndex": str(index),
        "statusListCredential": url,
    }


def test_a_revoked_badge_is_refused_as_revoked(web: Site, issuer: Signer) -> None:
    url = _status_list(web, issuer, "/status/1", 7, 42)
    kept, revoked = issuer.sign(
        badge(issuer.did, hashed(EMAIL, SALT), number=1, status=_entry(url, 8)),
        badge(issuer.did, hashed(EMAIL, SALT), number=2, status=_entry(url, 42)),
    )

    assert verify_ob3(json.dumps(kept), [EMAIL], TODAY, fetch).assertion_id == kept["id"]
    refused = refusal(revoked)
    assert (refused.kind, refused.reason) == ("revoked", "the issuer has revoked the badge")


def test_a_status_list_signed_by_someone_else_is_refused(web: Site, issuer: Signer) -> None:
    other = Signer(OTHER_SEED)
    url = _status_list(web, other, "/status/other")
    (signed,) = issuer.sign(badge(issuer.did, hashed(EMAIL, SALT), status=_entry(url, 3)))

    assert refusal(signed).reason == "the status list is not the badge issuer's"


def test_a_status_list_out_of_reach_leaves_the_badge_unreachable(web: Site, issuer: Signer) -> None:
    (signed,) = issuer.sign(
        badge(issuer.did, hashed(EMAIL, SALT), status=_entry(f"{web.url}/status/gone", 3))
    )

    assert refusal(signed).kind == "unreachable"


def test_an_issuer_out_of_reach_is_unreachable() -> None:
    with site() as gone:
        signer = Signer(KEY_SEED, gone.did)
    (signed,) = signer.sign(badge(signer.did, hashed(EMAIL, SALT)))

    assert refusal(signed).kind == "unreachable"


def test_a_context_the_tracker_does_not_ship_is_refused(issuer: Signer) -> None:
    credential = badge(issuer.did, hashed(EMAIL, SALT))
    (signed,) = issuer.sign(credential)
    signed["@context"] = [*signed["@context"], "https://evil.example/context.json"]

    assert refusal(signed).reason == (
        "the badge uses a JSON-LD context the tracker does not know: https://evil.example/context.json"
    )


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ("not a badge", "the badge is neither JSON nor a compact VC-JWT"),
        ("{", "the issuer's document is not JSON"),
        ('{"issuer": "did:key:z6Mk"}', "the badge has no proof, or more than one"),
    ],
)
def test_what_is_no_credential_is_refused(document: str, reason: str) -> None:
    assert refusal(document).reason == reason
