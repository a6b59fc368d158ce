"""What single sign-on holds while the provider answers: nothing another writer waits for."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import sessionmaker

from tests import factories
from tests.identity.conftest import (
    BASE_URL,
    PROVIDER_NAME,
    ROLE_MAP,
    SingleSignOn,
)
from tests.identity.oidc import CLIENT_ID, CLIENT_SECRET, Provider
from tests.locks import committing_app, writing_meanwhile
from tracker.db import session_scope
from tracker.identity.models import Identity, SignInRequest
from tracker.identity.services.provider import OpenIdProvider


@pytest.fixture
def committing(racing_url: str, provider: Provider) -> Iterator[Flask]:
    """An app with single sign-on whose requests commit, on SQLite or PostgreSQL."""
    app = committing_app(
        racing_url,
        BASE_URL=BASE_URL,
        OIDC_ISSUER=provider.issuer,
        OIDC_CLIENT_ID=CLIENT_ID,
        OIDC_CLIENT_SECRET=CLIENT_SECRET,
        OIDC_PROVIDER_NAME=PROVIDER_NAME,
        OIDC_ROLE_CLAIM="groups",
        OIDC_ROLE_MAP=ROLE_MAP,
    )
    yield app
    app.extensions["tracker.engine"].dispose()


def _asked_meanwhile(monkeypatch: pytest.MonkeyPatch, name: str, first: Callable[[], None]) -> None:
    """Run `first` each time the app asks the provider (OpenIdProvider.`name`)."""
    asked = getattr(OpenIdProvider, name)

    def asking(self: OpenIdProvider, *args: Any, **kwargs: Any) -> Any:
        first()
        return asked(self, *args, **kwargs)

    monkeypatch.setattr(OpenIdProvider, name, asking)


@pytest.mark.parametrize("asking", ["_get_json", "sign_in"])
def test_another_writer_is_not_kept_waiting_while_the_provider_answers(
    committing: Flask,
    other_writer: Engine,
    monkeypatch: pytest.MonkeyPatch,
    asking: str,
) -> None:
    # Held meanwhile (SQLite's write lock, the sign-in's row on PostgreSQL), the
    # other writer would wait for the provider, and give up.
    factory = sessionmaker(bind=committing.extensions["tracker.engine"], expire_on_commit=False)
    with session_scope(factory) as session:
        alice = factories.engineer(session, email="alice@example.com", access_role="admin")
    done: list[str] = []
    touch = update(SignInRequest).values(next_path=SignInRequest.next_path)
    _asked_meanwhile(monkeypatch, asking, writing_meanwhile(other_writer, touch, done))
    sso = SingleSignOn(committing, committing.test_client(), monkeypatch)
    try:
        response = sso.sign_in("alice")
    finally:
        sso.browser.close()
    assert "committed" in done
    assert response.status_code == 302, response.get_data(as_text=True)
    assert response.headers["Location"] == "/dashboard"
    with other_writer.connect() as conn:
        linked = select(func.count()).where(Identity.engineer_id == alice.id)
        assert conn.execute(linked).scalar_one() == 1
