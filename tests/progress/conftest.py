"""The people the progress page tests sign in as: an engineer, a manager, a report, an admin."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tracker.people.models import Engineer


@pytest.fixture
def alice(db: Session) -> Engineer:
    return factories.engineer(db, name="Alice Ops")


@pytest.fixture
def bob(db: Session) -> Engineer:
    return factories.engineer(db, name="Bob Other")


@pytest.fixture
def boss(db: Session) -> Engineer:
    return factories.engineer(db, name="Maria Manager", access_role="manager")


@pytest.fixture
def report(db: Session, boss: Engineer) -> Engineer:
    return factories.engineer(db, name="Rita Report", manager=boss)


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(db, name="Ada Admin", access_role="admin")
