"""Every list of the API answers pages: `limit`, an opaque `cursor`, `{"items", "next"}`.

Following `next` answers each row once, in the list's order, even while rows
are inserted between the pages.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import Any, get_origin
from urllib.parse import parse_qs

import pytest
from flask import Flask
from pydantic import BaseModel
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.helpers import WEBHOOK_HOSTS, Api, token_for
from tracker.api.certifications import CERTIFICATIONS_ORDER
from tracker.api.errors import ApiError
from tracker.api.openapi import api_routes
from tracker.api.pages import PAGE_FIELDS, Key, read_cursor, seek, serializer
from tracker.careers.rules import EARLIEST_DATE
from tracker.careers.services.bonuses import set_bonus
from tracker.people.models import Engineer, Team
from tracker.progress.ddl import EXPIRY_ORDER_INDEX, NEVER_EXPIRES_SORTS_AS
from tracker.progress.models import Certification, HourLog
from tracker.progress.services.validity import newest_of_its_credential
from tracker.readiness.services.history import backfill
from tracker.schemas import (
    CURSOR_RULE,
    DEFAULT_LIMIT,
    LIMIT_RULE,
    MAX_CURSOR_LENGTH,
    MAX_LIMIT,
    Page,
    PageQuery,
)
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


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", ["0", "501", "-1", "abc", "1.5", "1e3", "٣"])
@pytest.mark.parametrize("name", LISTS)
def test_a_limit_outside_1_to_500_is_refused_naming_limit(
    api: Api, scene: Scene, name: str, limit: str
) -> None:
    url = LISTS[name][0]
    response = api.get(f"{url}{'&' if '?' in url else '?'}limit={limit}", scene.tokens["admin"])
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"limit": LIMIT_RULE}}
    assert LIMIT_RULE == "must be a whole number from 1 to 500"


@pytest.mark.parametrize("limit", ["1", "500", "%207%20"])
def test_a_limit_from_1_to_500_is_taken(api: Api, scene: Scene, limit: str) -> None:
    assert api.get(f"/api/v1/hours?limit={limit}", scene.tokens["self"]).status_code == 200


def a_cursor(api: Api, db: Session, scene: Scene) -> str:
    add_hours(db, scene.target, [D(2026, 1, 1), D(2026, 1, 2), D(2026, 1, 3)])
    cursor = api.get("/api/v1/hours?limit=1", scene.tokens["self"]).get_json()["next"]
    assert isinstance(cursor, str)
    return cursor


def flipped(cursor: str, at: int) -> str:
    """Return `cursor` with one character changed."""
    swap = "A" if cursor[at] != "A" else "B"
    return cursor[:at] + swap + cursor[at + 1 :]


@pytest.mark.parametrize(
    "bad",
    [
        lambda c: "garbage",
        lambda c: flipped(c, 2),  # the key changed: the signature no longer matches
        # The signature changed (inside it: its last character has bits base64 ignores).
        lambda c: flipped(c, len(c) - 5),
        lambda c: c[:-1],
        lambda c: c + c,
        lambda c: "a%20b",
        lambda c: "a%2Fb",
        lambda c: "%C3%A9t%C3%A9",
        lambda c: "x" * (MAX_CURSOR_LENGTH + 1),
        lambda c: "W10.e30",
    ],
)
def test_a_malformed_cursor_is_refused_naming_cursor(
    api: Api, db: Session, scene: Scene, bad: Callable[[str], str]
) -> None:
    cursor = bad(a_cursor(api, db, scene))
    response = api.get(f"/api/v1/hours?limit=1&cursor={cursor}", scene.tokens["self"])
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"cursor": CURSOR_RULE}}


def test_a_cursor_of_one_list_is_refused_by_another(api: Api, db: Session, scene: Scene) -> None:
    cursor = a_cursor(api, db, scene)
    response = api.get(f"/api/v1/certifications?cursor={cursor}", scene.tokens["admin"])
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"cursor": CURSOR_RULE}}
    # The same cursor still works on its own list.
    assert api.get(f"/api/v1/hours?cursor={cursor}", scene.tokens["self"]).status_code == 200


def test_a_cursor_given_before_the_key_was_rotated_still_pages(
    api: Api, db: Session, scene: Scene, request: pytest.FixtureRequest
) -> None:
    cursor = a_cursor(api, db, scene)
    request.getfixturevalue("rotated")
    body = api.get(f"/api/v1/hours?limit=1&cursor={cursor}", scene.tokens["self"]).get_json()
    assert [e["date"] for e in body["items"]] == ["2026-01-02"]
    # The next cursor is the new key's, and pages on too.
    last = api.get(f"/api/v1/hours?cursor={body['next']}", scene.tokens["self"]).get_json()
    assert [e["date"] for e in last["items"]] == ["2026-01-01"]


def test_without_the_fallback_a_cursor_of_the_old_key_is_refused(
    api: Api, db: Session, scene: Scene, request: pytest.FixtureRequest
) -> None:
    cursor = a_cursor(api, db, scene)
    request.getfixturevalue("replaced")
    response = api.get(f"/api/v1/hours?limit=1&cursor={cursor}", scene.tokens["self"])
    assert response.status_code == 400
    assert response.get_json() == {"errors": {"cursor": CURSOR_RULE}}


# --- a cursor is its list's: the same path, filters, order and caller ---------------------


def own_hours(db: Session, scene: Scene) -> None:
    add_hours(db, scene.target, [D(2026, 3, 1), D(2026, 3, 1), D(2026, 2, 1), D(2026, 4, 1)])


def ids(db: Session, scene: Scene) -> dict[str, int]:
    """Return the ids the URLs below name: the target's, and each team's by lower-case name."""
    teams = {name.lower(): team_id for team_id, name in db.execute(select(Team.id, Team.name))}
    return {"target": scene.target.id, **teams}


def with_query(url: str, query: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{query}"


# Each paged list: its first page (a URL, whose token), the rows behind it, and the
# requests of other lists that refuse its cursor: another path, filter, order or caller.
BOUND: dict[str, tuple[str, str, Callable[[Session, Scene], None], list[tuple[str, str]]]] = {
    "hours": (
        "/api/v1/hours",
        "self",
        own_hours,
        [
            # The engineer's own list, asked for by name: another query.
            ("/api/v1/hours?engineer={target}", "admin"),
            # The admin's own list.
            ("/api/v1/hours", "admin"),
        ],
    ),
    "certifications": (
        "/api/v1/certifications",
        "admin",
        certification_rows,
        [
            ("/api/v1/certifications?status=valid", "admin"),
            ("/api/v1/certifications?expiring_within=30", "admin"),
            ("/api/v1/certifications?engineer={target}", "admin"),
            ("/api/v1/certifications", "manager"),
        ],
    ),
    "teams": ("/api/v1/teams", "admin", team_rows, [("/api/v1/teams", "manager")]),
    "organisation": (
        "/api/v1/organisation?sort=ready",
        "admin",
        organisation_rows,
        [
            ("/api/v1/organisation?sort=ready&order=desc", "admin"),
            ("/api/v1/organisation?sort=seats", "admin"),
            ("/api/v1/organisation?sort=ready&band=small", "admin"),
            ("/api/v1/organisation?sort=ready&manager=a", "admin"),
            ("/api/v1/organisation?sort=ready&name=o", "admin"),
        ],
    ),
    "organisation history": (
        "/api/v1/organisation/history?months=1",
        "admin",
        organisation_days,
        [("/api/v1/organisation/history?months=2", "admin")],
    ),
    "team history": (
        "/api/v1/teams/{zulu}/history?months=1",
        "admin",
        organisation_days,
        [
            ("/api/v1/teams/{kilo}/history?months=1", "admin"),
            ("/api/v1/teams/{zulu}/history?months=2", "admin"),
        ],
    ),
    "webhooks": ("/api/v1/webhooks", "admin", webhook_rows, []),
    "bonuses": (
        "/api/v1/bonuses?quarter=2026-Q4",
        "admin",
        bonus_rows,
        [
            ("/api/v1/bonuses?quarter=2026-Q3", "admin"),
            ("/api/v1/bonuses?quarter=2026-Q4", "manager"),
        ],
    ),
}
CHANGES = [(name, *change) for name, (*_, changes) in BOUND.items() for change in changes]


def changed(app: Flask, url: str, other: str) -> set[str]:
    """Return the names of the path and query parameters in which `other` differs from `url`."""
    adapter = app.url_map.bind("localhost")
    (path, _, query), (other_path, _, other_query) = url.partition("?"), other.partition("?")
    endpoint, arguments = adapter.match(path)
    other_endpoint, other_arguments = adapter.match(other_path)
    assert endpoint == other_endpoint, "another list altogether is tested apart"
    params, other_params = parse_qs(query), parse_qs(other_query)
    return {
        name
        for name in {*arguments, *params, *other_params}
        if (arguments | params).get(name) != (other_arguments | other_params).get(name)
    }


@pytest.mark.parametrize(("name", "url", "role"), CHANGES)
def test_a_cursor_sent_with_another_path_filter_order_or_caller_is_refused(
    api: Api, db: Session, scene: Scene, name: str, url: str, role: str
) -> None:
    first, owner, rows, _ = BOUND[name]
    rows(db, scene)
    named = ids(db, scene)
    first = first.format(**named)
    cursor = api.get(with_query(first, "limit=1"), scene.tokens[owner]).get_json()["next"]
    assert cursor is not None

    response = api.get(
        with_query(url.format(**named), f"limit=1&cursor={cursor}"), scene.tokens[role]
    )

    assert response.status_code == 400
    assert response.get_json() == {"errors": {"cursor": CURSOR_RULE}}
    # Its own list, asked for again, still takes it.
    again = api.get(with_query(first, f"limit=1&cursor={cursor}"), scene.tokens[owner])
    assert again.status_code == 200


def test_every_paged_list_is_checked_against_a_change_of_each_of_its_parameters(
    app: Flask,
) -> None:
    """A list added later, or a filter added to one, needs its case above: none is forgotten."""
    fake = {"target": 3, "zulu": 1, "kilo": 2}
    adapter = app.url_map.bind("localhost")
    paged = {
        route.endpoint: route
        for route in api_routes(app)
        if any(
            model is not None and issubclass(model, Page)
            for model in route.operation.answers.values()
        )
    }
    bound = {
        adapter.match(url.format(**fake).partition("?")[0])[0]: name
        for name, (url, *_) in BOUND.items()
    }
    assert set(bound) == set(paged)
    for endpoint, route in paged.items():
        url, _, _, changes = BOUND[bound[endpoint]]
        parameters = {name for name, _ in route.arguments}
        parameters |= set(route.operation.query_model.model_fields) - PAGE_FIELDS
        covered = set().union(
            *(changed(app, url.format(**fake), other.format(**fake)) for other, _ in changes)
        )
        assert parameters <= covered, endpoint


@pytest.mark.parametrize("name", BOUND)
def test_the_next_page_may_ask_for_another_limit(
    api: Api, db: Session, scene: Scene, name: str
) -> None:
    url, owner, rows, _ = BOUND[name]
    rows(db, scene)
    url, token = url.format(**ids(db, scene)), scene.tokens[owner]
    whole = api.get(with_query(url, f"limit={MAX_LIMIT}"), token).get_json()
    assert whole["next"] is None and len(whole["items"]) >= 4
    items, cursor, limits = [], None, [2, 1, 3]
    for n in range(10_000):
        query = f"limit={limits[n % 3]}" + (f"&cursor={cursor}" if cursor else "")
        body = api.get(with_query(url, query), token).get_json()
        assert len(body["items"]) <= limits[n % 3]
        items += body["items"]
        cursor = body["next"]
        if cursor is None:
            break
    else:
        raise AssertionError("the pages never ended")
    assert items == whole["items"]


@pytest.mark.parametrize(
    ("url", "again"),
    [
        # Defaults said or not, parameters in another order, an empty one, another case.
        ("/api/v1/organisation?sort=ready", "/api/v1/organisation?band=&order=asc&sort=ready"),
        ("/api/v1/certifications?status=valid", "/api/v1/certifications?status=VALID"),
        ("/api/v1/organisation/history", "/api/v1/organisation/history?months=12"),
    ],
)
def test_the_same_filters_said_another_way_take_the_cursor(
    api: Api, db: Session, scene: Scene, url: str, again: str
) -> None:
    organisation_days(db, scene)
    certification_rows(db, scene)
    token = scene.tokens["admin"]
    first = api.get(with_query(url, "limit=2"), token).get_json()
    assert first["next"] is not None
    response = api.get(with_query(again, f"limit=2&cursor={first['next']}"), token)
    assert response.status_code == 200, response.get_json()
    following = api.get(with_query(url, f"limit=2&cursor={first['next']}"), token).get_json()
    assert response.get_json() == following


@pytest.mark.parametrize(
    ("query", "field", "spanish"),
    [
        ("limit=0", "limit", "debe ser un número entero de 1 a 500"),
        (
            "cursor=garbage",
            "cursor",
            "debe ser el `next` de una página de esta lista, sin cambios, enviado con los mismos"
            " filtros y el mismo orden",
        ),
    ],
)
def test_the_page_refusals_speak_the_requests_language(
    api: Api, scene: Scene, query: str, field: str, spanish: str
) -> None:
    response = api.get(
        f"/api/v1/hours?{query}", scene.tokens["self"], headers={"Accept-Language": "es"}
    )
    assert response.status_code == 400
    assert response.get_json() == {"errors": {field: spanish}}


@pytest.mark.parametrize(
    "key",
    [
        [],
        ["2026-01-01"],
        ["2026-01-01", 1, 2],
        ["2026-1-1", 1],
        ["2026-02-30", 1],
        [20260101, 1],
        ["2026-01-01", "1"],
        ["2026-01-01", True],
        ["2026-01-01", 0],
        ["2026-01-01", 2**31],
        {"date": "2026-01-01", "id": 1},
        None,
    ],
)
def test_a_signed_cursor_of_the_wrong_shape_is_refused(app: Flask, key: Any) -> None:
    # Only the tracker signs cursors; this checks what it reads back all the same.
    keys = [
        Key(HourLog.logged_on, lambda e: e.logged_on, dt.date, descending=True),
        Key(HourLog.id, lambda e: e.id, int, descending=True),
    ]
    hours = "the hour log"
    with app.test_request_context("/api/v1/hours"):
        with pytest.raises(ApiError) as refused:
            read_cursor(str(serializer(hours).dumps(key)), keys, hours)
        assert (refused.value.status, refused.value.errors) == (400, {"cursor": CURSOR_RULE})
        good = str(serializer(hours).dumps(["2026-01-01", 5]))
        assert read_cursor(good, keys, hours) == [D(2026, 1, 1), 5]


def test_the_longest_team_name_still_fits_a_cursor(api: Api, db: Session, scene: Scene) -> None:
    # 120 characters beyond Unicode's first plane: the longest key a cursor carries.
    factories.team(db, name="\U0001f600" * 120)
    factories.team(db, name="\U0001f601" * 120)
    token = scene.tokens["admin"]
    teams = {t["name"] for t in walk(api, "/api/v1/teams", token, 1)}
    assert {"\U0001f600" * 120, "\U0001f601" * 120} <= teams
    first = api.get("/api/v1/teams?limit=1", token).get_json()["next"]
    assert 0 < len(first) <= MAX_CURSOR_LENGTH


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
