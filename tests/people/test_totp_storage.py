"""TOTP secrets at rest: encrypted with the secret key, plain rows from before still sign in."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import fresh, post_login, secret_on_page, unspent_code
from tracker.audit.models import AccountEvent
from tracker.clock import utcnow
from tracker.config import SecretKeys
from tracker.extensions import SignInLimiter
from tracker.people.models import Engineer
from tracker.people.rules import TOTP_STORED_LENGTH
from tracker.people.services.totp import (
    CodeRefused,
    SecretUnreadable,
    check_code,
    code_at,
    decrypt_secret,
    encrypt_secret,
    enrol,
    is_plain,
    new_secret,
    rekey_secrets,
    set_secret,
    time_step,
)

KEY = factories.SECRET_KEY
KEYS = factories.KEYS
UNREADABLE = "two-step sign-in of this account cannot be checked"
NOON = dt.datetime(2026, 11, 29, 12, 0, 15)


@pytest.fixture(autouse=True)
def limiters(limiter: SignInLimiter, totp_limiter: SignInLimiter) -> None:
    """Limiters of each test's own: every sign-in here comes from one address."""


def stored(db: Session, person: Engineer) -> str | None:
    """Return the person's secret column as the database holds it now."""
    return db.scalar(select(Engineer.totp_secret).where(Engineer.id == person.id))


def store_plain(db: Session, person: Engineer, secret: str) -> None:
    """Store a secret as a release before encryption did: plain base32."""
    db.execute(update(Engineer).where(Engineer.id == person.id).values(totp_secret=secret))
    db.expire(person)


def give_code(client: FlaskClient, person: Engineer, code: str):
    post_login(client, person.email)
    return client.post("/login/totp", data={"code": code})


def signed_in(client: FlaskClient) -> bool:
    with client.session_transaction() as session:
        return "_user_id" in session


# --- the stored form --------------------------------------------------------------------


def test_the_stored_secret_is_a_token_that_neither_is_nor_contains_the_secret(db):
    secret = new_secret()
    token = encrypt_secret(secret, KEY)
    assert token != secret and secret not in token and secret.lower() not in token.lower()
    assert not is_plain(token) and is_plain(secret)
    assert len(token) <= TOTP_STORED_LENGTH
    assert decrypt_secret(token, KEYS) == secret
    # Fernet: a fresh IV each time, so one secret stored twice gives two tokens.
    assert encrypt_secret(secret, KEY) != token


def test_a_token_opens_with_its_secret_key_only(db):
    token = encrypt_secret(new_secret(), KEY)
    with pytest.raises(SecretUnreadable):
        decrypt_secret(token, SecretKeys("another-secret-key"))
    with pytest.raises(SecretUnreadable):
        decrypt_secret("gAAAAAnot-a-token", KEYS)


def test_set_up_on_the_web_stores_the_secret_encrypted_and_it_signs_in(client, db):
    admin = factories.engineer(db, access_role="admin")
    post_login(client, admin.email)
    secret = secret_on_page(client.get("/login/totp/setup").get_data(as_text=True))
    response = client.post("/login/totp/setup", data={"code": code_at(secret, time_step(utcnow()))})
    assert response.status_code == 200 and signed_in(client)
    kept = stored(db, admin)
    assert kept is not None and secret not in kept and not is_plain(kept)
    assert decrypt_secret(kept, KEYS) == secret

    client.post("/logout")
    response = give_code(client, admin, unspent_code(secret, fresh(db, admin).totp_last_step)[0])
    assert response.status_code == 302 and signed_in(client)


def test_enrol_and_set_secret_store_encrypted(db):
    person, other = factories.engineer(db), factories.engineer(db)
    secret = new_secret()
    enrol(db, person, secret, code_at(secret, time_step(NOON)), NOON, secret_key=KEY)
    set_secret(db, other, secret, secret_key=KEY)
    for who in (person, other):
        kept = stored(db, who)
        assert kept is not None and secret not in kept
        assert decrypt_secret(kept, KEYS) == secret


def test_a_right_code_leaves_an_encrypted_secret_as_it_was(db):
    admin = factories.engineer(db, access_role="admin")
    secret = new_secret()
    set_secret(db, admin, secret, secret_key=KEY)
    before = stored(db, admin)
    check_code(db, admin, code_at(secret, time_step(NOON)), NOON, keys=KEYS)
    assert stored(db, admin) == before


# --- rows stored plain, before encryption -----------------------------------------------------


def test_a_plain_secret_signs_in_and_is_encrypted_then(client, db):
    admin = factories.engineer(db, access_role="admin")
    secret = new_secret()
    store_plain(db, admin, secret)
    changed_at = fresh(db, admin).updated_at

    assert give_code(client, admin, unspent_code(secret, None)[0]).status_code == 302
    assert signed_in(client)
    kept = stored(db, admin)
    assert kept is not None and secret not in kept and not is_plain(kept)
    assert decrypt_secret(kept, KEYS) == secret
    # Encrypting is not a change of the record.
    assert fresh(db, admin).updated_at == changed_at

    # And it keeps signing in, encrypted now.
    client.post("/logout")
    code = unspent_code(secret, fresh(db, admin).totp_last_step)[0]
    assert give_code(client, admin, code).status_code == 302


def test_a_wrong_or_replayed_code_leaves_a_plain_secret_plain(db):
    admin = factories.engineer(db, access_role="admin")
    secret = new_secret()
    store_plain(db, admin, secret)
    step = time_step(NOON)
    with pytest.raises(CodeRefused):
        check_code(db, admin, code_at(secret, step + 5), NOON, keys=KEYS)
    assert stored(db, admin) == secret
    db.execute(update(Engineer).where(Engineer.id == admin.id).values(totp_last_step=step))
    db.expire(admin)
    with pytest.raises(CodeRefused) as refused:
        check_code(db, admin, code_at(secret, step), NOON, keys=KEYS)
    assert refused.value.reason == "replayed_code"
    assert stored(db, admin) == secret


def test_encrypt_totp_encrypts_every_plain_secret_and_leaves_the_others(runner, db):
    first, second, done, none = (factories.engineer(db) for _ in range(4))
    secrets = {first.id: new_secret(), second.id: new_secret()}
    store_plain(db, first, secrets[first.id])
    store_plain(db, second, secrets[second.id])
    set_secret(db, done, new_secret(), secret_key=KEY)
    token = stored(db, done)
    db.flush()

    result = runner.invoke(args=["user", "encrypt-totp"])
    assert result.exit_code == 0, result.output
    assert "2 two-step sign-in secret(s) encrypted under the current key" in result.output
    for who in (first, second):
        kept = stored(db, who)
        assert kept is not None and not is_plain(kept) and secrets[who.id] not in kept
        assert decrypt_secret(kept, KEYS) == secrets[who.id]
    assert stored(db, done) == token
    assert stored(db, none) is None

    again = runner.invoke(args=["user", "encrypt-totp"])
    assert again.exit_code == 0 and "0 two-step" in again.output


def test_encrypt_totp_names_the_secrets_this_key_cannot_open(runner, db):
    plain, lost = factories.engineer(db), factories.engineer(db)
    secret = new_secret()
    store_plain(db, plain, secret)
    set_secret(db, lost, new_secret(), secret_key="the key before")
    db.flush()
    result = runner.invoke(args=["user", "encrypt-totp"])
    assert result.exit_code != 0
    assert "1 two-step" in result.output
    assert "do not decrypt with TRACKER_SECRET_KEY nor its fallbacks" in result.output
    assert f"(was it changed?): {lost.email}" in result.output
    # The plain one is encrypted all the same.
    kept = stored(db, plain)
    assert kept is not None and decrypt_secret(kept, KEYS) == secret


def test_decrypt_totp_stores_every_secret_plain_and_names_those_it_cannot_open(runner, db):
    encrypted, plain, lost = (factories.engineer(db) for _ in range(3))
    secrets = {encrypted.id: new_secret(), plain.id: new_secret()}
    set_secret(db, encrypted, secrets[encrypted.id], secret_key=KEY)
    store_plain(db, plain, secrets[plain.id])
    set_secret(db, lost, new_secret(), secret_key="the key before")
    token = stored(db, lost)
    db.flush()

    result = runner.invoke(args=["user", "decrypt-totp"])
    assert result.exit_code != 0
    assert "1 two-step sign-in secret(s) stored plain" in result.output
    assert f"(was it changed?): {lost.email}" in result.output
    assert stored(db, encrypted) == secrets[encrypted.id]
    assert stored(db, plain) == secrets[plain.id]
    assert stored(db, lost) == token


def test_rekey_secrets_reports_what_it_did(db):
    plain, lost = factories.engineer(db), factories.engineer(db)
    store_plain(db, plain, new_secret())
    set_secret(db, lost, new_secret(), secret_key="the key before")
    done = rekey_secrets(db, KEYS)
    assert (done.rewritten, done.unreadable) == (1, [lost.email])


# --- secrets stored under a secret key since rotated -----------------------------------------


def test_a_secret_of_the_replaced_key_signs_in_and_is_encrypted_under_the_new_one(
    client, db, rotated
):
    admin = factories.engineer(db, access_role="admin")
    secret = new_secret()
    set_secret(db, admin, secret, secret_key=KEY)  # the key before the rotation
    db.flush()
    changed_at = fresh(db, admin).updated_at

    assert give_code(client, admin, unspent_code(secret, None)[0]).status_code == 302
    assert signed_in(client)
    kept = stored(db, admin)
    assert kept is not None and decrypt_secret(kept, SecretKeys(rotated.current)) == secret
    with pytest.raises(SecretUnreadable):
        decrypt_secret(kept, KEYS)
    assert fresh(db, admin).updated_at == changed_at


def test_a_wrong_code_leaves_a_secret_of_the_replaced_key_as_it_was(db, rotated):
    admin = factories.engineer(db, access_role="admin")
    secret = new_secret()
    set_secret(db, admin, secret, secret_key=KEY)
    before = stored(db, admin)
    with pytest.raises(CodeRefused) as refused:
        check_code(db, admin, code_at(secret, time_step(NOON) + 5), NOON, keys=rotated)
    assert refused.value.reason == "wrong_code"
    assert stored(db, admin) == before


def test_rekey_secrets_encrypts_every_secret_under_the_new_key_once(db, rotated):
    old, new, plain, lost = (factories.engineer(db) for _ in range(4))
    secrets = {who.id: new_secret() for who in (old, new, plain)}
    set_secret(db, old, secrets[old.id], secret_key=KEY)
    set_secret(db, new, secrets[new.id], secret_key=rotated.current)
    store_plain(db, plain, secrets[plain.id])
    set_secret(db, lost, new_secret(), secret_key="a key older than both")
    untouched = stored(db, new), stored(db, lost)

    done = rekey_secrets(db, rotated)
    assert (done.rewritten, done.unreadable) == (2, [lost.email])
    for who in (old, new, plain):
        kept = stored(db, who)
        assert (
            kept is not None
            and decrypt_secret(kept, SecretKeys(rotated.current)) == (secrets[who.id])
        )
    assert (stored(db, new), stored(db, lost)) == untouched
    again = rekey_secrets(db, rotated)
    assert (again.rewritten, again.unreadable) == (0, [lost.email])


def test_encrypt_totp_encrypts_the_secrets_of_the_replaced_key(runner, db, rotated):
    person = factories.engineer(db)
    secret = new_secret()
    set_secret(db, person, secret, secret_key=KEY)
    db.flush()
    result = runner.invoke(args=["user", "encrypt-totp"])
    assert result.exit_code == 0, result.output
    assert "1 two-step sign-in secret(s) encrypted under the current key" in result.output
    kept = stored(db, person)
    assert kept is not None and decrypt_secret(kept, SecretKeys(rotated.current)) == secret


# --- a secret key that does not open the secret ---------------------------------------------


@pytest.fixture
def under_another_key(db) -> tuple[Engineer, str]:
    """An admin whose secret was encrypted under a secret key the app no longer has."""
    admin = factories.engineer(db, access_role="admin")
    secret = new_secret()
    set_secret(db, admin, secret, secret_key="the key before")
    db.flush()
    return admin, secret


def test_a_changed_secret_key_refuses_the_code_and_says_so(client, db, under_another_key, caplog):
    admin, secret = under_another_key
    with caplog.at_level(logging.ERROR, logger="tracker.people.services.totp"):
        response = give_code(client, admin, unspent_code(secret, None)[0])
    assert response.status_code == 401
    assert UNREADABLE in response.get_data(as_text=True)
    assert not signed_in(client)
    assert any(
        f"engineer {admin.id} does not decrypt with this TRACKER_SECRET_KEY" in r.getMessage()
        for r in caplog.records
    )
    refusal = db.scalar(
        select(AccountEvent)
        .where(AccountEvent.kind == "sign_in_failed", AccountEvent.engineer_id == admin.id)
        .order_by(AccountEvent.id.desc())
    )
    assert refusal is not None and refusal.detail == {"reason": "unreadable_secret"}


def test_a_changed_secret_key_refuses_the_service_with_its_reason(db, under_another_key):
    admin, secret = under_another_key
    with pytest.raises(CodeRefused) as refused:
        check_code(db, admin, code_at(secret, time_step(NOON)), NOON, keys=KEYS)
    assert refused.value.reason == "unreadable_secret"
    assert fresh(db, admin).totp_last_step is None


def test_a_changed_secret_key_does_not_break_turning_the_app_off(client, db):
    person = factories.engineer(db)
    secret = new_secret()
    set_secret(db, person, secret, secret_key=KEY)
    db.flush()
    assert give_code(client, person, unspent_code(secret, None)[0]).status_code == 302
    db.execute(
        update(Engineer)
        .where(Engineer.id == person.id)
        .values(totp_secret=encrypt_secret(secret, "the key before"))
    )
    response = client.post(
        "/profile/totp/off",
        data={"code": unspent_code(secret, fresh(db, person).totp_last_step)[0]},
    )
    assert response.status_code == 400
    assert UNREADABLE in response.get_data(as_text=True)
    assert stored(db, person) is not None
