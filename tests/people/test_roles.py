"""The tracker keeps an active admin: no channel deactivates or demotes the last one."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests import factories
from tests.helpers import fresh
from tracker.audit.models import AccountEvent
from tracker.errors import ValidationError
from tracker.people.rules import LAST_ADMIN_RULE
from tracker.people.services.persons import set_active, set_identity, update_engineer


def test_the_last_active_admin_cannot_be_deactivated(db):
    admin = factories.engineer(db, access_role="admin")
    with pytest.raises(ValidationError) as refused:
        set_active(db, admin, False)
    assert refused.value.errors == {"active": LAST_ADMIN_RULE}
    assert fresh(db, admin).active is True


def test_the_last_active_admin_cannot_be_made_a_manager(db):
    admin = factories.engineer(db, access_role="admin")
    with pytest.raises(ValidationError) as refused:
        update_engineer(db, admin, None, factories.TODAY, access_role="manager")
    assert refused.value.errors == {"access_role": LAST_ADMIN_RULE}
    assert fresh(db, admin).access_role == "admin"


def test_an_inactive_admin_does_not_count_as_another(db):
    admin = factories.engineer(db, access_role="admin")
    away = factories.engineer(db, access_role="admin")
    set_active(db, away, False)
    with pytest.raises(ValidationError):
        set_active(db, admin, False)


def test_with_another_active_admin_either_may_go(db):
    admin = factories.engineer(db, access_role="admin")
    factories.engineer(db, access_role="admin")
    update_engineer(db, admin, None, factories.TODAY, access_role="engineer")
    assert fresh(db, admin).access_role == "engineer"


def test_a_new_address_or_name_goes_into_the_account_trail(db):
    person = factories.engineer(db, email="old@example.com", name="Old Name")
    set_identity(db, person, email="new@example.com", name="New Name", via="scim")
    event = db.scalars(select(AccountEvent).where(AccountEvent.kind == "updated")).one()
    assert (event.engineer_id, event.method) == (person.id, "scim")
    assert event.detail == {
        "email": {"from": "old@example.com", "to": "new@example.com"},
        "name": {"from": "Old Name", "to": "New Name"},
    }


def test_the_same_address_and_name_record_nothing(db):
    person = factories.engineer(db, email="same@example.com", name="Same")
    set_identity(db, person, email="same@example.com", name="Same")
    assert db.scalars(select(AccountEvent).where(AccountEvent.kind == "updated")).all() == []
