"""What script in the page can read of the session cookie: nothing."""

from __future__ import annotations

from tests.browser.conftest import sign_in, snap


def test_the_session_cookie_is_out_of_reach_of_script(page):
    sign_in(page, "sam@example.com")
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["session"]
    assert session["httpOnly"] is True
    assert session["sameSite"] == "Lax"
    assert "session=" not in page.evaluate("document.cookie")
    snap(page, "signed in")
