"""The security suite's world: a person of each role, their own objects and a stranger's.

- the engineer `engineer` works in `team`, run by `manager`;
- the manager `manager` runs `team` (and so reads `engineer`'s records);
- the admin `admin` may do everything;
- the victim `victim` works in `victim_team`, run by `victim_manager`: nobody
  above but the admin may see a thing of theirs. Their records carry LEAK
  markers, so a response that shows them to someone else is caught.

CSRF is off unless a test turns it on (the app's setting), "today" is pinned
and the sign-in limiter is fresh for every test.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import TODAY
from tests.helpers import WEBHOOK_HOSTS
from tracker.badges.models import BadgeMapping
from tracker.badges.services.mapping import map_badge_class
from tracker.db import Base
from tracker.extensions import SignInLimiter
from tracker.people.models import Engineer, Team
from tracker.people.services.accounts import create_token
from tracker.progress.models import ExamPlan, HourLog
from tracker.progress.services.exam_plans import plan_exam
from tracker.progress.services.hours import log_hours
from tracker.reminders.models import Notification
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint
from tracker.webhooks.services.endpoints import add_endpoint

LEAK = "LEAKMARK"  # in every free-text field of the victim's records
VICTIM_NAME = f"Vesper {LEAK} Quill"
VICTIM_EMAIL = "vesper.leakmark@example.com"


@pytest.fixture(autouse=True)
def pinned_today(pinned_today: dt.date) -> dt.date:
    """Pin today for every security test."""
    return pinned_today


@pytest.fixture(autouse=True)
def limiter(limiter: SignInLimiter) -> SignInLimiter:
    """Give every security test a sign-in limiter of its own."""
    return limiter


@dataclass
class World:
    admin: Engineer
    manager: Engineer
    engineer: Engineer
    team: Team
    victim: Engineer
    victim_manager: Engineer
    victim_team: Team
    entries: dict[str, HourLog]
    notification: Notification
    webhook: WebhookEndpoint
    delivery: WebhookDelivery
    mapping: BadgeMapping
    tokens: dict[str, str] = field(default_factory=dict)
    # Each role's planned exam, and the stranger's ("victim").
    plans: dict[str, ExamPlan] = field(default_factory=dict)

    def person(self, role: str) -> Engineer:
        return {"admin": self.admin, "manager": self.manager, "engineer": self.engineer}[role]


def _entry(db: Session, who: Engineer, note: str) -> HourLog:
    return log_hours(
        db, who, factories.course(db, "FDL"), TODAY, factories.hours(2), TODAY, note=note, actor=who
    )


@pytest.fixture
def world(db: Session) -> World:
    admin = factories.engineer(db, name="Ada Admin", access_role="admin")
    manager = factories.engineer(db, name="Max Manager", access_role="manager")
    team = factories.team(db, name="Own Team", manager=manager)
    engineer = factories.engineer(db, name="Eve Engineer", team=team, manager=manager)
    victim_manager = factories.engineer(db, name="Vic Boss", access_role="manager")
    victim_team = factories.team(db, name="Stranger Team", manager=victim_manager)
    victim = factories.engineer(
        db,
        name=VICTIM_NAME,
        email=VICTIM_EMAIL,
        team=victim_team,
        manager=victim_manager,
        experience_months=3,
        experience_text=f"experience {LEAK}",
    )
    cert = factories.certification(db, victim, "CKA", TODAY.replace(year=2025))
    cert.evidence = f"evidence {LEAK}"
    entries = {
        "engineer": _entry(db, engineer, "own notes"),
        "manager": _entry(db, manager, "manager notes"),
        "admin": _entry(db, admin, "admin notes"),
        "victim": _entry(db, victim, f"notes {LEAK}"),
    }
    notification = Notification(
        dedupe_key="security-world",
        kind="reminder",
        to_addrs=VICTIM_EMAIL,
        subject=f"reminder {LEAK}",
        body_text=LEAK,
        message_id="<security-world@example.com>",
        status="failed",
    )
    db.add(notification)
    webhook = add_endpoint(
        db, "https://hooks.example.com/security", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS
    )
    victim.calendar_token = "security-world-victim-calendar-token"
    victim_team.calendar_token = "security-world-victim-team-calendar-token"
    engineer.calendar_token = "security-world-own-calendar-token"
    team.calendar_token = "security-world-own-team-calendar-token"
    db.flush()
    world = World(
        admin,
        manager,
        engineer,
        team,
        victim,
        victim_manager,
        victim_team,
        entries,
        notification,
        webhook,
        factories.webhook_delivery(db, webhook, last_error=f"answered 500: {LEAK}"),
        map_badge_class(db, "https://badges.example.com/classes/security", "NCP-AII"),
    )
    for role in ("admin", "manager", "engineer"):
        world.tokens[role] = create_token(db, world.person(role), "security")[1]
    for role in ("admin", "manager", "engineer", "victim"):
        who = victim if role == "victim" else world.person(role)
        world.plans[role] = plan_exam(
            db, who, factories.exam(db, "NCA-AIIO"), TODAY + dt.timedelta(days=30), TODAY
        )
    return world


def snapshot(db: Session, ignore: frozenset[str] | set[str] = frozenset()) -> dict[str, list]:
    """Return every row of every table: what a refused request must leave as it was.

    Tables in `ignore` are only counted (an API call records its token's use).
    """
    db.expire_all()
    rows: dict[str, list] = {}
    for table in Base.metadata.sorted_tables:
        if table.name in ignore:
            rows[table.name] = [db.execute(text(f'SELECT COUNT(*) FROM "{table.name}"')).scalar()]
            continue
        columns = ", ".join(f'"{c.name}"' for c in table.columns)
        order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns) or "1"
        rows[table.name] = [
            tuple(row)
            for row in db.execute(text(f'SELECT {columns} FROM "{table.name}" ORDER BY {order}'))
        ]
    return rows


class TagCollector(HTMLParser):
    """Collect what a page turns into markup: tags and their attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def injected_markup(html: str) -> list[str]:
    """Return markup a page holds that the tracker never writes itself.

    Inline scripts, event-handler attributes, javascript: URLs and an <img src=x>.
    """
    parser = TagCollector()
    parser.feed(html)
    parser.close()
    found = []
    for tag, attrs in parser.tags:
        if tag == "script" and not (attrs.get("src") or "").startswith("/static/"):
            found.append(f"<script {attrs}>")
        if tag == "img" and attrs.get("src") == "x":
            found.append(f"<img {attrs}>")
        for name, value in attrs.items():
            if name.startswith("on"):
                found.append(f"<{tag} {name}={value!r}>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                found.append(f"<{tag} {name}={value!r}>")
    return found
