"""The profile lists the person's identity provider accounts; each can be unlinked,
unless it is their only way to sign in."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select

from tests import factories
from tests.helpers import confirmation, count
from tracker.audit.models import AccountEvent
from tracker.identity.models import Identity

ISSUER = "https://id.example.com"


def linked(db, engineer, issuer: str = ISSUER, subject: str = "sub-1") -> Identity:
    identity = Identity(
        engineer_id=engineer.id,
        issuer=issuer,
        subject=subject,
        email=engineer.email,
        created_at=dt.datetime(2026, 5, 4, 9, 0),
        last_sign_in_at=dt.datetime(2026, 11, 20, 8, 0),
    )
    db.add(identity)
    db.flush()
    return identity


def test_the_profile_lists_the_linked_accounts(client, auth, db) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    linked(db, ada)
    auth.sign_in(ada)
    page = client.get("/profile").get_data(as_text=True)
    assert "Single sign-on accounts" in page
    assert f"<td>{ISSUER}</td><td>ada@example.com</td>" in page
    assert '<time datetime="2026-05-04">May 4, 2026</time>' in page
    assert '<time datetime="2026-11-20">Nov 20, 2026</time>' in page


def test_no_linked_account_no_section(client, auth, db) -> None:
    auth.sign_in(factories.engineer(db))
    assert "Single sign-on accounts" not in client.get("/profile").get_data(as_text=True)


def test_unlinking_removes_the_account_and_records_it(client, auth, db) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    identity = linked(db, ada)
    auth.sign_in(ada)
    response = client.post(f"/profile/identities/{identity.id}/unlink")
    assert response.status_code == 302 and response.location.endswith("/profile")
    assert count(db, Identity) == 0
    event = db.scalars(select(AccountEvent).where(AccountEvent.kind == "identity_unlinked")).one()
    assert (event.engineer_id, event.actor_id, event.method) == (ada.id, ada.id, "web")
    assert event.detail == {"issuer": ISSUER, "subject": "sub-1"}
    assert f"Unlinked your account at {ISSUER}." in client.get("/profile").get_data(as_text=True)


def test_the_only_way_in_is_not_unlinked(client, auth, db) -> None:
    """A person without a password keeps their one provider account (they could not sign
    in again); a second account may go."""
    ada = factories.engineer(db, email="ada@example.com")
    first = linked(db, ada)
    auth.sign_in(ada)
    ada.password_hash = None
    db.flush()
    refused = client.post(f"/profile/identities/{first.id}/unlink")
    assert refused.status_code == 400
    assert "it is your only way to sign in" in refused.get_data(as_text=True)
    assert count(db, Identity) == 1
    second = linked(db, ada, issuer="https://other.example.com", subject="sub-2")
    assert client.post(f"/profile/identities/{second.id}/unlink").status_code == 302
    assert [i.id for i in db.scalars(select(Identity))] == [first.id]


def test_someone_elses_account_is_not_found(client, auth, db) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    bob = factories.engineer(db, email="bob@example.com")
    theirs = linked(db, bob)
    auth.sign_in(ada)
    assert client.post(f"/profile/identities/{theirs.id}/unlink").status_code == 404
    assert client.get(f"/profile/identities/{theirs.id}/unlink").status_code == 404
    assert client.post("/profile/identities/999/unlink").status_code == 404
    assert count(db, Identity) == 1


def test_unlinking_asks_first_and_cancel_goes_back_to_the_accounts(client, auth, db) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    identity = linked(db, ada)
    auth.sign_in(ada)
    url = f"/profile/identities/{identity.id}/unlink"
    assert f'<a href="{url}" role="button"' in client.get("/profile").text

    asked = confirmation(client, url)

    assert asked.question == f"Unlink your account at {ISSUER}?"
    assert "It no longer signs you in until you link it anew" in asked.text
    assert "your account trail notes the unlinking" in asked.text
    assert asked.back == "/profile#identities"
    unlinked = select(AccountEvent).where(AccountEvent.kind == "identity_unlinked")
    assert count(db, Identity) == 1 and db.scalars(unlinked).first() is None

    response = asked.confirm()

    assert response.status_code == 302 and response.location.endswith("/profile")
    assert count(db, Identity) == 0
