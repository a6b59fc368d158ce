"""The account trail: each event is stored with its kind and method, unknown ones refused."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests import factories
from tracker.audit.accounts import record_account_event
from tracker.audit.models import AccountEvent


def test_an_event_is_stored_with_its_account_method_and_address(db):
    person = factories.engineer(db, name="Ana")
    record_account_event(
        db,
        "sign_in",
        engineer_id=person.id,
        email=" Ana@Example.COM ",
        method="password",
        address="127.0.0.1",
    )
    db.flush()
    (event,) = db.scalars(select(AccountEvent).where(AccountEvent.kind == "sign_in")).all()
    assert (event.kind, event.method, event.engineer_id) == ("sign_in", "password", person.id)
    assert event.email == "ana@example.com"
    assert event.address == "127.0.0.1"


@pytest.mark.parametrize("kind, method", [("signed_in", None), ("sign_in", "carrier-pigeon")])
def test_an_unknown_kind_or_method_is_refused(db, kind, method):
    with pytest.raises(ValueError, match="unknown account event"):
        record_account_event(db, kind, method=method)
