"""Fixtures for the readiness tests: an API caller and the Alpha and Bravo scene."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests.helpers import Api
from tests.readiness.helpers import Org, build_org


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


@pytest.fixture
def org(db: Session) -> Org:
    """Alpha and Bravo (build_org); a module wanting more of the scene defines its own."""
    return build_org(db)
