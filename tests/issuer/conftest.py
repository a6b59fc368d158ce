"""The issuer's tests: an internal-track credential and a holder of it."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tracker.catalog.models.credentials import Credential
from tracker.progress.models import Certification

EARNED = dt.date(2026, 1, 10)
EXPIRES = dt.date(2028, 1, 31)


@pytest.fixture
def internal(db: Session) -> Credential:
    return factories.internal_credential(
        db,
        "INT-GPU-OPS",
        "Internal GPU operations",
        description="Runs the organisation's GPU clusters.",
    )


@pytest.fixture
def holder(db: Session, internal: Credential):
    person = factories.engineer(db, name="Ada Lovelace", email="ada@example.com")
    cert = Certification(
        engineer_id=person.id,
        credential_id=internal.id,
        earned_on=EARNED,
        expires_on=EXPIRES,
        evidence="passed the internal exam",
    )
    db.add(cert)
    db.flush()
    return person, cert
