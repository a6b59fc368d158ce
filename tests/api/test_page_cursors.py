"""A cursor is its list's: another path, filter, order or caller refuses it; a new limit not."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from urllib.parse import parse_qs

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conftest import Scene
from tests.api.helpers import (
    add_hours,
    bonus_rows,
    certification_rows,
    organisation_days,
    organisation_rows,
    team_rows,
    walk,
    webhook_rows,
)
from tests.helpers import Api
from tracker.api.openapi import api_routes
from tracker.api.pages import PAGE_FIELDS
from tracker.people.models import Team
from tracker.schemas import CURSOR_RULE, MAX_CURSOR_LENGTH, MAX_LIMIT, Page

D = dt.date


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


def test_the_longest_team_name_still_fits_a_cursor(api: Api, db: Session, scene: Scene) -> None:
    # 120 characters beyond Unicode's first plane: the longest key a cursor carries.
    factories.team(db, name="\U0001f600" * 120)
    factories.team(db, name="\U0001f601" * 120)
    token = scene.tokens["admin"]
    teams = {t["name"] for t in walk(api, "/api/v1/teams", token, 1)}
    assert {"\U0001f600" * 120, "\U0001f601" * 120} <= teams
    first = api.get("/api/v1/teams?limit=1", token).get_json()["next"]
    assert 0 < len(first) <= MAX_CURSOR_LENGTH
