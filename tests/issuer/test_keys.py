"""The issuer's signing keys under a rotated secret key: they open, and are stored again."""

from __future__ import annotations

import datetime as dt

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tracker.badges.services import proofs
from tracker.config import SecretKeys
from tracker.issuer.models import IssuedCredential, IssuerKey
from tracker.issuer.services import keys
from tracker.issuer.services.credentials import Issuer, issue
from tracker.progress.models import Certification

NOW = dt.datetime(2026, 11, 29, 12, 0)
OLDEST = "a secret key older than both"


def _opens_with(row: IssuerKey, secret: str) -> bool:
    try:
        key = keys.private_key(row, SecretKeys(secret))
    except keys.KeyUnreadable:
        return False
    return proofs.multikey(key.public_key()) == row.public_key


def test_a_key_of_the_replaced_secret_key_signs_and_is_stored_under_the_new_one(
    db: Session, holder: tuple[object, Certification], rotated: SecretKeys
):
    row = keys.create_key(db, factories.SECRET_KEY, NOW)
    issued = issue(db, holder[1], Issuer("http://localhost", "Org", rotated), NOW)
    assert keys.method_id(proofs.did_web("http://localhost"), row) in issued.document
    assert _opens_with(row, rotated.current) and not _opens_with(row, factories.SECRET_KEY)


def test_the_status_list_signs_with_a_key_of_the_replaced_secret_key_and_rewrites_nothing(
    client: FlaskClient, db: Session, rotated: SecretKeys
):
    row = keys.create_key(db, factories.SECRET_KEY, NOW)
    stored = row.private_key
    assert client.get("/ob/status").status_code == 200
    db.refresh(row)
    assert row.private_key == stored


def test_without_the_fallback_the_key_does_not_open(
    db: Session, holder: tuple[object, Certification], replaced: SecretKeys
):
    keys.create_key(db, factories.SECRET_KEY, NOW)
    with pytest.raises(keys.KeyUnreadable):
        issue(db, holder[1], Issuer("http://localhost", "Org", replaced), NOW)


def test_rekey_keys_stores_every_key_under_the_new_secret_key_once(db: Session):
    rotated = SecretKeys("new", (factories.SECRET_KEY,))
    old, new = (keys.create_key(db, secret, NOW) for secret in (factories.SECRET_KEY, "new"))
    new_stored = new.private_key
    first, again = keys.rekey_keys(db, rotated), keys.rekey_keys(db, rotated)
    assert (first.rewritten, again.rewritten) == (1, 0)
    assert _opens_with(old, "new") and new.private_key == new_stored


def test_rekey_keys_names_only_a_signing_key_no_secret_key_opens(db: Session):
    rotated = SecretKeys("new", (factories.SECRET_KEY,))
    keys.create_key(db, OLDEST, NOW)
    keys.create_key(db, "new", NOW)  # the older one signs nothing again
    assert keys.rekey_keys(db, rotated).unreadable == []
    newest = keys.create_key(db, OLDEST, NOW)
    assert keys.rekey_keys(db, rotated).unreadable == [keys.method_name(newest)]


def _unreadable(db: Session) -> None:
    """Make the newest key one no secret key of the app opens (the one it was under lost)."""
    keys.create_key(db, OLDEST, NOW)


def test_issuing_with_a_key_no_secret_key_opens_answers_503_saying_what_mends_it(
    db: Session, client: FlaskClient, auth, holder: tuple[object, Certification]
):
    person, cert = holder
    _unreadable(db)
    auth.sign_in(person)
    url, sent = f"/open-badges/certifications/{cert.id}/issue", {f"share-{cert.id}-show_name": "y"}
    response = client.post(url, data=sent)
    assert response.status_code == 503
    assert (
        "Open Badges cannot be signed until an admin runs `tracker issuer init-key --rotate`"
    ) in response.get_data(as_text=True)
    spanish = client.post(url, data=sent, headers={"Accept-Language": "es"})
    assert spanish.status_code == 503
    assert "no se pueden firmar" in spanish.get_data(as_text=True)
    assert db.scalar(select(func.count()).select_from(IssuedCredential)) == 0


def test_the_status_list_under_a_key_no_secret_key_opens_answers_503_in_json(
    db: Session, client: FlaskClient
):
    _unreadable(db)
    response = client.get("/ob/status")
    assert response.status_code == 503 and response.mimetype == "application/json"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    said = response.get_json()["errors"]["issuer"]
    assert said.startswith("Open Badges cannot be signed until an admin runs `tracker issuer")
    spanish = client.get("/ob/status", headers={"Accept-Language": "es"}).get_json()
    assert "no se pueden firmar" in spanish["errors"]["issuer"]


def test_newest_opens_asks_the_newest_key_only(db: Session):
    secret_keys = SecretKeys(factories.SECRET_KEY)
    assert keys.newest_opens(db, secret_keys)  # none yet: the first use makes one
    keys.create_key(db, OLDEST, NOW)
    assert not keys.newest_opens(db, secret_keys)
    keys.create_key(db, factories.SECRET_KEY, NOW)  # rotated: the lost one signs nothing again
    assert keys.newest_opens(db, secret_keys)
