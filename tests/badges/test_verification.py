"""Open Badges 2.0 hosted verification against a real issuer server."""

from __future__ import annotations

import base64
import json

import pytest

from tests.badges.conftest import TODAY, Issuer, PathServer
from tracker.badges.services import ob3
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.verification import is_ob3, verify_document, verify_url
from tracker.badges.services.verified import BadgeRefused

EMAIL = "ada@example.com"
FETCH = make_fetch({"127.0.0.1"})


def refused(call, *args) -> BadgeRefused:
    with pytest.raises(BadgeRefused) as caught:
        call(*args)
    return caught.value


def test_a_valid_hosted_badge_is_verified_with_its_dates(issuer: Issuer) -> None:
    issuer.assertion("/a/1", EMAIL, expires="2028-03-15T10:00:00Z")
    badge = verify_url(issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH)
    assert badge.format == "ob2"
    assert badge.assertion_id == issuer.server.url("/a/1")
    assert badge.badge_class_id == issuer.server.url("/badges/gpu-ops")
    assert (badge.badge_name, badge.issuer_name) == (
        "GPU Operations Practitioner",
        "Example Academy",
    )
    assert str(badge.issued_on) == "2026-03-15"
    assert str(badge.expires_on) == "2028-03-15"
    assert badge.recipient == EMAIL
    assert json.loads(badge.document)["id"] == badge.assertion_id


@pytest.mark.parametrize("hash_with", [None, "sha256", "md5"])
def test_the_recipient_may_be_plain_or_hashed_with_its_salt(issuer: Issuer, hash_with) -> None:
    issuer.assertion("/a/1", EMAIL, hash_with=hash_with)
    badge = verify_url(
        issuer.server.url("/a/1"), ["Other@Example.com", EMAIL.upper()], TODAY, FETCH
    )
    assert badge.recipient == EMAIL


def test_a_badge_for_someone_else_is_refused(issuer: Issuer) -> None:
    issuer.assertion("/a/1", "eve@example.com")
    error = refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH)
    assert error.kind == "recipient"


def test_a_pasted_assertion_with_a_tampered_recipient_is_refused(issuer: Issuer) -> None:
    hosted = issuer.assertion("/a/1", "eve@example.com")
    tampered = {**hosted, "recipient": {"type": "email", "hashed": False, "identity": EMAIL}}
    error = refused(verify_document, json.dumps(tampered), [EMAIL], TODAY, FETCH)
    assert "differs from the one its issuer hosts" in error.reason


def test_an_unknown_hash_is_refused(issuer: Issuer) -> None:
    document = issuer.assertion("/a/1", EMAIL)
    document["recipient"]["identity"] = "sha1$abc"
    issuer.server.serve("/a/1", document)
    assert refused(verify_url, document["id"], [EMAIL], TODAY, FETCH).kind == "recipient"


def test_a_gone_assertion_is_revoked(issuer: Issuer) -> None:
    issuer.assertion("/a/1", EMAIL, status=410)
    assert refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH).kind == "revoked"


def test_an_assertion_marked_revoked_is_refused_with_its_reason(issuer: Issuer) -> None:
    issuer.assertion("/a/1", EMAIL, revoked=True, revocationReason="issued in error")
    error = refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH)
    assert (error.kind, "issued in error" in error.reason) == ("revoked", True)


def test_an_assertion_on_the_issuers_revocation_list_is_refused(issuer: Issuer) -> None:
    issuer.assertion("/a/1", EMAIL)
    issuer.assertion("/a/2", EMAIL)
    issuer.profile["revocationList"] = issuer.server.serve(
        "/revocations",
        {
            "@context": "https://w3id.org/openbadges/v2",
            "type": "RevocationList",
            "id": issuer.server.url("/revocations"),
            "revokedAssertions": [{"id": issuer.server.url("/a/1"), "revocationReason": "fraud"}],
        },
    )
    issuer.publish_profile()
    assert refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH).kind == "revoked"
    assert verify_url(issuer.server.url("/a/2"), [EMAIL], TODAY, FETCH).recipient == EMAIL


def test_an_expired_badge_is_refused(issuer: Issuer) -> None:
    issuer.assertion("/a/1", EMAIL, issued="2024-01-01", expires="2026-11-28T23:00:00Z")
    error = refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH)
    assert (error.kind, "2026-11-28" in error.reason) == ("expired", True)


def test_a_badge_valid_through_today_is_accepted(issuer: Issuer) -> None:
    issuer.assertion("/a/1", EMAIL, issued="2024-01-01", expires="2026-11-29")
    assert verify_url(issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH).expires_on == TODAY


def test_a_badge_class_naming_another_issuer_than_the_one_fetched_is_refused(
    issuer: Issuer,
) -> None:
    # The badge class says /issuer-b, whose profile says it is /issuer.
    issuer.server.serve("/issuer-b", issuer.profile)
    issuer.badge_class("/badges/gpu-ops", "GPU Operations", issuer=issuer.server.url("/issuer-b"))
    issuer.assertion("/a/1", EMAIL)
    error = refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH)
    assert "does not say it is that URL" in error.reason


def test_an_assertion_not_at_its_id_is_refused(issuer: Issuer) -> None:
    document = issuer.assertion("/a/1", EMAIL)
    issuer.server.serve("/copy", document)
    error = refused(verify_url, issuer.server.url("/copy"), [EMAIL], TODAY, FETCH)
    assert "does not say it is that URL" in error.reason


def test_an_assertion_hosted_where_its_issuer_does_not_vouch_is_refused(issuer: Issuer) -> None:
    issuer.profile["verification"] = {"allowedOrigins": ["badges.example.org"]}
    issuer.publish_profile()
    issuer.assertion("/a/1", EMAIL)
    error = refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH)
    assert "wrong issuer" in error.reason


def test_a_badge_issued_in_the_future_is_refused(issuer: Issuer) -> None:
    issuer.assertion("/a/1", EMAIL, issued="2026-12-01T00:00:00Z")
    assert "future" in refused(verify_url, issuer.server.url("/a/1"), [EMAIL], TODAY, FETCH).reason


@pytest.mark.parametrize(
    "body",
    ["not json", "[1]", json.dumps({"type": "BadgeClass"}), json.dumps({"type": "Assertion"})],
)
def test_what_is_not_an_assertion_is_refused(served: PathServer, body: str) -> None:
    served.serve("/x", body)
    assert refused(verify_url, served.url("/x"), [EMAIL], TODAY, FETCH).kind == "invalid"


def test_a_vc_goes_to_the_open_badges_3_verifier(
    served: PathServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[str] = []

    def verify_ob3(document, emails, today, fetch):
        given.append(document)
        raise BadgeRefused("seen by ob3")

    monkeypatch.setattr(ob3, "verify_ob3", verify_ob3)
    credential = json.dumps(
        {
            "@context": ["https://www.w3.org/ns/credentials/v2"],
            "type": ["VerifiableCredential", "OpenBadgeCredential"],
        }
    )
    served.serve("/vc", credential)
    jwt = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln"
    for call, document in (
        (verify_url, served.url("/vc")),
        (verify_document, credential),
        (verify_document, jwt),
    ):
        assert refused(call, document, [EMAIL], TODAY, FETCH).reason == "seen by ob3"
    assert given == [credential, credential, jwt]


def test_an_open_badges_2_assertion_does_not_go_to_the_3_verifier(issuer: Issuer) -> None:
    assert not is_ob3(json.dumps(issuer.assertion("/a/1", EMAIL)))


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "text",
    [
        DEEP,
        '{"a": ' + DEEP + "}",
        f"{_b64('{}')}.{_b64(DEEP)}.c2ln",
        f"{_b64(DEEP)}.{_b64('{}')}.c2ln",
    ],
)
def test_a_badge_nested_too_deep_is_refused_not_an_error(served: PathServer, text: str) -> None:
    with pytest.raises(BadgeRefused):
        verify_document(text, [EMAIL], TODAY, FETCH)
