"""A page's refusals: a limit outside 1 to 500; a cursor malformed, of another list or key."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from tests.api.conftest import Scene
from tests.api.helpers import LISTS, add_hours
from tests.helpers import Api
from tracker.api.errors import ApiError
from tracker.api.pages import Key, read_cursor, serializer
from tracker.progress.models import HourLog
from tracker.schemas import CURSOR_RULE, LIMIT_RULE, MAX_CURSOR_LENGTH

D = dt.date


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
