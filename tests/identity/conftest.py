"""Single sign-on against a real OpenID provider (oidc-provider in Node), one per session.

The `app` of these tests is the suite's app with single sign-on configured, on the
suite's database: `db`, `client` and the other shared fixtures use it. The
provider's pages are driven over HTTP with requests; its answer (the callback URL)
is then opened with the Flask test client, and the app exchanges the code with
the provider over HTTP.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.factories import SEED
from tests.identity.oidc import (
    CLIENT_ID,
    CLIENT_SECRET,
    Provider,
    client,
    skip_without_provider,
    start_provider,
    through_provider,
)
from tests.live import free_port
from tracker import create_app
from tracker.identity.services.provider import OpenIdProvider
from tracker.identity.views import PROVIDER

BASE_URL = "http://tracker.test"
CALLBACK = f"{BASE_URL}/login/oidc/callback"
PROVIDER_NAME = "Test IdP"
ROLE_MAP = "gpu-admins=admin,gpu-managers=manager"

# The provider's people: the login is also the subject (devInteractions signs in any
# known login with any password).
ACCOUNTS: dict[str, dict[str, Any]] = {
    "alice": {
        "email": "alice@example.com",
        "email_verified": True,
        "name": "Alice Admin",
        "groups": ["staff", "gpu-admins"],
    },
    # Another account of the provider with Alice's address.
    "alice-again": {"email": "alice@example.com", "email_verified": True, "groups": []},
    "bob": {
        "email": "bob@example.com",
        "email_verified": True,
        "name": "Bob Manager",
        "groups": ["staff", "gpu-managers"],
    },
    "carol": {"email": "carol@example.com", "email_verified": True, "groups": ["staff"]},
    "dave": {"email": "dave@example.com", "email_verified": False, "groups": []},
    # No groups claim at all.
    "erin": {"email": "erin@example.com", "email_verified": True, "name": "Erin"},
    "frank": {
        "email": "Frank.New@Example.com",
        "email_verified": True,
        "given_name": "Frank",
        "family_name": "New",
        "groups": ["gpu-managers"],
    },
    "nomail": {"name": "Nobody"},
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run these tests on one xdist worker (--dist loadgroup): one provider, started once."""
    here = Path(__file__).parent
    group = pytest.mark.xdist_group("oidc")
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(group)


@pytest.fixture(scope="session")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Provider]:
    skip_without_provider()
    folder = tmp_path_factory.mktemp("oidc")
    running = start_provider(
        folder,
        free_port(),
        [client(BASE_URL), client(BASE_URL, client_id="another-client")],
        ACCOUNTS,
    )
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def app(database_url: str, provider: Provider) -> Iterator[Flask]:
    application = create_app(
        {
            "DATABASE_URL": database_url,
            "TESTING": True,
            "SECRET_KEY": "test-secret",
            "SEED_PATH": str(SEED),
            "WTF_CSRF_ENABLED": False,
            "BASE_URL": BASE_URL,
            "OIDC_ISSUER": provider.issuer,
            "OIDC_CLIENT_ID": CLIENT_ID,
            "OIDC_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_PROVIDER_NAME": PROVIDER_NAME,
            "OIDC_ROLE_CLAIM": "groups",
            "OIDC_ROLE_MAP": ROLE_MAP,
        }
    )
    yield application
    application.extensions["tracker.engine"].dispose()


class SingleSignOn:
    """One browser's way through the tracker and the provider's pages."""

    def __init__(self, app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
        self.app = app
        self.client = client
        self.monkeypatch = monkeypatch
        # The browser's cookies at the provider (its session there).
        self.browser = requests.Session()

    @property
    def oidc(self) -> OpenIdProvider:
        return self.app.extensions[PROVIDER]

    def configure(self, **changes: Any) -> None:
        """Change the single sign-on settings for this test (create_users, role_map...)."""
        settings = dataclasses.replace(self.oidc.settings, **changes)
        self.monkeypatch.setattr(self.oidc, "settings", settings)

    def start(self, path: str = "/login/oidc") -> str:
        """Open the tracker's sign-in route; return the provider's page it sends to."""
        response = self.client.get(path)
        assert response.status_code == 302, response.get_data(as_text=True)
        return response.headers["Location"]

    def answer(self, login: str, *, cancel: bool = False, path: str = "/login/oidc") -> str:
        """Sign in at the provider as `login`; return its answer (the callback URL), unopened."""
        return through_provider(
            self.start(path), login, CALLBACK, browser=self.browser, cancel=cancel
        )

    def open(self, url: str) -> TestResponse:
        """Open a URL of the tracker (the provider's answer) with the test client."""
        parts = urlsplit(url)
        return self.client.get(f"{parts.path}?{parts.query}")

    def sign_in(self, login: str, **kwargs: Any) -> TestResponse:
        """Go through the provider as `login` and back; return the tracker's answer."""
        return self.open(self.answer(login, **kwargs))


def query(url: str) -> dict[str, str]:
    """Return a URL's query parameters (each once)."""
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


@pytest.fixture
def sso(app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> Iterator[SingleSignOn]:
    way = SingleSignOn(app, client, monkeypatch)
    try:
        yield way
    finally:
        way.browser.close()
