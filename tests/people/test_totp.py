"""Two-step sign-in: set-up, codes, replays, the limit, recovery codes; no admin page before it."""

from __future__ import annotations

import datetime as dt
import threading
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from tests import factories
from tests.helpers import (
    count,
    enrol_app,
    fresh,
    post_login,
    secret_on_page,
    sign_in,
    totp_state,
    unspent_code,
)
from tests.people.helpers import path_of
from tracker import create_app
from tracker.clock import utcnow
from tracker.db import session_scope
from tracker.extensions import SignInLimiter
from tracker.people.models import Engineer, RecoveryCode
from tracker.people.rules import PENDING_SIGN_IN_SECONDS, RECOVERY_CODE_COUNT
from tracker.people.services.persons import update_engineer
from tracker.people.services.totp import (
    CodeRefused,
    check_code,
    code_at,
    decrypt_secret,
    new_secret,
    recovery_hash,
    set_secret,
    time_step,
)

WRONG_CODE = "the code is wrong or was already used"
USED_RECOVERY = "this recovery code is unknown or was already used"
TOO_MANY_CODES = "Too many wrong codes"
# An instant in the middle of a time step: a step either side is a whole step away.
NOON = dt.datetime(2026, 11, 29, 12, 0, 15)


def signed_in(client: FlaskClient) -> bool:
    with client.session_transaction() as session:
        return "_user_id" in session


@pytest.fixture(autouse=True)
def limiters(limiter: SignInLimiter, totp_limiter: SignInLimiter) -> SignInLimiter:
    """Give every test limiters of its own (all sign in from 127.0.0.1)."""
    return totp_limiter


@pytest.fixture
def admin(db) -> Engineer:
    return factories.engineer(db, access_role="admin")


@pytest.fixture
def enrolled(db) -> tuple[Engineer, str, list[str]]:
    """An admin with an app set up (a step ago) and their recovery codes."""
    person = factories.engineer(db, access_role="admin")
    secret, codes = enrol_app(db, person)
    return person, secret, codes


def secret_of(db, person: Engineer) -> str | None:
    """Return the person's app secret as the database holds it now, decrypted."""
    stored = fresh(db, person).totp_secret
    return None if stored is None else decrypt_secret(stored, factories.KEYS)


def give_code(client: FlaskClient, code: str):
    return client.post("/login/totp", data={"code": code})


# --- the service ---------------------------------------------------------------------


def test_a_code_of_the_step_before_or_after_works_and_two_steps_away_does_not(db, admin):
    secret = new_secret()
    set_secret(db, admin, secret, secret_key=factories.SECRET_KEY)
    step = time_step(NOON)
    for far in (step - 2, step + 2):
        with pytest.raises(CodeRefused) as refused:
            check_code(db, admin, code_at(secret, far), NOON, keys=factories.KEYS)
        assert refused.value.reason == "wrong_code"
    check_code(db, admin, code_at(secret, step - 1), NOON, keys=factories.KEYS)
    check_code(db, admin, code_at(secret, step + 1), NOON, keys=factories.KEYS)
    assert fresh(db, admin).totp_last_step == step + 1


def test_a_spent_step_and_any_before_it_never_sign_in_again(db, admin):
    secret = new_secret()
    set_secret(db, admin, secret, secret_key=factories.SECRET_KEY)
    step = time_step(NOON)
    check_code(db, admin, code_at(secret, step), NOON, keys=factories.KEYS)
    for again in (step, step - 1):
        with pytest.raises(CodeRefused) as refused:
            check_code(db, admin, code_at(secret, again), NOON, keys=factories.KEYS)
        assert refused.value.reason == "replayed_code"


@pytest.mark.parametrize("code", ["", "12345", "1234567", "abcdef", "12 34 5x"])
def test_a_code_that_is_not_six_digits_is_refused(db, admin, code):
    set_secret(db, admin, new_secret(), secret_key=factories.SECRET_KEY)
    with pytest.raises(CodeRefused):
        check_code(db, admin, code, NOON, keys=factories.KEYS)


def test_the_code_is_that_of_rfc_6238_as_authenticator_apps_compute_it(db, admin):
    secret = new_secret()
    set_secret(db, admin, secret, secret_key=factories.SECRET_KEY)
    app_code = pyotp.TOTP(secret).at(NOON.replace(tzinfo=dt.UTC))
    assert code_at(secret, time_step(NOON)) == app_code
    check_code(
        db, admin, f"{app_code[:3]} {app_code[3:]}", NOON, keys=factories.KEYS
    )  # typed with a space


# --- set-up at the first sign-in -------------------------------------------------------


def test_an_admin_signing_in_the_first_time_sets_up_an_app(client, db, admin):
    response = post_login(client, admin.email)
    assert path_of(response) == "/login/totp/setup"
    assert not signed_in(client)

    page = client.get("/login/totp/setup")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '<img src="data:image/svg+xml;' in html and 'alt="QR code' in html
    secret = secret_on_page(html)
    assert len(secret) == 32 and admin.totp_secret is None

    response = client.post("/login/totp/setup", data={"code": code_at(secret, time_step(utcnow()))})
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Your recovery codes" in html
    assert signed_in(client)
    assert client.get("/admin/people").status_code == 200
    admin = fresh(db, admin)
    assert secret_of(db, admin) == secret
    stored = db.scalars(select(RecoveryCode).where(RecoveryCode.engineer_id == admin.id)).all()
    assert len(stored) == RECOVERY_CODE_COUNT
    shown = [c.split("</code>")[0] for c in html.split("<code>")[1:]]
    assert len(shown) == RECOVERY_CODE_COUNT
    assert {recovery_hash(c) for c in shown} == {r.code_hash for r in stored}
    assert not any(c in r.code_hash for c in shown for r in stored)


def test_the_set_up_keeps_its_secret_until_the_code_confirms_it(client, db, admin):
    post_login(client, admin.email)
    first = secret_on_page(client.get("/login/totp/setup").get_data(as_text=True))
    again = secret_on_page(client.get("/login/totp/setup").get_data(as_text=True))
    assert first == again


def test_a_wrong_first_code_sets_up_nothing(client, db, admin):
    post_login(client, admin.email)
    secret = secret_on_page(client.get("/login/totp/setup").get_data(as_text=True))
    wrong = code_at(secret, time_step(utcnow()) + 5)
    response = client.post("/login/totp/setup", data={"code": wrong})
    assert response.status_code == 401
    assert WRONG_CODE in response.get_data(as_text=True)
    assert fresh(db, admin).totp_secret is None and not signed_in(client)
    assert count(db, RecoveryCode) == 0


def test_the_code_that_confirmed_the_set_up_does_not_sign_in_again(client, db, admin):
    post_login(client, admin.email)
    secret = secret_on_page(client.get("/login/totp/setup").get_data(as_text=True))
    code = code_at(secret, time_step(utcnow()))
    assert client.post("/login/totp/setup", data={"code": code}).status_code == 200
    client.post("/logout")
    post_login(client, admin.email)
    assert give_code(client, code).status_code == 401
    assert not signed_in(client)


# --- the second step -------------------------------------------------------------------


def test_an_enrolled_admin_gives_the_code_and_lands_where_they_were_going(client, enrolled):
    person, secret, _ = enrolled
    response = client.post(
        "/login?next=/admin/teams", data={"email": person.email, "password": factories.PASSWORD}
    )
    assert path_of(response) == "/login/totp"
    assert client.get("/login/totp").status_code == 200
    response = give_code(client, unspent_code(secret, None)[0])
    assert response.status_code == 302 and path_of(response) == "/admin/teams"
    assert signed_in(client)


def test_a_wrong_code_is_refused_and_signs_no_one_in(client, enrolled):
    person, secret, _ = enrolled
    post_login(client, person.email)
    response = give_code(client, code_at(secret, time_step(utcnow()) - 10))
    assert response.status_code == 401
    assert WRONG_CODE in response.get_data(as_text=True)
    assert not signed_in(client)
    assert client.get("/admin/people").status_code == 302


def test_a_code_is_not_replayed(app, db, enrolled):
    person, secret, _ = enrolled
    code, _ = unspent_code(secret, None)
    first, second = app.test_client(), app.test_client()
    post_login(first, person.email)
    post_login(second, person.email)
    assert give_code(first, code).status_code == 302
    # Seen over a shoulder, the code opens no second session.
    assert give_code(second, code).status_code == 401
    assert signed_in(first) and not signed_in(second)


def test_wrong_codes_are_limited_like_passwords(client, enrolled, totp_limiter):
    person, secret, _ = enrolled
    post_login(client, person.email)
    wrong = code_at(secret, time_step(utcnow()) + 7)
    for _ in range(5):
        assert give_code(client, wrong).status_code == 401
    right = unspent_code(secret, None)[0]
    response = give_code(client, right)
    assert response.status_code == 429
    assert TOO_MANY_CODES in response.get_data(as_text=True)
    assert not signed_in(client)
    # Counted apart from passwords: the password still opens the step.
    assert path_of(post_login(client, person.email)) == "/login/totp"


def test_a_recovery_code_signs_in_once(app, db, enrolled):
    person, _, codes = enrolled
    client = app.test_client()
    post_login(client, person.email)
    response = give_code(client, codes[0].upper().replace("-", " "))
    assert response.status_code == 302 and signed_in(client)
    assert f"{RECOVERY_CODE_COUNT - 1} are left" in client.get("/dashboard").get_data(as_text=True)
    other = app.test_client()
    post_login(other, person.email)
    response = give_code(other, codes[0])
    assert response.status_code == 401
    assert USED_RECOVERY in response.get_data(as_text=True)
    assert give_code(other, codes[1]).status_code == 302


def test_an_unknown_recovery_code_is_refused(client, enrolled):
    person, _, _ = enrolled
    post_login(client, person.email)
    assert give_code(client, "aaaaa-bbbbb").status_code == 401
    assert not signed_in(client)


ADMIN_PAGES = ["/admin/", "/admin/people", "/admin/audit", "/admin/audit.csv", "/admin/outbox"]


@pytest.mark.parametrize("url", ADMIN_PAGES)
@pytest.mark.parametrize("ready", ["enrolled", "not enrolled"])
def test_no_admin_page_opens_between_the_password_and_the_code(
    client, db, admin, enrolled, url, ready
):
    who = enrolled[0] if ready == "enrolled" else admin
    step = "/login/totp" if ready == "enrolled" else "/login/totp/setup"
    assert path_of(post_login(client, who.email)) == step
    response = client.get(url)
    assert response.status_code == 302 and path_of(response) == "/login"
    assert parse_qs(urlsplit(response.headers["Location"]).query)["next"] == [url]
    # The sign-in page sends the half-signed-in admin on to the step they owe.
    onward = client.get(response.headers["Location"])
    assert onward.status_code == 302 and path_of(onward) == step
    assert client.post("/admin/people/new", data={"email": "x@example.com"}).status_code == 302
    assert count(db, Engineer) == 2


def test_a_half_sign_in_expires(client, enrolled):
    person, secret, _ = enrolled
    post_login(client, person.email)
    with client.session_transaction() as session:
        pending = session["pending_totp"]
        session["pending_totp"] = {
            **pending,
            "since": pending["since"] - PENDING_SIGN_IN_SECONDS - 1,
        }
    response = give_code(client, unspent_code(secret, None)[0])
    assert response.status_code == 302 and path_of(response) == "/login"
    assert not signed_in(client)


def test_a_password_change_ends_a_half_sign_in(client, db, enrolled):
    person, secret, _ = enrolled
    post_login(client, person.email)
    person.session_epoch += 1
    db.flush()
    response = give_code(client, unspent_code(secret, None)[0])
    assert path_of(response) == "/login" and not signed_in(client)


def test_a_half_sign_in_can_be_left_for_another_account(client, db, enrolled):
    person, _, _ = enrolled
    post_login(client, person.email)
    assert path_of(client.post("/login/cancel")) == "/login"
    assert client.get("/login").status_code == 200
    other = factories.engineer(db)
    assert path_of(post_login(client, other.email)) == "/dashboard"


def test_the_steps_without_a_half_sign_in_send_to_the_sign_in_page(client):
    for url in ("/login/totp", "/login/totp/setup"):
        response = client.get(url)
        assert response.status_code == 302 and path_of(response) == "/login"


# --- engineers and managers may choose it ------------------------------------------------


def test_an_engineer_signs_in_with_the_password_alone(client, db):
    person = factories.engineer(db)
    assert path_of(post_login(client, person.email)) == "/dashboard"
    assert signed_in(client)


def test_an_engineer_who_sets_up_an_app_on_the_profile_is_asked_too(client, db):
    person = factories.engineer(db, access_role="manager")
    sign_in(client, person)
    profile = client.get("/profile").get_data(as_text=True)
    assert "Off: your password alone signs you in." in profile
    page = client.get("/profile/totp")
    assert page.status_code == 200
    secret = secret_on_page(page.get_data(as_text=True))
    response = client.post("/profile/totp", data={"code": code_at(secret, time_step(utcnow()))})
    assert response.status_code == 200 and "Your recovery codes" in response.get_data(as_text=True)
    assert "10 recovery codes left." in client.get("/profile").get_data(as_text=True)
    client.post("/logout")

    assert path_of(post_login(client, person.email)) == "/login/totp"
    assert not signed_in(client)
    assert give_code(client, unspent_code(*totp_state(client, person.email))[0]).status_code == 302
    assert signed_in(client)


def test_new_recovery_codes_replace_the_old_ones(client, db, enrolled):
    person, _, codes = enrolled
    sign_in(client, person)
    response = client.post("/profile/totp/recovery-codes")
    assert response.status_code == 200
    stored = {r.code_hash for r in db.scalars(select(RecoveryCode))}
    assert len(stored) == RECOVERY_CODE_COUNT and recovery_hash(codes[0]) not in stored


@pytest.fixture
def manager_with_app(db) -> tuple[Engineer, str]:
    """A manager who set up an app by choice (a step ago)."""
    person = factories.engineer(db, access_role="manager")
    secret, _ = enrol_app(db, person)
    return person, secret


def test_someone_who_chose_an_app_turns_it_off_with_a_code(client, db, manager_with_app):
    person, _ = manager_with_app
    sign_in(client, person)
    assert "Turn off two-step sign-in" in client.get("/profile").get_data(as_text=True)
    code = unspent_code(*totp_state(client, person.email))[0]
    response = client.post("/profile/totp/off", data={"code": code})
    assert response.status_code == 302
    assert fresh(db, person).totp_secret is None
    assert count(db, RecoveryCode) == 0
    client.post("/logout")
    # The password alone signs in again.
    assert path_of(post_login(client, person.email)) == "/dashboard"


def test_turning_the_app_off_needs_a_right_code(client, db, manager_with_app):
    person, secret = manager_with_app
    sign_in(client, person)
    response = client.post("/profile/totp/off", data={"code": "000000"})
    assert response.status_code == 400
    assert "Turn off two-step sign-in" in response.get_data(as_text=True)
    assert secret_of(db, person) == secret
    assert client.post("/profile/totp/off", data={"code": ""}).status_code == 400
    assert secret_of(db, person) == secret


def test_an_admin_cannot_turn_the_app_off(client, db, enrolled):
    person, secret, _ = enrolled
    sign_in(client, person)
    assert "Turn off two-step sign-in" not in client.get("/profile").get_data(as_text=True)
    code = unspent_code(*totp_state(client, person.email))[0]
    assert client.post("/profile/totp/off", data={"code": code}).status_code == 400
    assert secret_of(db, person) == secret


def test_turning_off_an_app_never_set_up_is_refused(client, db):
    sign_in(client, factories.engineer(db))
    assert client.post("/profile/totp/off", data={"code": "123456"}).status_code == 400


def test_someone_without_an_app_gets_no_recovery_codes(client, db):
    sign_in(client, factories.engineer(db))
    assert client.post("/profile/totp/recovery-codes").status_code == 400
    assert count(db, RecoveryCode) == 0


def test_becoming_an_admin_ends_the_sessions_a_password_alone_opened(client, db, admin, today):
    person = factories.engineer(db)
    sign_in(client, person)
    update_engineer(db, person, admin, today, access_role="admin")
    db.flush()
    assert client.get("/dashboard").status_code == 302
    assert path_of(post_login(client, person.email)) == "/login/totp/setup"


# --- tracker user reset-totp -------------------------------------------------------------


def test_reset_totp_clears_the_app_and_codes_and_asks_for_a_new_set_up(
    runner, client, db, enrolled
):
    person, _, _ = enrolled
    result = runner.invoke(args=["user", "reset-totp", person.email.upper()])
    assert result.exit_code == 0, result.output
    assert f"two-step sign-in of {person.email} cleared" in result.output
    person = fresh(db, person)
    assert person.totp_secret is None and person.totp_last_step is None
    assert count(db, RecoveryCode) == 0
    assert path_of(post_login(client, person.email)) == "/login/totp/setup"


def test_reset_totp_of_someone_without_an_app_clears_nothing(runner, db):
    person = factories.engineer(db)
    result = runner.invoke(args=["user", "reset-totp", person.email])
    assert result.exit_code == 0
    assert "nothing to clear" in result.output


def test_reset_totp_of_an_unknown_email_fails(runner):
    result = runner.invoke(args=["user", "reset-totp", "nobody@example.com"])
    assert result.exit_code != 0
    assert "no engineer with email nobody@example.com" in result.output


def test_two_requests_racing_with_one_code_open_one_session(racing_url):
    config = {"DATABASE_URL": racing_url, "SECRET_KEY": "race", "WTF_CSRF_ENABLED": False}
    app = create_app({**config, "TESTING": True})
    engine = app.extensions["tracker.engine"]
    try:
        factory = sessionmaker(bind=engine, expire_on_commit=False)
        with session_scope(factory) as session:
            person = factories.engineer(session, access_role="admin")
            secret = new_secret()
            set_secret(session, person, secret, secret_key="race")
        code = unspent_code(secret, None)[0]
        racers = 4
        clients = [app.test_client() for _ in range(racers)]
        for client in clients:
            post_login(client, person.email)
        start = threading.Barrier(racers)
        statuses: list[int] = []

        def give(client: FlaskClient) -> None:
            start.wait()
            statuses.append(give_code(client, code).status_code)

        threads = [threading.Thread(target=give, args=(c,)) for c in clients]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [302] + [401] * (racers - 1)
    finally:
        engine.dispose()
