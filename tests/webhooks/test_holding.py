"""Registering a webhook holds nothing while its URL's host is looked up."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import sessionmaker
from werkzeug.test import TestResponse

from tests import factories
from tests.helpers import sign_in
from tests.locks import committing_app, writing_meanwhile
from tracker.db import session_scope
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token
from tracker.webhooks.forms import event_field
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.services import endpoints

URL = "http://hooks.example.test/in"


def _by_page(client: FlaskClient, admin: Engineer) -> TestResponse:
    sign_in(client, admin)
    form = {"url": URL, event_field("hours.logged"): "y", "format": "generic"}
    return client.post("/admin/webhooks", data=form)


def _by_api(client: FlaskClient, admin: Engineer) -> TestResponse:
    factory = sessionmaker(bind=client.application.extensions["tracker.engine"])
    with session_scope(factory) as session:
        secret = create_token(session, session.get(Engineer, admin.id), "hooks")[1]
    return client.post(
        "/api/v1/webhooks",
        json={"url": URL, "events": ["hours.logged"], "format": "generic"},
        headers={"Authorization": f"Bearer {secret}"},
    )


CHANNELS: dict[str, Callable[[FlaskClient, Engineer], TestResponse]] = {
    "page": _by_page,
    "api": _by_api,
}


@pytest.fixture
def app(racing_url: str) -> Iterator[Flask]:
    """An app whose requests commit, which lets the test's made-up host through."""
    app = committing_app(racing_url, WEBHOOK_ALLOW_HOSTS=frozenset({"hooks.example.test"}))
    yield app
    app.extensions["tracker.engine"].dispose()


@pytest.mark.parametrize("channel", CHANNELS)
def test_another_writer_is_not_kept_waiting_while_the_host_is_looked_up(
    app: Flask,
    other_writer: Engine,
    monkeypatch: pytest.MonkeyPatch,
    channel: str,
) -> None:
    # Held meanwhile (SQLite's write lock, taken with the admin's sign-in), the other
    # writer would wait on the resolver, and give up.
    if other_writer.dialect.name != "sqlite":
        pytest.skip("SQLite only: its write lock is taken at BEGIN; rows are held once written")
    factory = sessionmaker(bind=app.extensions["tracker.engine"], expire_on_commit=False)
    with session_scope(factory) as session:
        admin = factories.engineer(session, access_role="admin")
    done: list[str] = []
    rename = update(Engineer).where(Engineer.id == admin.id).values(name="Ada Admin")
    meanwhile = writing_meanwhile(other_writer, rename, done)
    looked_up = endpoints.check_host

    def looking_up(*args: Any, **kwargs: Any) -> Any:
        meanwhile()
        return looked_up(*args, **kwargs)

    monkeypatch.setattr(endpoints, "check_host", looking_up)
    response = CHANNELS[channel](app.test_client(), admin)
    assert response.status_code in (201, 302), response.get_data(as_text=True)
    assert done == ["committed"]
    with other_writer.connect() as conn:
        assert conn.execute(select(func.count()).select_from(WebhookEndpoint)).scalar_one() == 1
