"""Fixtures for the people tests: a person to sign in as."""

from __future__ import annotations

import pytest

from tests import factories
from tracker.people.models import Engineer


@pytest.fixture
def person(db) -> Engineer:
    return factories.engineer(db)
