"""An admin's two-step sign-in in a real browser: the code, a first set-up by QR code."""

from __future__ import annotations

import re

import pyotp
from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import expect

from tests.browser.conftest import DEMO_PASSWORD, SECRETS, app_code, snap
from tests.browser.crawling import check, in_spanish
from tests.live import LiveServer
from tracker.clock import utcnow
from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET
from tracker.people.services.totp import code_at, time_step

ADMIN = "admin@example.com"


def _password(page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.locator("main form").first.locator("[type=submit]").click()


def _assert_passes_axe(page, label: str) -> None:
    visit = check(page, label, 200)
    assert not visit.problems, "\n".join(visit.problems)


def test_an_admin_gives_the_apps_code_after_the_password(page):
    page.context.add_init_script(AXE_SCRIPT)
    _password(page, ADMIN)
    page.wait_for_url("**/login/totp")
    expect(page.get_by_label("Code")).to_be_focused()
    snap(page, "second step")

    # No admin page opens before the code: each asks for the step again.
    page.goto("/admin/people")
    page.wait_for_url("**/login/totp")
    assert page.get_by_role("heading", name="Two-step sign-in", level=1).is_visible()

    page.get_by_label("Code").fill(code_at(DEMO_ADMIN_TOTP_SECRET, time_step(utcnow()) - 10))
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator(".field-error")).to_contain_text("the code is wrong or was already used")
    _assert_passes_axe(page, "/login/totp with a wrong code")
    snap(page, "wrong code")

    page.get_by_label("Code").fill(app_code(ADMIN))
    page.get_by_role("button", name="Sign in", exact=True).click()
    # The page first asked for is where the sign-in lands.
    page.wait_for_url("**/admin/people")
    page.get_by_role("link", name="Account trail").first.click()
    page.wait_for_url("**/admin/audit")
    first = page.locator("table.account-trail tbody tr").first.inner_text()
    assert "Signed in" in first and "Authenticator code" in first, first
    page.get_by_label("How").select_option("totp")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r".*method=totp.*"))
    assert "Sign-in refused" in page.locator("table.account-trail").inner_text()
    snap(page, "account trail")


def test_a_new_admin_sets_up_an_app_from_the_qr_code(page, browser, server: LiveServer):
    page.context.add_init_script(AXE_SCRIPT)
    email = "nova@example.com"
    server.tracker(
        "user", "add", email, "--name", "Nova Admin", "--role", "admin", "--password", DEMO_PASSWORD
    )
    _password(page, email)
    page.wait_for_url("**/login/totp/setup")
    qr = page.get_by_role("img", name=re.compile("QR code"))
    expect(qr).to_be_visible()
    assert qr.get_attribute("src").startswith("data:image/svg+xml")
    assert qr.evaluate("(img) => img.naturalWidth") > 0  # the browser drew it
    _assert_passes_axe(page, "/login/totp/setup")
    snap(page, "set-up")

    # The same page, for a Spanish reader.
    spanish = browser.new_context(base_url=server.url, locale="es-ES")
    try:
        other = spanish.new_page()
        other.goto("/login")
        other.locator("input[name=email]").fill(email)
        other.locator("input[name=password]").fill(DEMO_PASSWORD)
        other.locator("main form").first.locator("[type=submit]").click()
        other.wait_for_url("**/login/totp/setup")
        visit = in_spanish(other, "/login/totp/setup (es)", 200)
        assert not visit.problems, visit.problems
    finally:
        spanish.close()

    secret = page.locator("#totp-secret").inner_text().replace(" ", "")
    SECRETS[email] = secret
    page.get_by_label("Code the app shows").fill(pyotp.TOTP(secret).now())
    page.get_by_role("button", name="Confirm and show recovery codes").click()
    expect(page.get_by_role("heading", name="Your recovery codes")).to_be_visible()
    expect(page.locator("ol.recovery-codes li")).to_have_count(10)
    _assert_passes_axe(page, "recovery codes")
    snap(page, "recovery codes")
    page.get_by_role("button", name="I have kept them: continue").click()
    page.wait_for_url("**/dashboard")
    page.goto("/admin/people")
    assert page.get_by_role("heading", name="People", level=1).is_visible()
