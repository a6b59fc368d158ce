"""Fixtures for the careers tests: a pinned "today", an API caller, a scene of people."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api
from tracker.careers.rules import EARLIEST_DATE
from tracker.careers.services.bonuses import set_bonus
from tracker.people.models import Engineer, Team
from tracker.people.services.accounts import create_token
from tracker.progress.services.certifications import record_attempt


@pytest.fixture(autouse=True)
def pinned_today(pinned_today: dt.date) -> dt.date:
    """Pin today for every careers test."""
    return pinned_today


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


@pytest.fixture
def earned(db: Session, people: People) -> People:
    """Bonuses of 500 for NCA-AIIO, passed by junior, report and (renamed) outsider in 2026-Q4."""
    set_bonus(
        db,
        factories.credential(db, "NCA-AIIO"),
        Decimal("500"),
        effective_on=EARLIEST_DATE,
        today=factories.TODAY,
    )
    exam = factories.exam(db, "NCA-AIIO")
    people.outsider.name = "=HYPERLINK(evil)"
    for who, on in (
        (people.junior, dt.date(2026, 10, 1)),
        (people.report, dt.date(2026, 11, 15)),
        (people.outsider, dt.date(2026, 11, 20)),
    ):
        record_attempt(db, who, exam, on, 80, True, factories.TODAY)
    return people
