"""Each check of an ID token refuses what it must, against the real provider's published keys.

The tokens are signed with the provider's own private keys (the tests hold them),
or with keys it does not publish; the keys the tracker checks them with come from
the provider's JWKS endpoint over HTTP.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, OctKey

from tests.identity.conftest import BASE_URL
from tests.identity.oidc import CLIENT_ID, CLIENT_SECRET, Provider, signing_key
from tracker.identity.services.provider import OpenIdProvider
from tracker.identity.services.refusals import SignInRefused
from tracker.identity.services.settings import OidcSettings
from tracker.identity.services.tokens import verify_id_token

NONCE = "nonce-of-this-sign-in"
TIMES = ("exp", "iat", "nbf")


class CountingKeys:
    """The provider's keys as the tracker fetches them, counting the fetches."""

    def __init__(self, provider: Provider) -> None:
        self.oidc = OpenIdProvider(
            OidcSettings(
                issuer=provider.issuer,
                client_id=CLIENT_ID,
                client_secret=CLIENT_SECRET,
                base_url=BASE_URL,
            )
        )
        self.refreshes = 0

    def __call__(self, refresh: bool) -> KeySet:
        self.refreshes += refresh
        return self.oidc.signing_keys(refresh)


@pytest.fixture
def keys(provider: Provider) -> CountingKeys:
    return CountingKeys(provider)


def claims(provider: Provider, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    values = {
        "iss": provider.issuer,
        "sub": "alice",
        "aud": CLIENT_ID,
        "iat": now,
        "exp": now + 300,
        "nonce": NONCE,
    }
    values.update(changes)
    return {name: value for name, value in values.items() if value is not None}


def verify(token: str, keys: CountingKeys, provider: Provider, **kwargs: Any) -> dict[str, Any]:
    return verify_id_token(
        token,
        keys,
        issuer=kwargs.get("issuer", provider.issuer),
        client_id=CLIENT_ID,
        nonce=kwargs.get("nonce", NONCE),
        now=kwargs.get("now", int(time.time())),
    )


def refusal(token: str, keys: CountingKeys, provider: Provider, **kwargs: Any) -> str:
    with pytest.raises(SignInRefused) as refused:
        verify(token, keys, provider, **kwargs)
    assert refused.value.kind == "token"
    return refused.value.reason


def test_a_token_the_provider_signed_for_this_client_passes(provider, keys):
    token = provider.sign(claims(provider))
    assert verify(token, keys, provider)["sub"] == "alice"
    assert keys.refreshes == 0


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"iss": "https://evil.example.com"}, "wrong_issuer"),
        ({"aud": "another-client"}, "wrong_audience"),
        ({"aud": ["another-client", "a-third"]}, "wrong_audience"),
        # Several audiences: the authorized party must be named, and be this client.
        ({"aud": [CLIENT_ID, "another-client"]}, "wrong_azp"),
        ({"aud": [CLIENT_ID, "another-client"], "azp": "another-client"}, "wrong_azp"),
        ({"azp": "another-client"}, "wrong_azp"),
        # Seconds from now: expired beyond the minute of leeway; issued in the future beyond it.
        ({"exp": -120}, "expired"),
        ({"iat": 600}, "issued_in_future"),
        ({"nbf": 600}, "not_yet_valid"),
        ({"nonce": "a-replayed-token's-nonce"}, "nonce_mismatch"),
        ({"nonce": None}, "missing_claim"),
        ({"exp": None}, "missing_claim"),
        ({"sub": None}, "missing_claim"),
    ],
)
def test_a_token_breaking_a_claim_rule_is_refused(provider, keys, changes, reason):
    # Times are given from now, which is when the test runs (not when it was collected).
    now = int(time.time())
    changes = {k: now + v if k in TIMES and v is not None else v for k, v in changes.items()}
    token = provider.sign(claims(provider, **changes))
    assert refusal(token, keys, provider) == reason


def test_several_audiences_naming_this_client_as_authorized_party_pass(provider, keys):
    token = provider.sign(claims(provider, aud=[CLIENT_ID, "another"], azp=CLIENT_ID))
    assert verify(token, keys, provider)["azp"] == CLIENT_ID


def test_expiry_allows_a_minute_of_clock_skew(provider, keys):
    token = provider.sign(claims(provider, exp=int(time.time()) - 30))
    assert verify(token, keys, provider)["sub"] == "alice"


def test_a_signature_by_another_key_under_the_providers_key_id_is_refused(provider, keys):
    impostor = signing_key()
    token = jwt.encode({"alg": "RS256", "kid": provider.keys[0].kid}, claims(provider), impostor)
    assert refusal(token, keys, provider) == "bad_signature"


def test_a_changed_payload_breaks_the_signature(provider, keys):
    header, _, signature = provider.sign(claims(provider)).split(".")
    forged = claims(provider, sub="mallory")
    payload = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
    assert refusal(f"{header}.{payload}.{signature}", keys, provider) == "bad_signature"


def test_an_unknown_key_asks_the_provider_once_more_then_refuses(provider, keys):
    stranger = signing_key()
    token = provider.sign(claims(provider), key=stranger)
    assert refusal(token, keys, provider) == "unknown_key"
    assert keys.refreshes == 1


def test_a_rotated_key_is_fetched_once_and_accepted(provider, keys):
    # The tracker has the provider's current keys cached.
    assert verify(provider.sign(claims(provider)), keys, provider)
    new = signing_key()
    with provider.rotated(new):
        assert provider.published_kids() == [new.kid]
        assert verify(provider.sign(claims(provider)), keys, provider)["sub"] == "alice"
        assert keys.refreshes == 1
        # The refreshed keys are kept: the next token needs no fetch.
        assert verify(provider.sign(claims(provider)), keys, provider)
        assert keys.refreshes == 1


def test_symmetric_and_unsigned_tokens_are_refused(provider, keys):
    secret = OctKey.import_key(CLIENT_SECRET.encode())
    hs256 = jwt.encode({"alg": "HS256"}, claims(provider), secret, algorithms=["HS256"])
    assert refusal(hs256, keys, provider) == "algorithm"
    header = base64.urlsafe_b64encode(b'{"alg":"none"}').rstrip(b"=").decode()
    payload = base64.urlsafe_b64encode(json.dumps(claims(provider)).encode()).rstrip(b"=")
    assert refusal(f"{header}.{payload.decode()}.", keys, provider) == "algorithm"


@pytest.mark.parametrize("token", ["", "not-a-token", "a.b.c", "é.b.c"])
def test_garbage_is_refused_as_malformed(provider, keys, token):
    assert refusal(token, keys, provider) == "malformed"


def test_a_token_for_another_issuers_configuration_is_refused(provider, keys):
    token = provider.sign(claims(provider))
    assert refusal(token, keys, provider, issuer=provider.issuer + "/other") == "wrong_issuer"
