"""Signing in through the provider's own pages: who is let in, linked, created, refused."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode, urlsplit

from sqlalchemy import select, update

from tests import factories
from tests.helpers import count, fresh
from tests.identity.conftest import BASE_URL, CALLBACK, PROVIDER_NAME, query
from tests.identity.oidc import CLIENT_ID, signing_key
from tracker.audit.models import AccountEvent
from tracker.identity.models import Identity, SignInRequest
from tracker.identity.services import linking
from tracker.identity.services.linking import find_identity
from tracker.people.models import Engineer
from tracker.people.services.persons import set_active
from tracker.people.services.reads import find_engineer


def events(db) -> list[tuple[str, str | None, str | None]]:
    """Return the account trail by a method (not the tests' own set-up): (kind, method, reason)."""
    rows = db.scalars(
        select(AccountEvent).where(AccountEvent.method.is_not(None)).order_by(AccountEvent.id)
    )
    return [(e.kind, e.method, (e.detail or {}).get("reason")) for e in rows]


def identity_of(db, engineer: Engineer) -> Identity | None:
    return db.scalars(select(Identity).where(Identity.engineer_id == engineer.id)).one_or_none()


def page(response) -> str:
    return response.get_data(as_text=True)


def signed_in_as(sso, engineer: Engineer) -> bool:
    response = sso.client.get("/dashboard")
    return response.status_code == 200 and engineer.name in page(response)


# --- the code flow -----------------------------------------------------------


def test_the_sign_in_page_offers_the_provider(sso):
    html = page(sso.client.get("/login?next=/hours"))
    assert f"Sign in with {PROVIDER_NAME}" in html
    assert 'href="/login/oidc?next=/hours"' in html
    # Local sign-in is on: the password form shows as before.
    assert 'name="password"' in html and "break-glass" not in html


def test_the_provider_is_asked_for_the_code_flow_with_pkce_state_and_nonce(sso, provider, db):
    url = sso.start()
    assert url.startswith(f"{provider.issuer}/auth?")
    asked = query(url)
    pending = db.scalars(select(SignInRequest)).one()
    assert asked["response_type"] == "code"
    assert asked["client_id"] == CLIENT_ID
    assert asked["redirect_uri"] == CALLBACK
    assert asked["scope"] == "openid email profile"
    assert asked["code_challenge_method"] == "S256"
    assert asked["state"] == pending.state and asked["nonce"] == pending.nonce
    # The challenge is the verifier's S256 hash, and the verifier never leaves the tracker.
    assert pending.code_verifier not in url
    assert len(asked["code_challenge"]) == 43


def test_a_verified_address_links_an_active_person_on_the_first_sign_in(sso, db, provider):
    alice = factories.engineer(db, email="alice@example.com", name="Alice A", access_role="admin")
    response = sso.sign_in("alice")
    assert response.status_code == 302
    assert response.headers["Location"] == "/dashboard"
    assert signed_in_as(sso, alice)
    linked = identity_of(db, alice)
    assert linked is not None
    assert (linked.issuer, linked.subject, linked.email) == (
        provider.issuer,
        "alice",
        "alice@example.com",
    )
    assert linked.last_sign_in_at is not None
    assert events(db) == [("sign_in", "oidc", None)]
    event = db.scalars(select(AccountEvent).where(AccountEvent.kind == "sign_in")).one()
    assert event.engineer_id == alice.id and event.detail["linked"] is True


def test_a_linked_person_is_found_by_issuer_and_subject_again(sso, db):
    alice = factories.engineer(db, email="alice@example.com", access_role="admin")
    assert sso.sign_in("alice").status_code == 302
    sso.client.post("/logout")
    assert not signed_in_as(sso, alice)
    # The provider still knows the browser: no pages this time, straight back.
    assert sso.sign_in("alice").status_code == 302
    assert signed_in_as(sso, alice)
    assert count(db, Identity) == 1
    assert [
        e.detail["linked"]
        for e in db.scalars(select(AccountEvent).where(AccountEvent.kind == "sign_in"))
    ] == [True, False]


def test_the_next_page_is_kept_across_the_provider(sso, db):
    factories.engineer(db, email="carol@example.com")
    response = sso.open(sso.answer("carol", path="/login/oidc?next=/hours"))
    assert response.headers["Location"] == "/hours"


def test_an_unsafe_next_page_is_dropped(sso, db):
    factories.engineer(db, email="carol@example.com")
    response = sso.open(sso.answer("carol", path="/login/oidc?next=https://evil.example.com/"))
    assert response.headers["Location"] == "/dashboard"


def test_a_signed_in_visitor_is_not_sent_to_the_provider(sso, db):
    factories.engineer(db, email="carol@example.com")
    sso.sign_in("carol")
    assert sso.client.get("/login/oidc").headers["Location"] == "/dashboard"


def test_after_the_provider_rotates_its_keys_sign_in_still_works(sso, db, provider):
    carol = factories.engineer(db, email="carol@example.com", name="Carol C")
    assert sso.sign_in("carol").status_code == 302
    cached = {key.kid for key in sso.oidc.signing_keys()}
    assert cached == {provider.keys[0].kid}
    sso.client.post("/logout")
    new = signing_key()
    with provider.rotated(new):
        sso.browser.cookies.clear()
        # The new token names a key the tracker has not seen: it fetches the keys once.
        assert sso.sign_in("carol").status_code == 302
        assert signed_in_as(sso, carol)
        assert {key.kid for key in sso.oidc.signing_keys()} == {new.kid}


# --- linking refused ---------------------------------------------------------


def test_an_unverified_address_is_not_linked(sso, db):
    dave = factories.engineer(db, email="dave@example.com")
    response = sso.sign_in("dave")
    assert response.status_code == 403
    assert f"{PROVIDER_NAME} has not verified your address dave@example.com" in page(response)
    assert identity_of(db, dave) is None
    assert not signed_in_as(sso, dave)
    assert events(db) == [("sign_in_failed", "oidc", "unverified_email")]


def test_a_provider_trusted_for_its_addresses_links_without_email_verified(sso, db):
    sso.configure(trust_email=True)
    dave = factories.engineer(db, email="dave@example.com")
    assert sso.sign_in("dave").status_code == 302
    assert identity_of(db, dave) is not None


def test_an_inactive_person_is_refused_before_and_after_linking(sso, db):
    alice = factories.engineer(db, email="alice@example.com", access_role="admin")
    factories.engineer(db, email="other.admin@example.com", access_role="admin")
    set_active(db, alice, False)
    response = sso.sign_in("alice")
    assert response.status_code == 403
    assert "Your tracker account is deactivated" in page(response)
    assert identity_of(db, alice) is None

    set_active(db, alice, True)
    assert sso.sign_in("alice").status_code == 302
    set_active(db, alice, False)
    db.flush()
    # Deactivation ended the session; the provider's sign-in does not open another.
    assert not signed_in_as(sso, alice)
    assert sso.sign_in("alice").status_code == 403
    assert [kind for kind, _, _ in events(db)] == ["sign_in_failed", "sign_in", "sign_in_failed"]


def test_a_second_provider_account_with_the_same_address_is_not_linked(sso, db):
    alice = factories.engineer(db, email="alice@example.com", access_role="admin")
    assert sso.sign_in("alice").status_code == 302
    sso.client.post("/logout")
    sso.browser.cookies.clear()
    response = sso.sign_in("alice-again")
    assert response.status_code == 403
    assert f"is linked to another {PROVIDER_NAME} account" in page(response)
    assert identity_of(db, alice).subject == "alice"


def test_no_address_from_the_provider_finds_no_one(sso, db):
    sso.configure(create_users=True)
    response = sso.sign_in("nomail")
    assert response.status_code == 403
    assert f"{PROVIDER_NAME} sent no e-mail address" in page(response)
    assert events(db) == [("sign_in_failed", "oidc", "no_email")]


# --- just-in-time creation ---------------------------------------------------


def test_without_creation_an_unknown_address_is_refused(sso, db):
    people = count(db, Engineer)
    response = sso.sign_in("frank")
    assert response.status_code == 403
    assert "No tracker account has the address frank.new@example.com" in page(response)
    assert count(db, Engineer) == people
    assert events(db) == [("sign_in_failed", "oidc", "no_account")]


def test_with_creation_an_unknown_verified_address_gets_an_account(sso, db, pinned_today):
    sso.configure(create_users=True)
    response = sso.sign_in("frank")
    assert response.status_code == 302
    frank = find_engineer(db, "frank.new@example.com")
    assert frank is not None
    assert (frank.name, frank.access_role, frank.password_hash) == ("Frank New", "manager", None)
    assert identity_of(db, frank).subject == "frank"
    assert signed_in_as(sso, frank)
    assert events(db) == [("provisioned", "oidc", None), ("sign_in", "oidc", None)]


def test_a_provider_account_linked_at_the_same_moment_signs_in_instead_of_failing(
    sso, db, provider, monkeypatch
):
    """Two first sign-ins at once: the one that loses the race to link finds the winner's link."""
    sso.configure(create_users=True)
    winner = factories.engineer(db, email="frank.other@example.com", name="Frank Other")
    db.add(Identity(engineer=winner, issuer=provider.issuer, subject="frank", email=""))
    db.flush()
    looked = []

    def not_linked_yet(session, issuer, subject):
        # This request looked before the other one's link was there.
        looked.append(subject)
        return None if len(looked) == 1 else find_identity(session, issuer, subject)

    monkeypatch.setattr(linking, "find_identity", not_linked_yet)
    response = sso.sign_in("frank")
    assert response.status_code == 302
    assert looked == ["frank", "frank"]
    assert signed_in_as(sso, winner)
    # The losing attempt's account and link were rolled back with it.
    assert find_engineer(db, "frank.new@example.com") is None
    assert count(db, Identity) == 1


def test_creation_needs_a_verified_address(sso, db):
    sso.configure(create_users=True)
    response = sso.sign_in("dave")
    assert response.status_code == 403
    assert find_engineer(db, "dave@example.com") is None


# --- the role claim ----------------------------------------------------------


def test_the_role_claim_sets_the_access_role_highest_first(sso, db):
    bob = factories.engineer(db, email="bob@example.com", name="Bob B")
    assert sso.sign_in("bob").status_code == 302
    assert fresh(db, bob).access_role == "manager"
    assert events(db) == [("role_changed", "oidc", None), ("sign_in", "oidc", None)]
    change = db.scalars(select(AccountEvent).where(AccountEvent.kind == "role_changed")).one()
    assert change.detail == {"from": "engineer", "to": "manager"}


def test_a_role_claim_mapping_no_value_makes_an_engineer(sso, db):
    carol = factories.engineer(db, email="carol@example.com", access_role="manager")
    assert sso.sign_in("carol").status_code == 302
    assert fresh(db, carol).access_role == "engineer"


def test_no_role_claim_keeps_the_current_role(sso, db):
    erin = factories.engineer(db, email="erin@example.com", access_role="manager")
    assert sso.sign_in("erin").status_code == 302
    assert fresh(db, erin).access_role == "manager"
    assert events(db) == [("sign_in", "oidc", None)]


def test_without_a_role_claim_configured_roles_stay(sso, db):
    sso.configure(role_claim="", role_map={})
    alice = factories.engineer(db, email="alice@example.com")
    assert sso.sign_in("alice").status_code == 302
    assert fresh(db, alice).access_role == "engineer"


def test_a_role_the_rules_forbid_refuses_the_sign_in_and_links_nothing(sso, db):
    carol = factories.engineer(db, email="carol@example.com", name="Carol C", access_role="manager")
    factories.team(db, manager=carol, name="Carol's team")
    response = sso.sign_in("carol")
    assert response.status_code == 403
    assert f"Your access role from {PROVIDER_NAME} cannot be applied" in page(response)
    assert "Carol C manages team Carol&#39;s team" in page(response)
    assert fresh(db, carol).access_role == "manager"
    assert identity_of(db, carol) is None
    assert events(db) == [("sign_in_failed", "oidc", "role_not_applied")]


# --- the answer refused ------------------------------------------------------


def test_a_replayed_answer_is_refused_even_with_the_cookie_of_its_time(sso, db):
    factories.engineer(db, email="carol@example.com")
    answer = sso.answer("carol")
    cookie = sso.client.get_cookie("session")
    assert sso.open(answer).status_code == 302
    sso.client.post("/logout")
    # This browser's cookie no longer holds the state.
    response = sso.open(answer)
    assert response.status_code == 400
    assert "This sign-in was already finished" in page(response)
    # Nor does the old cookie help: the state was used once.
    sso.client.set_cookie("session", cookie.value)
    response = sso.open(answer)
    assert response.status_code == 400
    assert events(db)[-2:] == [
        ("sign_in_failed", "oidc", "state_not_this_browser"),
        ("sign_in_failed", "oidc", "state_used_or_expired"),
    ]


def test_an_answer_for_another_browser_is_refused(sso, db, app):
    factories.engineer(db, email="carol@example.com")
    answer = sso.answer("carol")
    stranger = app.test_client()
    parts = urlsplit(answer)
    response = stranger.get(f"{parts.path}?{parts.query}")
    assert response.status_code == 400
    assert not signed_in_as(sso, find_engineer(db, "carol@example.com"))


def test_an_answer_after_ten_minutes_is_refused(sso, db, monkeypatch):
    factories.engineer(db, email="carol@example.com")
    answer = sso.answer("carol")
    db.execute(
        update(SignInRequest).values(created_at=SignInRequest.created_at - dt.timedelta(minutes=11))
    )
    response = sso.open(answer)
    assert response.status_code == 400
    assert events(db) == [("sign_in_failed", "oidc", "state_used_or_expired")]


def test_the_provider_refusing_shows_its_reason(sso, db):
    response = sso.sign_in("carol", cancel=True)
    assert response.status_code == 401
    assert f"{PROVIDER_NAME} did not sign you in (access_denied)." in page(response)
    assert events(db) == [("sign_in_failed", "oidc", "provider_error")]


def test_an_answer_naming_another_issuer_is_refused(sso, db):
    factories.engineer(db, email="carol@example.com")
    answer = sso.answer("carol")
    params = {**query(answer), "iss": "https://evil.example.com"}
    response = sso.open(f"{CALLBACK}?{urlencode(params)}")
    assert response.status_code == 401
    assert events(db) == [("sign_in_failed", "oidc", "wrong_issuer")]


def test_a_token_with_another_nonce_is_refused(sso, db):
    carol = factories.engineer(db, email="carol@example.com")
    answer = sso.answer("carol")
    # The provider's token carries the nonce it was sent; this sign-in expects another.
    db.execute(update(SignInRequest).values(nonce="not-the-nonce-sent"))
    response = sso.open(answer)
    assert response.status_code == 401
    assert f"The answer from {PROVIDER_NAME} could not be verified" in page(response)
    assert not signed_in_as(sso, carol)
    assert events(db) == [("sign_in_failed", "oidc", "nonce_mismatch")]


def test_a_token_expired_by_the_trackers_clock_is_refused(sso, db, monkeypatch):
    factories.engineer(db, email="carol@example.com")
    answer = sso.answer("carol")
    later = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(hours=2)
    # The sign-in started two hours on, when the provider's hour-long token has expired.
    db.execute(update(SignInRequest).values(created_at=later))
    monkeypatch.setattr("tracker.identity.views.utcnow", lambda: later)
    response = sso.open(answer)
    assert response.status_code == 401
    assert events(db) == [("sign_in_failed", "oidc", "expired")]


def test_a_code_used_twice_is_refused_by_the_provider(sso, db):
    factories.engineer(db, email="carol@example.com")
    answer = sso.answer("carol")
    assert sso.open(answer).status_code == 302
    sso.client.post("/logout")
    # A second sign-in under way, answered with the first one's code.
    state = query(sso.start())["state"]
    params = {**query(answer), "state": state}
    response = sso.open(f"{CALLBACK}?{urlencode(params)}")
    assert response.status_code == 401
    assert events(db)[-1] == ("sign_in_failed", "oidc", "token_refused")


def test_an_unreachable_provider_is_a_clear_page_not_an_error(sso, db, monkeypatch):
    sso.configure(issuer="http://127.0.0.1:9")
    # The cached discovery belongs to the real provider: ask the dead one.
    monkeypatch.setattr(sso.oidc, "_metadata", None)
    response = sso.client.get("/login/oidc")
    assert response.status_code == 502
    assert "127.0.0.1 cannot be reached right now" not in page(response)
    assert f"{PROVIDER_NAME} cannot be reached right now" in page(response)


def test_a_refusal_speaks_the_visitors_language(sso, db):
    sso.client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "es"
    response = sso.sign_in("frank")
    assert response.status_code == 403
    assert "Ninguna cuenta del tracker tiene la dirección frank.new@example.com" in page(response)
    assert 'lang="es"' in page(response)


def test_a_refusal_page_posts_its_forms_to_the_sign_in_page(sso, db):
    html = page(sso.sign_in("frank"))
    assert 'action="/login"' in html
    assert 'name="next" type="hidden" value="/login"' in html
    assert BASE_URL not in html
