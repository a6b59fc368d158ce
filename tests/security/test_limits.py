"""Oversized bodies are refused with 413 and store nothing; NUL and broken text are refused.

tests/api/test_bad_input.py holds the API's 413 for a long and a chunked JSON
body; here the form routes too (a form post, a file upload, the sign-in), and
text no database column can hold.
"""

from __future__ import annotations

import io
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from tests import factories
from tests.factories import TODAY
from tests.helpers import sign_in
from tests.security.conftest import World, snapshot
from tests.security.matrix import ROUTES


@pytest.fixture
def engineer_client(client: FlaskClient, world: World) -> FlaskClient:
    sign_in(client, world.engineer.email)
    return client


def _limit(app: Flask) -> int:
    return int(app.config["MAX_CONTENT_LENGTH"])


def test_a_form_post_over_the_limit_is_413(app, engineer_client, db: Session, world: World):
    before = snapshot(db, ignore={"api_tokens"})
    data = {
        "course": str(factories.course(db, "FDL").id),
        "logged_on": TODAY.isoformat(),
        "hours": "1",
        "note": "x" * (_limit(app) + 1),
    }
    response = engineer_client.post("/hours", data=data)
    assert response.status_code == 413
    assert "413" in response.get_data(as_text=True)
    assert response.headers["X-Frame-Options"] == "DENY"
    assert snapshot(db, ignore={"api_tokens"}) == before


def test_a_file_upload_over_the_limit_is_413(app, client: FlaskClient, db: Session, world: World):
    sign_in(client, world.admin.email)
    before = snapshot(db, ignore={"api_tokens"})
    content = b"email,course,date,hours,note\n" + b"a@example.com,FDL,2026-11-01,1,x\n" * (
        _limit(app) // 30
    )
    # Encoded here: the test client would spool so large a body to a file it leaves open.
    boundary, body = encode_multipart(
        {"kind": "hours", "file": FileStorage(io.BytesIO(content), "big.csv")}
    )
    response = client.post(
        "/admin/imports", data=body, content_type=f"multipart/form-data; boundary={boundary}"
    )
    assert response.status_code == 413
    assert snapshot(db, ignore={"api_tokens"}) == before


def test_a_sign_in_over_the_limit_is_413(app, client: FlaskClient, world: World):
    response = client.post(
        "/login", data={"email": world.engineer.email, "password": "p" * (_limit(app) + 1)}
    )
    assert response.status_code == 413
    assert client.get("/dashboard").status_code == 302


def test_an_api_body_over_the_limit_is_413(app, client: FlaskClient, db: Session, world: World):
    before = snapshot(db, ignore={"api_tokens"})
    response = client.post(
        "/api/v1/hours",
        headers={"Authorization": f"Bearer {world.tokens['engineer']}"},
        json={"course": "FDL", "date": "2026-11-20", "hours": 1, "note": "x" * _limit(app)},
    )
    assert response.status_code == 413
    assert set(response.get_json()) == {"errors"}
    assert snapshot(db, ignore={"api_tokens"}) == before


@pytest.mark.parametrize("field", ["note", "course"])
def test_a_nul_character_in_a_form_is_refused(engineer_client, db: Session, world: World, field):
    before = snapshot(db, ignore={"api_tokens"})
    data = {
        "course": str(factories.course(db, "FDL").id),
        "logged_on": TODAY.isoformat(),
        "hours": "1",
        "note": "before",
    }
    data[field] = data[field] + "\x00after"
    response = engineer_client.post("/hours", data=data)
    assert response.status_code == 400
    assert "NUL" in response.get_data(as_text=True)
    assert snapshot(db, ignore={"api_tokens"}) == before


def test_a_nul_character_in_a_query_is_refused(client: FlaskClient, world: World):
    sign_in(client, world.admin.email)
    response = client.get("/admin/outbox", query_string={"q": "a\x00b"})
    assert response.status_code == 400


@pytest.mark.parametrize(
    "raw",
    [
        b'{"course": "FDL", "date": "2026-11-20", "hours": 1, "note": "a\\u0000b"}',
        b'{"course": "FDL", "date": "2026-11-20", "hours": 1, "note": "\\ud800"}',
        b'{"course": "\\udfff", "date": "2026-11-20", "hours": 1}',
        b'{"course": "FDL", "date": "2026-11-20\\u0000", "hours": 1}',
    ],
    ids=["NUL in a note", "lone surrogate in a note", "lone surrogate in a code", "NUL in a date"],
)
def test_text_no_database_can_hold_is_refused_by_the_api(
    client: FlaskClient, db: Session, world: World, raw: bytes
):
    before = snapshot(db, ignore={"api_tokens"})
    response = client.post(
        "/api/v1/hours",
        data=raw,
        headers={
            "Authorization": f"Bearer {world.tokens['engineer']}",
            "Content-Type": "application/json",
        },
    )
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["errors"]
    assert snapshot(db, ignore={"api_tokens"}) == before


def test_a_csv_file_with_a_nul_character_is_refused(client: FlaskClient, db: Session, world: World):
    sign_in(client, world.admin.email)
    before = snapshot(db, ignore={"api_tokens"})
    content = (
        b"email,course,date,hours,note\n"
        + world.engineer.email.encode()
        + b",FDL,2026-11-01,1,a\x00b\n"
    )
    response = client.post(
        "/admin/imports",
        data={"kind": "hours", "file": (io.BytesIO(content), "nul.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 400
    assert "line 2 holds a NUL character" in response.get_data(as_text=True)
    assert snapshot(db, ignore={"api_tokens"}) == before


def test_ids_beyond_an_integer_column_name_nothing(client: FlaskClient, world: World):
    """Every route with an id in its URL: a number no INTEGER column holds matches no route."""
    sign_in(client, world.admin.email)
    bearer = {"Authorization": f"Bearer {world.tokens['admin']}"}
    checked = 0
    for _, rule, method in ROUTES:
        if "<int:" not in rule:
            continue
        for huge in (2**31, 2**63, 10**30):
            url = re.sub(r"<int:[^>]+>", str(huge), re.sub(r"<(?!int:)[^>]+>", "x", rule))
            response = client.open(url, method=method, headers=bearer, json={})
            # No route matches, whichever the method: 404, never 405.
            assert response.status_code == 404, f"{method} {url}: {response.status_code}"
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("path", ["/", "/login", "/admin/people", "/no-such-page", "/api/v1/me"])
@pytest.mark.parametrize("signed_in", [False, True])
def test_a_host_header_no_url_can_be_built_for_is_a_plain_400(
    client: FlaskClient, world: World, path: str, signed_in: bool
):
    # A label over 63 characters cannot be encoded as IDNA: no URL of the page can be built.
    if signed_in:
        sign_in(client, world.engineer.email)
    response = client.get(path, headers={"Host": "x" * 64 + ".example"})
    assert response.status_code == 400, path
    expected = "application/json" if path.startswith("/api/") else "text/plain"
    assert response.mimetype == expected
    assert response.headers["X-Content-Type-Options"] == "nosniff"
