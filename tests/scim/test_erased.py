"""An erased person over SCIM: never reactivated nor named again; the IdP's id forgotten."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tests import factories
from tests.scim.conftest import error_of, user_body
from tracker.clock import utcnow
from tracker.people.models import Engineer
from tracker.people.services.reads import find_engineer
from tracker.privacy.services.erasure import erase_person
from tracker.scim.models import ScimUser

ON = {"op": "replace", "path": "active", "value": True}


def _erased(scim, db: Session) -> Engineer:
    created = scim.create_user("gone@example.com", active=False, externalId="okta-gone")
    person = find_engineer(db, "gone@example.com")
    assert person is not None and db.get_one(ScimUser, person.id).external_id
    admin = factories.engineer(db, access_role="admin")
    assert erase_person(db, person, admin, utcnow(), via="web")
    assert created["id"] == str(person.id)
    return person


def test_an_erased_person_is_not_reactivated(scim, db: Session):
    person = _erased(scim, db)
    assert db.get_one(ScimUser, person.id).external_id is None
    error_of(scim.patch(f"/Users/{person.id}", ON), 400, "invalidValue")
    db.expire_all()
    assert not db.get_one(Engineer, person.id).active


def test_an_erased_person_is_not_named_again(scim, db: Session):
    person = _erased(scim, db)
    error_of(scim.put(f"/Users/{person.id}", user_body("gone@example.com")), 400, "invalidValue")
    db.expire_all()
    assert db.get_one(Engineer, person.id).email == f"erased-{person.id}@invalid"
