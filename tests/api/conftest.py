"""Fixtures for the JSON API: a pinned "today", a people scene with tokens, a caller."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conformance import conforming
from tests.helpers import Api, count, token_for
from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Credential
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token, revoke_token
from tracker.people.services.persons import set_active
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.progress.services.hours import log_hours

NOW = dt.datetime(2026, 11, 29, 12, 0)
TABLES = {
    "hour_logs": HourLog,
    "exam_attempts": ExamAttempt,
    "certifications": Certification,
    "credentials": Credential,
    "audit_events": AuditEvent,
}


@pytest.fixture(autouse=True)
def pinned_today(pinned_today: dt.date) -> dt.date:
    """Pin today for every API test."""
    return pinned_today


@pytest.fixture(autouse=True)
def answers_as_documented(app: Flask) -> Iterator[None]:
    """Every API answer of every API test: a status the OpenAPI document lists, in its schema."""
    with conforming(app) as problems:
        yield
    assert not problems, "answers unlike the OpenAPI document:\n" + "\n".join(problems)


def row_counts(db: Session) -> dict[str, int]:
    """Count the rows of every table a write through the API may touch."""
    return {name: count(db, model) for name, model in TABLES.items()}


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


@dataclass
class Scene:
    """Who is who: the engineer whose records are asked for, and everyone around them."""

    target: Engineer
    other: Engineer
    manager: Engineer
    other_manager: Engineer
    admin: Engineer
    tokens: dict[str, str | None] = field(default_factory=dict)
    entry: HourLog | None = None


@pytest.fixture
def scene(db: Session) -> Scene:
    """target reports to manager; other is in other_manager's team; tokens for every role.

    Roles without a valid token: none (no header), revoked (target's revoked
    token) and deactivated (a deactivated admin's token).
    """
    manager = factories.engineer(db, name="Manager", access_role="manager")
    other_manager = factories.engineer(db, name="Other manager", access_role="manager")
    team = factories.team(db, manager=other_manager)
    target = factories.engineer(db, name="Target", manager=manager)
    other = factories.engineer(db, name="Other", team=team)
    admin = factories.engineer(db, name="Admin", access_role="admin")
    gone = factories.engineer(db, name="Gone", access_role="admin")
    revoked, revoked_secret = create_token(db, target, "old")
    revoke_token(db, revoked, NOW)
    tokens: dict[str, str | None] = {
        "self": token_for(db, target),
        "other engineer": token_for(db, other),
        "manager": token_for(db, manager),
        "other manager": token_for(db, other_manager),
        "admin": token_for(db, admin),
        "no token": None,
        "revoked token": revoked_secret,
        "deactivated": token_for(db, gone),
    }
    set_active(db, gone, False)
    return Scene(target, other, manager, other_manager, admin, tokens)


@pytest.fixture
def scene_with_entry(db: Session, scene: Scene) -> Scene:
    """The scene with an hour log entry of the target's, for the routes that take one."""
    scene.entry = log_hours(
        db,
        scene.target,
        factories.course(db, "FDL"),
        factories.TODAY.replace(day=1),
        factories.hours("1.5"),
        factories.TODAY,
        note="reading",
        actor=scene.target,
    )
    return scene
