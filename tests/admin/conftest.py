"""Fixtures for the admin pages: a pinned today, an admin and their signed-in client, a person."""

from __future__ import annotations

import datetime as dt

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import sign_in
from tracker.people.models import Engineer


@pytest.fixture(autouse=True)
def pinned_today(pinned_today: dt.date) -> dt.date:
    """Pin today for every admin test."""
    return pinned_today


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(db, name="Ada Admin", email="ada@example.com", access_role="admin")


@pytest.fixture
def admin_client(client: FlaskClient, admin: Engineer) -> FlaskClient:
    sign_in(client, admin)
    return client


@pytest.fixture
def person(db):
    return factories.engineer(db, name="Pia Person", job_roles=("operations", "network"), level=1)
