"""Every list of the API answers pages: `limit`, an opaque `cursor`, `{"items", "next"}`.

Following `next` answers each row once, in the list's order, even while rows
are inserted between the pages.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any, get_origin

import pytest
from flask import Flask
from pydantic import BaseModel
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.api.helpers import LISTS, add_hours, certification_rows, newest_first, walk
from tests.helpers import Api, token_for
from tracker.api.certifications import CERTIFICATIONS_ORDER
from tracker.api.openapi import api_routes
from tracker.api.pages import seek
from tracker.progress.ddl import EXPIRY_ORDER_INDEX, NEVER_EXPIRES_SORTS_AS
from tracker.progress.models import Certification, HourLog
from tracker.progress.services.validity import newest_of_its_credential
from tracker.schemas import DEFAULT_LIMIT, MAX_CURSOR_LENGTH, MAX_LIMIT, Page, PageQuery

D = dt.date


# --- the acceptance: 1,000 hour logs -------------------------------------------------------


def test_paging_through_1000_hour_logs_by_37_yields_each_exactly_once(
    api: Api, db: Session, scene: Scene
) -> None:
    # Four entries a day over 250 days: most pages end inside a day, so the id decides.
    days = [D(2025, 1, 1) + dt.timedelta(days=n // 4) for n in range(1000)]
    logged = {e.id for e in add_hours(db, scene.target, days)}

    items = walk(api, "/api/v1/hours", scene.tokens["self"], 37)

    seen = Counter(e["id"] for e in items)
    assert set(seen) == logged
    assert set(seen.values()) == {1}
    assert len(items) == 1000
    assert newest_first(items) == sorted(newest_first(items), reverse=True)


def test_rows_inserted_between_pages_leave_each_earlier_row_seen_once(
    api: Api, db: Session, scene: Scene
) -> None:
    days = [D(2026, 1, 1) + dt.timedelta(days=n // 4) for n in range(100)]
    before = {e.id for e in add_hours(db, scene.target, days)}
    later: list[HourLog] = []
    oldest = D(2022, 1, 1)

    def insert(page: list[dict[str, Any]]) -> None:
        # Newer than every row (before the cursor: an OFFSET would then answer a row
        # twice), on the day the page ended (ties: id), and older than every row
        # (after the cursor: it is still to come, once).
        last = D.fromisoformat(page[-1]["date"])
        n = len(later)
        later.extend(
            add_hours(db, scene.target, [factories.TODAY, last, oldest + dt.timedelta(days=n)])
        )

    items = walk(api, "/api/v1/hours", scene.tokens["self"], 10, between=insert)

    seen = Counter(e["id"] for e in items)
    assert later, "rows were inserted between the pages"
    assert set(seen.values()) == {1}
    assert before <= set(seen)
    assert {e.id for e in later if e.logged_on < min(days)} <= set(seen)
    assert newest_first(items) == sorted(newest_first(items), reverse=True)


# --- every list ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize("limit", [1, 2, 3])
def test_each_list_pages_through_every_row_once_in_its_order(
    api: Api, db: Session, scene: Scene, name: str, limit: int
) -> None:
    url, rows, identity, in_order = LISTS[name]
    rows(db, scene)
    token = scene.tokens["admin"]
    whole = api.get(f"{url}{'&' if '?' in url else '?'}limit={MAX_LIMIT}", token).get_json()
    assert whole["next"] is None
    assert len(whole["items"]) >= 7

    paged = walk(api, url, token, limit)

    assert paged == whole["items"]
    assert len({identity(item) for item in paged}) == len(paged)
    assert in_order(paged, db)


@pytest.mark.parametrize("name", LISTS)
def test_each_list_answers_an_empty_page_when_there_is_nothing(
    api: Api, db: Session, name: str
) -> None:
    url = LISTS[name][0]
    # A new manager sees nothing yet; webhooks are an admin's, and none is registered.
    role = "admin" if name in ("webhooks", "organisation", "organisation history") else "manager"
    manager = factories.engineer(db, name="New manager", access_role=role)
    assert api.get(url, token_for(db, manager)).get_json() == {"items": [], "next": None}


def test_a_list_answers_fifty_rows_a_page_unless_told(api: Api, db: Session, scene: Scene) -> None:
    add_hours(db, scene.target, [D(2026, 1, 1) + dt.timedelta(days=n) for n in range(51)])
    first = api.get("/api/v1/hours", scene.tokens["self"]).get_json()
    assert len(first["items"]) == DEFAULT_LIMIT == 50
    assert first["next"] is not None
    rest = api.get(f"/api/v1/hours?cursor={first['next']}", scene.tokens["self"]).get_json()
    assert [e["date"] for e in rest["items"]] == ["2026-01-01"]
    assert rest["next"] is None


def test_a_page_of_exactly_the_rest_says_no_next(api: Api, db: Session, scene: Scene) -> None:
    add_hours(db, scene.target, [D(2026, 1, 1), D(2026, 1, 2)])
    body = api.get("/api/v1/hours?limit=2", scene.tokens["self"]).get_json()
    assert len(body["items"]) == 2
    assert body["next"] is None


def test_the_cursor_keeps_the_filters_it_is_sent_with(api: Api, db: Session, scene: Scene) -> None:
    certification_rows(db, scene)
    token = scene.tokens["admin"]
    items = walk(api, "/api/v1/certifications?status=valid", token, 1)
    assert items and {c["status"] for c in items} == {"valid"}
    everything = walk(api, "/api/v1/certifications", token, 500)
    assert items == [c for c in everything if c["status"] == "valid"]


# --- the document ----------------------------------------------------------------------------


def test_the_document_shows_each_page_with_its_items_and_its_query(api: Api) -> None:
    doc = api.get("/api/v1/openapi.json").get_json()
    schemas = doc["components"]["schemas"]
    for path, item in [
        ("/api/v1/hours", "HourLogOut"),
        ("/api/v1/certifications", "CertificationOut"),
        ("/api/v1/teams", "TeamOut"),
        ("/api/v1/bonuses", "BonusOut"),
    ]:
        spec = doc["paths"][path]["get"]
        ref = spec["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        page = schemas[ref.rsplit("/", 1)[-1]]
        assert page["required"] == ["items", "next"]
        assert page["properties"]["items"]["items"] == {"$ref": f"#/components/schemas/{item}"}
        parameters = {p["name"]: p for p in spec["parameters"]}
        assert parameters["limit"]["schema"] == {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": DEFAULT_LIMIT,
        }
        assert parameters["cursor"]["schema"]["maxLength"] == MAX_CURSOR_LENGTH
        assert "400" in spec["responses"]
        # Every filter says what it does.
        assert all(p.get("description") for p in parameters.values()), path


# Answers of one object whose lists are that object's own (one person's paths,
# evidence and skills; one team's people, seats and forecast): bounded by it.
ONE_OBJECT = {
    "MeOut",
    "EngineerOut",
    "WebhookSecretOut",
    "WebhookOut",
    "OverviewOut",
    "CareerOut",
    "SkillsOut",
    "CoverageOut",
    "TeamReadinessOut",
    "ForecastOut",
    "PersonalDataOut",
}


def _has_list(model: type[BaseModel]) -> bool:
    return any(get_origin(info.annotation) is list for info in model.model_fields.values())


def test_every_list_the_api_answers_is_a_page(app: Flask) -> None:
    """Any list added later pages too: an answer holding a list is a Page, or one object's."""
    pages, one_object = set(), set()
    for route in api_routes(app):
        for model in route.operation.answers.values():
            if model is None:
                continue
            if issubclass(model, Page):
                pages.add(route.rule)
                assert route.method == "GET", route.rule
                assert route.operation.query_model is not None
                assert issubclass(route.operation.query_model, PageQuery), route.rule
            elif _has_list(model):
                one_object.add(model.__name__)
    assert one_object == ONE_OBJECT, "an answer holds a list and is not a Page"
    # One team's history pages too (tests/readiness/test_history.py walks it).
    one_team = {"/api/v1/teams/<int:team_id>/history"}
    assert pages == {LISTS[name][0].partition("?")[0] for name in LISTS} | one_team


def test_the_certifications_by_expiry_are_read_in_order_off_their_index(db: Session) -> None:
    """On PostgreSQL the list's order is an index's (a page reads its rows, not a sort of
    every certification), from the cursor on: the seek bounds the first key."""
    if db.get_bind().dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (SQLite cannot reflect an index on an expression)")
    keys = CERTIFICATIONS_ORDER
    statement = (
        select(Certification.id)
        .where(newest_of_its_credential(), seek(keys, [dt.date(2027, 1, 1), 10]))
        .order_by(*(k.order() for k in keys))
        .limit(51)
    )
    compiled = statement.compile(db.get_bind(), compile_kwargs={"literal_binds": True})
    # The tables are small here: the planner is told to prefer anything to a sort.
    db.execute(text("SET LOCAL enable_sort = off"))
    plan = "\n".join(db.execute(text(f"EXPLAIN {compiled}")).scalars())
    assert f"Index Cond: (COALESCE(expires_on, '{NEVER_EXPIRES_SORTS_AS}'::date)" in plan
    assert EXPIRY_ORDER_INDEX in plan and "Sort" not in plan
