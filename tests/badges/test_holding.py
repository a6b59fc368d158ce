"""What a badge import holds, and when: nothing while the issuer answers, the person after."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import sessionmaker
from werkzeug.test import TestResponse

from tests import factories
from tests.badges.conftest import Issuer
from tests.helpers import sign_in
from tests.locks import committing_app, racing_app, while_another_writes, writing_meanwhile
from tracker.badges.jobs import recheck_badges
from tracker.badges.services.imports import ADDRESS_CHANGED
from tracker.db import session_scope
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token
from tracker.progress.models import Certification


def test_a_badge_imported_for_someone_checks_the_email_committed_meanwhile(
    racing_url: str, issuer: Issuer
) -> None:
    app = racing_app(racing_url, BADGE_ALLOW_HOSTS="127.0.0.1")
    engine = app.extensions["tracker.engine"]
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            who = factories.engineer(session, email="ada@example.com")
            admin = factories.engineer(session, access_role="admin")
        issuer.assertion("/a/1", who.email, issued="2026-03-15")
        client = app.test_client()
        sign_in(client, admin)
        # Another writer's change of the person's address, uncommitted when the page reads
        # them: the import waits for it, then finds the badge is not the person's.
        response = while_another_writes(
            engine,
            update(Engineer).where(Engineer.id == who.id).values(email="ada@example.org"),
            lambda: client.post(
                "/credentials/badges",
                data={"badge_engineer": who.id, "badge_url": issuer.server.url("/a/1")},
            ),
        )
        assert response.status_code == 400
        assert "issued to someone else&#39;s e-mail address" in response.get_data(as_text=True)
        assert _certifications(engine, who.id) == 0
    finally:
        engine.dispose()


# --- while the issuer answers -------------------------------------------------------

Send = Callable[[FlaskClient, Engineer, Engineer, str], TestResponse]


def _by_page(client: FlaskClient, admin: Engineer, who: Engineer, url: str) -> TestResponse:
    sign_in(client, admin)
    return client.post("/credentials/badges", data={"badge_engineer": who.id, "badge_url": url})


def _by_api(client: FlaskClient, admin: Engineer, who: Engineer, url: str) -> TestResponse:
    with session_scope(sessionmaker(bind=client.application.extensions["tracker.engine"])) as s:
        secret = create_token(s, s.get(Engineer, admin.id), "badges")[1]
    return client.post(
        "/api/v1/credentials",
        json={"engineer": who.id, "badge_url": url},
        headers={"Authorization": f"Bearer {secret}"},
    )


def _by_file(client: FlaskClient, admin: Engineer, who: Engineer, url: str) -> TestResponse:
    sign_in(client, admin)
    content = f"email,badge_url\n{who.email},{url}\n"
    return client.post(
        "/admin/imports",
        data={"kind": "badges", "file": (io.BytesIO(content.encode()), "badges.csv")},
        content_type="multipart/form-data",
    )


CHANNELS = {"page": _by_page, "api": _by_api, "file": _by_file}


@pytest.fixture
def app(racing_url: str) -> Iterator[Flask]:
    """An app whose requests commit, on SQLite or PostgreSQL, that fetches from the test issuer."""
    app = committing_app(racing_url, BADGE_ALLOW_HOSTS="127.0.0.1")
    yield app
    app.extensions["tracker.engine"].dispose()


def _people(app: Flask) -> tuple[Engineer, Engineer]:
    factory = sessionmaker(bind=app.extensions["tracker.engine"], expire_on_commit=False)
    with session_scope(factory) as session:
        who = factories.engineer(session, email="ada@example.com")
        admin = factories.engineer(session, access_role="admin")
    return who, admin


def _import_while(
    app: Flask, other_writer: Engine, issuer: Issuer, channel: str, **change: str
) -> tuple[TestResponse, int]:
    """Import a badge by `channel` while another writer changes the person; return the answer."""
    who, admin = _people(app)
    issuer.assertion("/a/1", who.email, issued="2026-03-15")
    done: list[str] = []
    meanwhile = update(Engineer).where(Engineer.id == who.id).values(**change)
    issuer.server.answers["/a/1"].before = writing_meanwhile(other_writer, meanwhile, done)
    response = CHANNELS[channel](app.test_client(), admin, who, issuer.server.url("/a/1"))
    assert done == ["committed"]
    return response, _certifications(other_writer, who.id)


@pytest.mark.parametrize("channel", CHANNELS)
def test_another_writer_changes_the_person_while_the_issuer_answers(
    app: Flask, other_writer: Engine, issuer: Issuer, channel: str
) -> None:
    # Held meanwhile (a row lock, SQLite's write lock), the person would keep the
    # other writer waiting for the network, and it would give up.
    response, recorded = _import_while(app, other_writer, issuer, channel, name="Ada Lovelace")
    assert response.status_code in (201, 302), response.get_data(as_text=True)
    assert recorded == 1


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_badge_is_refused_when_the_address_changed_while_the_issuer_answered(
    app: Flask, other_writer: Engine, issuer: Issuer, channel: str
) -> None:
    response, recorded = _import_while(app, other_writer, issuer, channel, email="ada@example.org")
    assert response.status_code == 400
    said = response.get_data(as_text=True).replace("&#39;", "'")
    # The file's row names the old address, which no one has any more.
    expected = "no person with email" if channel == "file" else ADDRESS_CHANGED
    assert expected in said
    assert recorded == 0


def _certifications(engine: Engine, engineer_id: int) -> int:
    with engine.connect() as conn:
        counted = select(func.count()).where(Certification.engineer_id == engineer_id)
        return conn.execute(counted).scalar_one()


def test_the_command_holds_nothing_while_the_issuer_answers(
    app: Flask, other_writer: Engine, issuer: Issuer
) -> None:
    who, _ = _people(app)
    issuer.assertion("/a/1", who.email, issued="2026-03-15")
    done: list[str] = []
    rename = update(Engineer).where(Engineer.id == who.id).values(name="Ada Lovelace")
    issuer.server.answers["/a/1"].before = writing_meanwhile(other_writer, rename, done)
    result = app.test_cli_runner().invoke(
        args=["badge", "import", who.email, issuer.server.url("/a/1")]
    )
    assert done == ["committed"]
    assert result.exit_code == 0, result.output
    assert _certifications(other_writer, who.id) == 1


def test_the_daily_recheck_writes_after_the_issuer_answered_meanwhile(
    app: Flask, other_writer: Engine, issuer: Issuer
) -> None:
    if other_writer.dialect.name != "sqlite":
        pytest.skip("SQLite only: its write lock is taken at BEGIN; rows are held once written")
    who, admin = _people(app)
    issuer.assertion("/a/1", who.email, issued="2026-03-15")
    url = issuer.server.url("/a/1")
    assert _by_page(app.test_client(), admin, who, url).status_code == 302
    done: list[str] = []
    rename = update(Engineer).where(Engineer.id == who.id).values(name="Ada Lovelace")
    issuer.server.answers["/a/1"].before = writing_meanwhile(other_writer, rename, done)
    assert recheck_badges(app, factories.TODAY) == {"verified": 1, "revoked": 0, "problem": 0}
    assert done == ["committed"]
