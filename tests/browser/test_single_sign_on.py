"""Single sign-on in a real browser: the provider's own pages, there and back, and signing out.

A `tracker serve` of its own (the demo organisation) with single sign-on
configured, and oidc-provider beside it; Chromium clicks through both.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import expect

from tests.browser.conftest import Shots, snap
from tests.browser.crawling import check
from tests.identity.oidc import (
    CLIENT_ID,
    CLIENT_SECRET,
    Provider,
    client,
    skip_without_provider,
    start_provider,
)
from tests.live import LiveServer, free_port, run_tracker, start_server, tracker_env

PROVIDER_NAME = "Example IdP"
ACCOUNTS = {
    # Tom Becker of the demo organisation, an engineer.
    "tom": {"email": "tom@example.com", "email_verified": True, "name": "Tom", "groups": []},
    "stranger": {"email": "stranger@example.com", "email_verified": True, "groups": []},
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Provider, int]]:
    skip_without_provider()
    tracker_port = free_port()
    running = start_provider(
        tmp_path_factory.mktemp("sso-provider"),
        free_port(),
        [client(f"http://127.0.0.1:{tracker_port}")],
        ACCOUNTS,
    )
    try:
        yield running, tracker_port
    finally:
        running.stop()


@pytest.fixture(scope="module")
def sso_server(
    tmp_path_factory: pytest.TempPathFactory, provider: tuple[Provider, int]
) -> Iterator[LiveServer]:
    idp, port = provider
    folder = tmp_path_factory.mktemp("sso-tracker")
    env = tracker_env(
        f"sqlite:///{folder / 'tracker.db'}",
        TRACKER_BASE_URL=f"http://127.0.0.1:{port}",
        TRACKER_OIDC_ISSUER=idp.issuer,
        TRACKER_OIDC_CLIENT_ID=CLIENT_ID,
        TRACKER_OIDC_CLIENT_SECRET=CLIENT_SECRET,
        TRACKER_OIDC_PROVIDER_NAME=PROVIDER_NAME,
        TRACKER_OIDC_ROLE_CLAIM="groups",
        TRACKER_OIDC_ROLE_MAP="gpu-admins=admin,gpu-managers=manager",
    )
    run_tracker(env, "init", "--demo")
    live = start_server(env, folder / "serve.log", port=port)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def sso_page(browser, sso_server: LiveServer, request: pytest.FixtureRequest) -> Iterator[object]:
    """A page in a fresh context on the single sign-on server, axe loaded, CSP watched."""
    context = browser.new_context(base_url=sso_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    context.add_init_script(AXE_SCRIPT)
    # The provider's development pages import a web font; this machine need not reach it.
    context.route("https://fonts.googleapis.com/**", lambda route: route.abort())
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    shots = Shots(request.node.name)
    page.shots = shots  # type: ignore[attr-defined]
    try:
        yield page
        assert not violations, f"CSP violations: {violations}"
    finally:
        try:
            shots.take(page, "end")
        finally:
            context.close()


def through_provider(page, login: str) -> None:
    """Sign in on the provider's own pages as `login` (any password), consenting."""
    page.locator("input[name=login]").fill(login)
    page.locator("input[name=password]").fill("any password will do")
    page.get_by_role("button", name="Sign-in").click()
    page.get_by_role("button", name="Continue").click()


def test_signing_in_and_out_through_the_providers_pages(sso_page, provider):
    idp, _ = provider
    page = sso_page
    response = page.goto("/login")
    visit = check(page, "/login", response.status)
    assert not visit.problems, visit.problems
    snap(page, "sign-in page")
    page.get_by_role("button", name=f"Sign in with {PROVIDER_NAME}").click()
    page.wait_for_url(f"{idp.issuer}/interaction/**")
    through_provider(page, "tom")
    page.wait_for_url("**/dashboard")
    expect(page.locator("header nav")).to_contain_text("Tom Becker")

    # Signing out goes on to the provider's sign-out page (the form may go there), and back.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{idp.issuer}/session/end**")
    snap(page, "provider sign-out")
    page.get_by_role("button", name="Yes, sign me out").click()
    page.wait_for_url("**/login**")
    expect(page.get_by_role("status")).to_contain_text("You are signed out.")
    page.goto("/dashboard")
    page.wait_for_url("**/login?next=**")


def test_a_refused_sign_in_says_why_on_an_accessible_page(sso_page, provider):
    page = sso_page
    page.goto("/login")
    page.get_by_role("button", name=f"Sign in with {PROVIDER_NAME}").click()
    through_provider(page, "stranger")
    page.wait_for_url("**/login/oidc/callback?**")
    expect(page.get_by_role("alert")).to_contain_text(
        "No tracker account has the address stranger@example.com. Ask an admin to add you."
    )
    visit = check(page, page.url, 403)
    assert not visit.problems, visit.problems
    snap(page, "refused")
    # The page's password form signs in on the sign-in page, not on the callback.
    form = page.locator("form:has(input[name=password])")
    form.locator("input[name=email]").fill("tom@example.com")
    form.locator("input[name=password]").fill("tracker-demo")
    form.locator("[type=submit]").click()
    page.wait_for_url("**/dashboard")
