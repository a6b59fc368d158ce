"""The status list's revoked entries: the rule of revoked(), read in one query."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import count_statements
from tests.issuer.conftest import EARNED, EXPIRES
from tracker.catalog.models.credentials import Credential
from tracker.issuer.models import IssuedCredential
from tracker.issuer.services.credentials import revoked
from tracker.issuer.services.status import revoked_indexes

NOW = dt.datetime(2026, 11, 29, 12, 0)


def _issued(db: Session, internal: Credential, index: int, state: str) -> IssuedCredential:
    """Issue a credential at list entry `index`, then make it `state`."""
    person = factories.engineer(db)
    cert = factories.certification(db, person, internal.code, EARNED, EXPIRES)
    row = IssuedCredential(
        certification_id=cert.id,
        engineer_id=person.id,
        credential_uri=f"urn:uuid:test-{index}",
        public_token=f"token-{index}",
        status_index=index,
        document="{}",
    )
    db.add(row)
    db.flush()
    if state == "revoked":
        row.revoked_at = NOW
    elif state == "deleted":
        db.delete(cert)
    elif state == "renewed":
        renewal = factories.certification(db, person, internal.code, EXPIRES, None)
        renewal.renews_id = cert.id
    db.flush()
    db.expire_all()
    return row


STATES = ["standing", "revoked", "deleted", "renewed"]


def test_the_revoked_entries_are_those_revoked_calls_revoked(db: Session, internal: Credential):
    rows = [_issued(db, internal, 40 - 3 * n, state) for n, state in enumerate(STATES * 2)]

    found = revoked_indexes(db)

    assert found == sorted(row.status_index for row in rows if revoked(row))
    assert len(found) == 6  # every state but "standing", twice


def test_the_revoked_entries_take_one_query_however_many_were_issued(
    db: Session, internal: Credential
):
    for n, state in enumerate(STATES):
        _issued(db, internal, n, state)
    few, _ = count_statements(db, lambda: revoked_indexes(db))
    for n, state in enumerate(STATES * 5, start=len(STATES)):
        _issued(db, internal, n, state)
    db.expire_all()

    many, found = count_statements(db, lambda: revoked_indexes(db))

    assert few == many == 1
    assert len(found) == 18
