"""Fixtures for the admin pages: CSRF off by default, a pinned today, signed-in clients."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.admin.helpers import sign_in
from tests.factories import TODAY
from tracker.people.models import Engineer


@pytest.fixture(autouse=True)
def csrf_off(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Post forms without tokens unless a test asks for `csrf_enabled`.

    The session-wide app leaves CSRF on (Flask-WTF's default), so each test
    here says what it wants.
    """
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", False)


@pytest.fixture(autouse=True)
def pinned_today(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(app.config, "TODAY", TODAY)


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(db, name="Ada Admin", email="ada@example.com", access_role="admin")


@pytest.fixture
def admin_client(client: FlaskClient, admin: Engineer) -> FlaskClient:
    sign_in(client, admin.email)
    return client
