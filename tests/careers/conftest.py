"""Fixtures for the careers tests: a pinned "today", an API caller, a scene of people."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session
from werkzeug.test import TestResponse

from tests import factories
from tracker.people.models import Engineer, Team
from tracker.people.services.accounts import create_token

TODAY = factories.TODAY  # 2026-11-29


@pytest.fixture(autouse=True)
def pinned_today(app: Flask) -> Iterator[dt.date]:
    """Make every request reason about factories.TODAY."""
    saved = app.config.get("TODAY")
    app.config["TODAY"] = TODAY
    yield TODAY
    if saved is None:
        app.config.pop("TODAY", None)
    else:
        app.config["TODAY"] = saved


class Api:
    """Call the API with a bearer token."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def call(self, method: str, url: str, token: str | None = None, **kwargs: Any) -> TestResponse:
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return self.client.open(url, method=method, headers=headers, **kwargs)

    def get(self, url: str, token: str | None = None, **kwargs: Any) -> TestResponse:
        return self.call("GET", url, token, **kwargs)

    def put(self, url: str, token: str | None, json: Any = None, **kwargs: Any) -> TestResponse:
        return self.call("PUT", url, token, json=json, **kwargs)

    def post(self, url: str, token: str | None, json: Any = None, **kwargs: Any) -> TestResponse:
        return self.call("POST", url, token, json=json, **kwargs)


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


@dataclass
class People:
    """manager runs `team` (junior, senior in it; report reports to them directly);
    other_manager runs `other_team` (outsider in it); admin sees everything."""

    manager: Engineer
    other_manager: Engineer
    admin: Engineer
    junior: Engineer
    senior: Engineer
    report: Engineer
    outsider: Engineer
    team: Team
    other_team: Team
    tokens: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def people(db: Session) -> People:
    manager = factories.engineer(db, name="Maya Manager", access_role="manager", level=4)
    other_manager = factories.engineer(db, name="Omar Other", access_role="manager", level=4)
    admin = factories.engineer(db, name="Ada Admin", access_role="admin", level=3)
    team = factories.team(db, name="Blue", manager=manager)
    other_team = factories.team(db, name="Green", manager=other_manager)
    junior = factories.engineer(db, name="Jules Junior", team=team, level=1)
    senior = factories.engineer(db, name="Sasha Senior", team=team, level=4)
    report = factories.engineer(db, name="Remy Report", manager=manager, level=2)
    outsider = factories.engineer(db, name="Otto Outsider", team=other_team, level=2)
    found = People(
        manager, other_manager, admin, junior, senior, report, outsider, team, other_team
    )
    for name in ("manager", "other_manager", "admin", "junior", "senior", "report", "outsider"):
        found.tokens[name] = create_token(db, getattr(found, name), "test")[1]
    return found
