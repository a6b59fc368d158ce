"""Talking to the OpenID provider: discovery, its keys, the code exchange, user info, sign-out.

One `OpenIdProvider` per application keeps the discovery document and the signing
keys for METADATA_TTL; keys are asked again at once when an ID token names a key
they lack. Every call waits at most HTTP_TIMEOUT_SECONDS; a provider that does not
answer, or answers nonsense, raises SignInRefused("unreachable").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.integrations.requests_client import OAuthError as ClientOAuthError
from authlib.oauth2.rfc6749.errors import OAuth2Error
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from tracker.identity.rules import HTTP_TIMEOUT_SECONDS, METADATA_TTL
from tracker.identity.services.refusals import SignInRefused
from tracker.identity.services.settings import OidcSettings
from tracker.identity.services.tokens import verify_id_token

# What a discovery document must name for the code flow.
REQUIRED_METADATA = ("authorization_endpoint", "token_endpoint", "jwks_uri")
# Claims of the ID token that the user info answer may not replace.
TOKEN_ONLY_CLAIMS = frozenset(
    {"iss", "sub", "aud", "exp", "iat", "nbf", "nonce", "azp", "auth_time", "acr", "amr", "sid"}
)


def _unreachable(what: str) -> SignInRefused:
    return SignInRefused("unreachable", f"unreachable: {what}")


class OpenIdProvider:
    """The provider of one application's settings, with its discovery and keys cached."""

    def __init__(
        self,
        settings: OidcSettings,
        *,
        timeout: float = HTTP_TIMEOUT_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.timeout = timeout
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._metadata: tuple[float, dict[str, Any]] | None = None
        self._keys: tuple[float, KeySet] | None = None

    # --- what the provider publishes ---------------------------------------

    def _get_json(self, url: str, what: str) -> dict[str, Any]:
        try:
            response = requests.get(
                url, timeout=self.timeout, headers={"Accept": "application/json"}
            )
            response.raise_for_status()
            body = response.json()
        except (requests.RequestException, ValueError):
            raise _unreachable(what) from None
        if not isinstance(body, dict):
            raise _unreachable(what)
        return body

    def _fresh(self, cached: tuple[float, Any] | None) -> bool:
        return cached is not None and self._monotonic() - cached[0] < METADATA_TTL.total_seconds()

    def metadata(self) -> dict[str, Any]:
        """Return the provider's discovery document (its issuer checked against ours)."""
        with self._lock:
            if self._metadata is not None and self._fresh(self._metadata):
                return self._metadata[1]
        document = self._get_json(self.settings.discovery_url, "discovery")
        # OpenID Connect Discovery 4.3: the document must be the configured issuer's own.
        if document.get("issuer") != self.settings.issuer:
            raise SignInRefused("unreachable", "discovery issuer mismatch")
        if not all(isinstance(document.get(name), str) for name in REQUIRED_METADATA):
            raise _unreachable("discovery lacks an endpoint")
        with self._lock:
            self._metadata = (self._monotonic(), document)
        return document

    def signing_keys(self, refresh: bool = False) -> KeySet:
        """Return the provider's published keys; `refresh` asks the provider again."""
        with self._lock:
            if not refresh and self._keys is not None and self._fresh(self._keys):
                return self._keys[1]
        document = self._get_json(self.metadata()["jwks_uri"], "keys")
        try:
            keys = KeySet.import_key_set(document)  # type: ignore[arg-type]  # checked by joserfc
        except (JoseError, KeyError, TypeError, ValueError):
            raise _unreachable("keys unreadable") from None
        with self._lock:
            self._keys = (self._monotonic(), keys)
        return keys

    # --- the code flow -----------------------------------------------------

    def _client(self, **kwargs: Any) -> OAuth2Session:
        settings = self.settings
        return OAuth2Session(
            client_id=settings.client_id,
            client_secret=settings.client_secret or None,
            token_endpoint_auth_method=(
                "client_secret_basic" if settings.client_secret else "none"
            ),
            scope=" ".join(settings.scopes),
            redirect_uri=settings.redirect_uri,
            code_challenge_method="S256",
            default_timeout=self.timeout,
            **kwargs,
        )

    def authorization_url(self, *, state: str, nonce: str, code_verifier: str) -> str:
        """Return the provider's page that signs the person in (code flow, PKCE S256)."""
        endpoint = self.metadata()["authorization_endpoint"]
        with self._client() as client:
            url, _ = client.create_authorization_url(
                endpoint, state=state, code_verifier=code_verifier, nonce=nonce
            )
        return url

    def sign_in(self, *, code: str, code_verifier: str, nonce: str, now: int) -> dict[str, Any]:
        """Exchange the code for tokens; return the checked claims, with the ID token itself.

        The claims are the ID token's, completed by the user info endpoint's when the
        provider has one (whose subject must be the token's). The ID token is under
        "id_token" of the result, for signing out at the provider later.
        """
        metadata = self.metadata()
        with self._client() as client:
            try:
                token = client.fetch_token(
                    metadata["token_endpoint"],
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=code_verifier,
                )
            except (ClientOAuthError, OAuth2Error):
                # The provider refused the code: used before, expired, or not this client's.
                raise SignInRefused("token", "token_refused") from None
            except (requests.RequestException, ValueError):
                raise _unreachable("token endpoint") from None
            id_token = token.get("id_token")
            if not isinstance(id_token, str):
                raise SignInRefused("token", "missing_claim")
            claims = verify_id_token(
                id_token,
                self.signing_keys,
                issuer=self.settings.issuer,
                client_id=self.settings.client_id,
                nonce=nonce,
                now=now,
            )
            userinfo_endpoint = metadata.get("userinfo_endpoint")
            if isinstance(userinfo_endpoint, str) and token.get("access_token"):
                try:
                    response = client.get(userinfo_endpoint, timeout=self.timeout)
                    response.raise_for_status()
                    userinfo = response.json()
                except (requests.RequestException, ValueError):
                    raise _unreachable("user info") from None
                if not isinstance(userinfo, dict):
                    raise _unreachable("user info")
                if userinfo.get("sub") != claims["sub"]:
                    raise SignInRefused("token", "userinfo_subject")
                for name, value in userinfo.items():
                    if name not in TOKEN_ONLY_CLAIMS:
                        claims[name] = value
        return {**claims, "id_token": id_token}

    def end_session_url(self, id_token: str | None) -> str | None:
        """Return the provider's sign-out page for this person, or None when it offers none."""
        try:
            endpoint = self.metadata().get("end_session_endpoint")
        except SignInRefused:
            return None
        if not isinstance(endpoint, str):
            return None
        params = {
            "client_id": self.settings.client_id,
            "post_logout_redirect_uri": self.settings.post_logout_redirect_uri,
        }
        if id_token:
            params["id_token_hint"] = id_token
        separator = "&" if "?" in endpoint else "?"
        return endpoint + separator + urlencode(params)
