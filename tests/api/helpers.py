"""Helpers for the API's paging tests: each paged list, the rows behind it, a walk over it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.helpers import WEBHOOK_HOSTS, Api
from tracker.careers.rules import EARLIEST_DATE
from tracker.careers.services.bonuses import set_bonus
from tracker.people.models import Engineer, Team
from tracker.progress.models import HourLog
from tracker.readiness.services.history import backfill
from tracker.webhooks.services.endpoints import add_endpoint

D = dt.date


def add_hours(db: Session, who: Engineer, days: list[dt.date], note: str = "") -> list[HourLog]:
    """Insert an hour on each of `days` for `who`, directly (the pages read, not the rules)."""
    course = factories.course(db, "FDL")
    entries = [
        HourLog(
            engineer_id=who.id,
            course_id=course.id,
            logged_on=day,
            hours=Decimal(1),
            note=note,
        )
        for day in days
    ]
    db.add_all(entries)
    db.flush()
    return entries


def walk(
    api: Api,
    url: str,
    token: str | None,
    limit: int,
    between: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[dict[str, Any]]:
    """Return every item of a list, following `next` page by page (`between` runs after each)."""
    items: list[dict[str, Any]] = []
    cursor = None
    for _ in range(10_000):
        query = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        response = api.get(f"{url}{'&' if '?' in url else '?'}{query}", token)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        assert set(body) == {"items", "next"}
        items += body["items"]
        cursor = body["next"]
        if cursor is None:
            assert len(body["items"]) <= limit
            return items
        # Only the last page may be short.
        assert len(body["items"]) == limit
        if between is not None:
            between(body["items"])
    raise AssertionError("the pages never ended")


def newest_first(items: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(e["date"], e["id"]) for e in items]


def hours_rows(db: Session, scene: Scene) -> None:
    add_hours(db, scene.admin, [D(2026, 3, 1), D(2026, 3, 1), D(2026, 2, 1), D(2026, 4, 1)] * 2)


def certification_rows(db: Session, scene: Scene) -> None:
    expiries = [D(2027, 1, 1), D(2027, 1, 1), D(2026, 6, 1), None, D(2028, 1, 1), None, None]
    for n, expires in enumerate(expiries):
        who = factories.engineer(db, name=f"Holder {n}")
        factories.certification(db, who, "CKA", D(2024, 1, 1), expires)
        if n % 2:
            # A renewal: only the newest certification of a credential is listed.
            factories.certification(db, who, "NCA-AIIO", D(2023, 1, 1), D(2025, 1, 1))
            factories.certification(db, who, "NCA-AIIO", D(2025, 1, 1), D(2027, 1, 1))


def team_rows(db: Session, scene: Scene) -> None:
    for name in ("Zulu", "alpha", "Mike", "Bravo", "Échelon", "Kilo", "Bravo 2"):
        factories.team(db, name=name)


def organisation_rows(db: Session, scene: Scene) -> None:
    """Teams of 0 to 2 ready operations engineers: ties of readiness, by name."""
    for n, name in enumerate(("Zulu", "alpha", "Mike", "Bravo", "Échelon", "Kilo", "Bravo 2")):
        crew = factories.team(db, name=name, gpus=50)
        for k in range(n % 3):
            who = factories.engineer(db, name=f"{name} {k}", team=crew, level=2)
            factories.certification(db, who, "NCA-AIIO", D(2026, 1, 1), D(2029, 1, 1))


def by_readiness(items: list[dict[str, Any]], db: Session) -> bool:
    """Readiness descending; equal readiness by name as the database orders names."""
    names = db.scalars(select(Team.name).order_by(Team.name)).all()
    keys = [(-item["percent"], names.index(item["team"]["name"])) for item in items]
    return keys == sorted(keys)


def organisation_days(db: Session, scene: Scene) -> None:
    organisation_rows(db, scene)
    backfill(db, factories.TODAY)


def bonus_rows(db: Session, scene: Scene) -> None:
    set_bonus(
        db,
        factories.credential(db, "CKA"),
        Decimal(250),
        effective_on=EARLIEST_DATE,
        today=factories.TODAY,
    )
    for n, earned in enumerate([D(2026, 10, 5), D(2026, 11, 2), D(2026, 10, 5)] * 3):
        who = factories.engineer(db, name=f"Earner {n}")
        factories.certification(db, who, "CKA", earned, D(2028, 1, 1))
    # Earned in another quarter: not in this one's ledger.
    factories.certification(db, scene.target, "CKA", D(2026, 9, 30), D(2028, 1, 1))


def webhook_rows(db: Session, scene: Scene) -> None:
    for n in range(7):
        add_endpoint(
            db,
            f"https://hooks.example.com/{n}",
            ["hours.logged"],
            "generic",
            allow_hosts=WEBHOOK_HOSTS,
        )


def expiry(item: dict[str, Any]) -> tuple[str, int]:
    return (item["expires_on"] or "9999-12-31", item["id"])


# url, the rows behind it, an item's identity, the order it is listed in.
LISTS: dict[str, tuple[str, Callable[[Session, Scene], None], Callable, Callable]] = {
    "hours": (
        "/api/v1/hours",
        hours_rows,
        lambda e: e["id"],
        lambda items, db: newest_first(items) == sorted(newest_first(items), reverse=True),
    ),
    "certifications": (
        "/api/v1/certifications",
        certification_rows,
        lambda c: c["id"],
        lambda items, db: [expiry(c) for c in items] == sorted(expiry(c) for c in items),
    ),
    "teams": (
        "/api/v1/teams",
        team_rows,
        lambda t: t["id"],
        # By name as the database orders names (its collation; an admin sees every team).
        lambda items, db: (
            [t["name"] for t in items] == db.scalars(select(Team.name).order_by(Team.name)).all()
        ),
    ),
    "organisation": (
        "/api/v1/organisation?sort=ready&order=desc",
        organisation_rows,
        lambda row: row["team"]["id"],
        by_readiness,
    ),
    "organisation history": (
        "/api/v1/organisation/history?months=1",
        organisation_days,
        lambda day: day["date"],
        lambda items, db: [d["date"] for d in items] == sorted(d["date"] for d in items),
    ),
    "webhooks": (
        "/api/v1/webhooks",
        webhook_rows,
        lambda w: w["id"],
        lambda items, db: [w["id"] for w in items] == sorted(w["id"] for w in items),
    ),
    "bonuses": (
        "/api/v1/bonuses?quarter=2026-Q4",
        bonus_rows,
        lambda b: b["certification"]["id"],
        lambda items, db: (
            [(b["passed_on"], b["certification"]["id"]) for b in items]
            == sorted((b["passed_on"], b["certification"]["id"]) for b in items)
        ),
    ),
}
