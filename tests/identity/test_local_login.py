"""TRACKER_LOCAL_LOGIN=off: passwords sign in only the break-glass admins."""

from __future__ import annotations

import pytest

from tests import factories
from tests.helpers import pass_second_step, post_login
from tests.identity.helpers import ROOT


@pytest.fixture
def local_login_off(app, monkeypatch):
    monkeypatch.setitem(app.config, "LOCAL_LOGIN", False)
    monkeypatch.setitem(app.config, "BREAK_GLASS_ADMINS", frozenset({ROOT}))


def signed_in(client) -> bool:
    return client.get("/dashboard").status_code == 200


def test_the_page_folds_the_password_form_away(client, local_login_off):
    html = client.get("/login").get_data(as_text=True)
    assert "Sign in with Test IdP" in html
    assert '<details class="break-glass">' in html
    assert "Administrator sign-in with a password" in html


def test_a_password_is_refused_to_everyone_else(client, db, local_login_off, limiter):
    engineer = factories.engineer(db, access_role="manager")
    response = post_login(client, engineer.email)
    assert response.status_code == 403
    html = response.get_data(as_text=True)
    assert "Password sign-in is turned off" in html
    # The refusal shows inside the unfolded form.
    assert '<details class="break-glass" open>' in html
    assert not signed_in(client)


def test_a_break_glass_admin_still_signs_in_with_a_password(client, db, local_login_off):
    factories.engineer(db, email=ROOT, access_role="admin")
    response = post_login(client, "Root@Example.com")
    assert response.status_code == 302
    # A password admin still gives the second step, break-glass or not.
    assert not signed_in(client)
    pass_second_step(client, ROOT)
    assert signed_in(client)


def test_a_listed_address_that_is_no_admin_is_refused(client, db, local_login_off):
    factories.engineer(db, email=ROOT, access_role="engineer")
    assert post_login(client, ROOT).status_code == 403
    assert not signed_in(client)


def test_a_break_glass_admin_with_a_wrong_password_is_told_so(client, db, local_login_off, limiter):
    factories.engineer(db, email=ROOT, access_role="admin")
    response = post_login(client, ROOT, "not the password")
    assert response.status_code == 401
    assert "Email or password is wrong." in response.get_data(as_text=True)


def test_single_sign_on_still_signs_everyone_in(sso, db, local_login_off):
    carol = factories.engineer(db, email="carol@example.com", name="Carol C")
    assert sso.sign_in("carol").status_code == 302
    assert carol.name in sso.client.get("/dashboard").get_data(as_text=True)
