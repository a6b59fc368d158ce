"""Signing out of a provider's sign-in: the tracker's sessions end, then the provider's."""

from __future__ import annotations

from tests import factories
from tests.helpers import csp_directives, fresh, sign_in
from tests.identity.conftest import BASE_URL, query
from tests.identity.oidc import CLIENT_ID, sign_out_at_provider


def test_signing_out_ends_the_session_and_goes_on_to_the_providers_sign_out(sso, db, provider):
    carol = factories.engineer(db, email="carol@example.com", name="Carol C")
    assert sso.sign_in("carol").status_code == 302
    signed_in_cookie = sso.client.get_cookie("session")

    response = sso.client.post("/logout")
    assert response.status_code == 302
    end_session = response.headers["Location"]
    assert end_session.startswith(f"{provider.issuer}/session/end?")
    asked = query(end_session)
    assert asked["post_logout_redirect_uri"] == f"{BASE_URL}/login"
    assert asked["client_id"] == CLIENT_ID
    # The hint is the ID token the provider issued for this sign-in.
    assert asked["id_token_hint"].count(".") == 2
    assert fresh(db, carol).session_epoch == 1

    # Every session of the account ended, a copy of the old cookie's too.
    sso.client.set_cookie("session", signed_in_cookie.value)
    assert sso.client.get("/dashboard").status_code == 302

    # The provider's own page signs the browser out there and sends it back.
    back = sign_out_at_provider(end_session, sso.browser, BASE_URL)
    assert back.startswith(f"{BASE_URL}/login")
    # Signed out at the provider: a new sign-in shows its sign-in page again.
    assert 'name="login"' in sso.browser.get(sso.start(), timeout=10).text


def test_a_password_session_signs_out_here_only(sso, db):
    engineer = factories.engineer(db)
    sign_in(sso.client, engineer)
    response = sso.client.post("/logout")
    assert response.headers["Location"] == "/login"


def test_without_an_end_session_endpoint_signing_out_stays_here(sso, db, monkeypatch):
    factories.engineer(db, email="carol@example.com")
    sso.sign_in("carol")
    metadata = {k: v for k, v in sso.oidc.metadata().items() if k != "end_session_endpoint"}
    monkeypatch.setattr(sso.oidc, "metadata", lambda: metadata)
    assert sso.client.post("/logout").headers["Location"] == "/login"


def test_forms_may_go_on_to_the_provider_and_nowhere_else(sso, provider):
    directives = csp_directives(sso.client.get("/login").headers["Content-Security-Policy"])
    assert directives["form-action"] == ["'self'", provider.issuer]
    assert directives["default-src"] == ["'self'"]
