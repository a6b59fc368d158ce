"""The secret key's fallbacks: read from the environment, and the session cookie opens with them."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import sign_in
from tracker.config import Config, SecretKeys, secret_keys


def test_the_fallbacks_are_read_comma_separated_and_blanks_left_out(monkeypatch) -> None:
    monkeypatch.setenv("TRACKER_SECRET_KEY", "new")
    monkeypatch.setenv("TRACKER_SECRET_KEY_FALLBACKS", " older , ,oldest,")
    config = Config().as_dict()
    assert config["SECRET_KEY_FALLBACKS"] == ["older", "oldest"]
    assert secret_keys(config) == SecretKeys("new", ("older", "oldest"))


def test_no_fallbacks_unless_set(monkeypatch) -> None:
    monkeypatch.delenv("TRACKER_SECRET_KEY_FALLBACKS", raising=False)
    config = Config(SECRET_KEY="new").as_dict()
    assert config["SECRET_KEY_FALLBACKS"] == []
    assert secret_keys(config) == SecretKeys("new")
    assert secret_keys(Config(SECRET_KEY="new", SECRET_KEY_FALLBACKS="a,b").as_dict()) == (
        SecretKeys("new", ("a", "b"))
    )


def test_the_current_key_is_tried_first_and_is_the_one_itsdangerous_signs_with() -> None:
    keys = SecretKeys("new", ("older", "new", "oldest"))
    assert keys.newest_first() == ("new", "older", "new", "oldest")
    # itsdangerous signs with the last of its list and tries them from the last.
    assert keys.for_itsdangerous() == ["oldest", "new", "older", "new"]
    assert secret_keys({"SECRET_KEY": "new", "SECRET_KEY_FALLBACKS": ["older", "new"]}) == (
        SecretKeys("new", ("older",))
    )


@pytest.fixture
def signed_in(client: FlaskClient, db: Session) -> FlaskClient:
    """A person signed in while the suite's secret key signed the session cookie."""
    sign_in(client, factories.engineer(db))
    assert client.get("/profile").status_code == 200
    return client


def test_a_session_signed_with_the_replaced_key_stays_signed_in(signed_in, rotated) -> None:
    assert signed_in.get("/profile").status_code == 200


def test_without_the_fallback_the_session_of_the_old_key_is_signed_out(signed_in, replaced):
    response = signed_in.get("/profile")
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")
