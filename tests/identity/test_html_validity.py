"""The sign-in page's single sign-on variants are valid HTML (the Nu HTML checker).

The demo crawl of tests/test_html_validity.py runs without single sign-on; these
are the pages it cannot reach: the provider's button, the profile's linked
account, the folded break-glass form, a refusal.
"""

from __future__ import annotations

import pytest

from tests import factories
from tests.identity.helpers import ROOT
from tests.nu import JAVA, VNU_JAR, grouped, validate


@pytest.mark.skipif(JAVA is None, reason="java not found: the Nu HTML check is skipped")
@pytest.mark.skipif(not VNU_JAR.exists(), reason=f"{VNU_JAR} not found: Nu HTML check skipped")
def test_the_single_sign_on_pages_are_valid_html(sso, app, db, tmp_path, monkeypatch):
    saved: dict[str, str] = {}

    def save(label: str, response, status: int) -> None:
        assert response.status_code == status, label
        name = f"{len(saved):02d}.html"
        (tmp_path / name).write_bytes(response.get_data())
        saved[name] = label

    save("sign-in page", sso.client.get("/login"), 200)
    # Signed in through the provider: the profile lists the account just linked.
    factories.engineer(db, email="alice@example.com", name="Alice A")
    assert sso.sign_in("alice").status_code == 302
    profile = sso.client.get("/profile")
    assert "Single sign-on accounts" in profile.get_data(as_text=True)
    save("profile with a linked account", profile, 200)
    sso.client.post("/logout")
    sso.browser.cookies.clear()
    save("refused: no account", sso.sign_in("frank"), 403)
    sso.browser.cookies.clear()
    save("refused: the provider said no", sso.sign_in("carol", cancel=True), 401)
    monkeypatch.setitem(app.config, "LOCAL_LOGIN", False)
    monkeypatch.setitem(app.config, "BREAK_GLASS_ADMINS", frozenset({ROOT}))
    save("break-glass form folded", sso.client.get("/login"), 200)
    wrong = {"email": "someone@example.com", "password": "a password"}
    save("password refused", sso.client.post("/login", data=wrong), 403)

    messages = validate(tmp_path, sorted(saved))
    errors = [m for m in messages if m.get("type") != "info"]
    assert not errors, grouped(errors, saved)
