"""Helpers every test package shares: counting rows, signing in, calling the API."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape
from typing import Any, TypeVar

from flask.testing import FlaskClient
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session
from werkzeug.test import TestResponse

from tests.factories import PASSWORD
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token

T = TypeVar("T")


def count(db: Session, model: type) -> int:
    """Return how many rows the table of `model` holds."""
    return db.scalar(select(func.count()).select_from(model))


def fresh(db: Session, obj: T) -> T:
    """Return `obj` as the database holds it now (another session may have changed it)."""
    db.expire(obj)
    return obj


def count_statements(db: Session, call: Callable[[], T]) -> tuple[int, T]:
    """Return how many SQL statements `call()` issues on the test's connection, and its result."""
    statements: list[str] = []

    def log(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    bind = db.get_bind()
    event.listen(bind, "before_cursor_execute", log)
    try:
        result = call()
    finally:
        event.remove(bind, "before_cursor_execute", log)
    return len(statements), result


def post_login(
    client: FlaskClient, email: str, password: str = PASSWORD, **kwargs: Any
) -> TestResponse:
    """Post the sign-in form and return the answer."""
    return client.post("/login", data={"email": email, "password": password}, **kwargs)


def sign_in(client: FlaskClient, who: Engineer | str, password: str = PASSWORD) -> TestResponse:
    """Sign in through the real form and check that it let the person in."""
    email = who if isinstance(who, str) else who.email
    response = post_login(client, email, password)
    assert response.status_code == 302, response.get_data(as_text=True)
    return response


def csrf_token(html: str) -> str:
    """Return the CSRF token a page's form carries."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html)
    assert match, "no csrf_token in the page"
    return unescape(match.group(1))


def csp_directives(header: str) -> dict[str, list[str]]:
    """Split a Content-Security-Policy header into its directives and their sources."""
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0].lower()] = words[1:]
    return directives


def routes() -> list[tuple[str, str, str]]:
    """Return every (endpoint, rule, method) the application answers, static files aside."""
    from tracker import create_app

    app = create_app({"DATABASE_URL": "sqlite://", "SECRET_KEY": "x"})
    found = sorted(
        (rule.endpoint, rule.rule, method)
        for rule in app.url_map.iter_rules()
        for method in rule.methods - {"HEAD", "OPTIONS"}
        if rule.endpoint != "static"
    )
    app.extensions["tracker.engine"].dispose()
    return found


def token_for(db: Session, who: Engineer) -> str:
    """Return a fresh API token of `who`."""
    return create_token(db, who, "test")[1]


class Api:
    """Call the API with a bearer token."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def call(
        self,
        method: str,
        url: str,
        token: str | None = None,
        json: Any = None,
        **kwargs: Any,
    ) -> TestResponse:
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if json is not None:
            kwargs["json"] = json
        return self.client.open(url, method=method, headers=headers, **kwargs)

    def get(self, url: str, token: str | None = None, **kwargs: Any) -> TestResponse:
        return self.call("GET", url, token, **kwargs)

    def post(self, url: str, token: str | None, json: Any = None, **kw: Any) -> TestResponse:
        return self.call("POST", url, token, json, **kw)

    def put(self, url: str, token: str | None, json: Any = None, **kw: Any) -> TestResponse:
        return self.call("PUT", url, token, json, **kw)

    def delete(self, url: str, token: str | None = None, **kw: Any) -> TestResponse:
        return self.call("DELETE", url, token, **kw)
