"""A real OpenID provider for the tests: `oidc-provider` (Node) in a subprocess.

`start_provider` writes the settings tests/identity/provider.mjs reads (clients,
accounts, signing keys), starts it on 127.0.0.1 and waits for its discovery
document. The tests hold the provider's private keys too: they sign tokens of
their own with them (a wrong audience, an expired token) that the tracker checks
against the keys the provider publishes. `rotated` swaps the provider's keys.

`through_provider` drives the provider's own sign-in pages (devInteractions: any
password) over HTTP and returns where it sends the browser back.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import RSAKey

from tracker.config import PROJECT_ROOT

PROVIDER_SCRIPT = Path(__file__).with_name("provider.mjs")
NODE = shutil.which("node")
OIDC_PROVIDER = PROJECT_ROOT / "node_modules" / "oidc-provider" / "package.json"
SKIP_REASON = (
    "the OpenID provider needs Node and `npm install --no-save oidc-provider@9`"
    " (node_modules/oidc-provider): single sign-on tests skipped"
)
CLIENT_ID = "tracker"
CLIENT_SECRET = "tracker-client-secret-for-tests"


def provider_available() -> bool:
    return NODE is not None and OIDC_PROVIDER.exists()


def skip_without_provider() -> None:
    if not provider_available():
        pytest.skip(SKIP_REASON)


def signing_key() -> RSAKey:
    """Return a fresh private RSA signing key with a key id."""
    key = RSAKey.generate_key(2048, parameters={"use": "sig", "alg": "RS256"}, private=True)
    key.ensure_kid()
    return key


def client(base_url: str, client_id: str = CLIENT_ID) -> dict[str, Any]:
    """Return the provider's registration of a tracker served at `base_url`."""
    base = base_url.rstrip("/")
    return {
        "client_id": client_id,
        "client_secret": CLIENT_SECRET,
        "redirect_uris": [f"{base}/login/oidc/callback"],
        "post_logout_redirect_uris": [f"{base}/login"],
        "grant_types": ["authorization_code"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "client_secret_basic",
    }


@dataclass
class Provider:
    """A running oidc-provider; `keys` are the private keys it publishes (the first signs)."""

    issuer: str
    settings_path: Path
    settings: dict[str, Any]
    process: subprocess.Popen
    log: Path
    keys: list[RSAKey] = field(default_factory=list)

    def _write(self) -> None:
        self.settings["jwks"] = {"keys": [key.as_dict(private=True) for key in self.keys]}
        self.settings_path.write_text(json.dumps(self.settings))

    def reload(self) -> None:
        """Start the provider afresh from its settings (its sessions and codes are forgotten)."""
        self._write()
        response = requests.post(f"{self.issuer}/_test/reload", timeout=10)
        assert response.status_code == 204, response.text

    @contextlib.contextmanager
    def rotated(self, *keys: RSAKey) -> Iterator[None]:
        """Publish and sign with `keys` instead of the current ones, for the block."""
        saved = self.keys
        self.keys = list(keys)
        self.reload()
        try:
            yield
        finally:
            self.keys = saved
            self.reload()

    def published_kids(self) -> list[str]:
        document = requests.get(f"{self.issuer}/jwks", timeout=10).json()
        return [key["kid"] for key in document["keys"]]

    def sign(self, claims: dict[str, Any], key: RSAKey | None = None, **header: Any) -> str:
        """Return a JWT of `claims` signed with the provider's key (or `key`)."""
        key = key or self.keys[0]
        return jwt.encode({"alg": "RS256", "kid": key.kid, **header}, claims, key)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def start_provider(
    folder: Path,
    port: int,
    clients: list[dict[str, Any]],
    accounts: dict[str, dict[str, Any]],
) -> Provider:
    """Start oidc-provider on 127.0.0.1:`port` and wait until it answers discovery."""
    issuer = f"http://127.0.0.1:{port}"
    keys = [signing_key()]
    settings = {
        "port": port,
        "issuer": issuer,
        "clients": clients,
        "accounts": accounts,
        "jwks": {"keys": [key.as_dict(private=True) for key in keys]},
    }
    path, log = folder / "provider.json", folder / "provider.log"
    path.write_text(json.dumps(settings))
    with log.open("wb") as out:
        process = subprocess.Popen(
            [NODE or "node", str(PROVIDER_SCRIPT), str(path)],
            cwd=PROJECT_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    provider = Provider(issuer, path, settings, process, log, keys)
    deadline = time.monotonic() + 30
    while True:
        if provider.process.poll() is not None:
            raise RuntimeError(f"oidc-provider exited:\n{log.read_text()}")
        try:
            discovery = f"{issuer}/.well-known/openid-configuration"
            if requests.get(discovery, timeout=2).status_code == 200:
                return provider
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline:
            provider.stop()
            raise RuntimeError(f"oidc-provider did not answer in 30 s:\n{log.read_text()}")
        time.sleep(0.1)


class _Forms(HTMLParser):
    """The forms of a page (action, fields of hidden inputs) and its links."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append((attr.get("action", ""), {}))
        elif tag == "input" and attr.get("type") == "hidden" and self.forms:
            self.forms[-1][1][attr["name"]] = attr.get("value", "")
        elif tag == "a" and "href" in attr:
            self.links.append(attr["href"])


def parse_page(html: str) -> _Forms:
    page = _Forms()
    page.feed(html)
    return page


def through_provider(
    authorize_url: str,
    login: str,
    back_to: str,
    *,
    browser: requests.Session | None = None,
    cancel: bool = False,
) -> str:
    """Sign in as `login` on the provider's pages (consenting); return the URL back to `back_to`.

    `cancel` presses the sign-in page's Cancel link instead. `browser` keeps the
    provider's cookies (its session) across calls.
    """
    browser = browser or requests.Session()
    response = browser.get(authorize_url, allow_redirects=False, timeout=10)
    for _ in range(12):
        location = response.headers.get("Location")
        if location:
            target = urljoin(response.url, location)
            if target.startswith(back_to):
                return target
            response = browser.get(target, allow_redirects=False, timeout=10)
            continue
        assert response.status_code == 200, f"{response.status_code}: {response.text[:500]}"
        page = parse_page(response.text)
        if cancel:
            abort = next(link for link in page.links if link.endswith("/abort"))
            response = browser.get(urljoin(response.url, abort), allow_redirects=False, timeout=10)
            continue
        action, fields = page.forms[0]
        if fields.get("prompt") == "login":
            fields.update(login=login, password="any password will do")
        response = browser.post(
            urljoin(response.url, action), data=fields, allow_redirects=False, timeout=10
        )
    raise AssertionError(f"the provider never sent the browser back to {back_to}")


def sign_out_at_provider(end_session_url: str, browser: requests.Session, back_to: str) -> str:
    """Confirm the provider's sign-out page; return the URL it sends the browser back to."""
    response = browser.get(end_session_url, allow_redirects=False, timeout=10)
    assert response.status_code == 200, f"{response.status_code}: {response.text[:500]}"
    action, fields = parse_page(response.text).forms[0]
    response = browser.post(
        urljoin(response.url, action),
        data={**fields, "logout": "yes"},
        allow_redirects=False,
        timeout=10,
    )
    for _ in range(5):
        target = urljoin(response.url, response.headers["Location"])
        if target.startswith(back_to):
            return target
        response = browser.get(target, allow_redirects=False, timeout=10)
    raise AssertionError(f"the provider's sign-out never came back to {back_to}")
