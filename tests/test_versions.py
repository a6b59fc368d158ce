"""A record's version: a hash of what it says, named by If-Match and If-None-Match headers."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from flask import Flask
from sqlalchemy import Engine, select, update
from sqlalchemy.orm import sessionmaker

from tests import factories
from tests.helpers import drawn_form, sign_in
from tests.locks import while_another_writes
from tracker import create_app
from tracker.db import session_scope
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token
from tracker.progress.models import HourLog
from tracker.progress.services.hours import log_hours
from tracker.scim.services.tokens import create_scim_token
from tracker.versions import names, version


def test_a_version_is_a_weak_etag_of_what_is_said_whatever_the_keys_order() -> None:
    said = {"name": "Ada", "hired_on": dt.date(2024, 1, 2)}
    tag = version(said)
    assert tag.startswith('W/"') and len(tag) == len('W/""') + 20
    assert version({"hired_on": "2024-01-02", "name": "Ada"}) == tag
    assert version({**said, "name": "Ada L."}) != tag


def test_a_header_names_a_version_in_its_list_weakly_or_with_a_star() -> None:
    tag = version({"a": 1})
    assert names(f'"x", {tag}', tag)
    assert names(tag.removeprefix("W/"), tag)
    assert names("*", tag)
    assert not names('W/"other"', tag)
    assert not names(None, tag)
    assert not names("", tag)


# --- a version checked is the version replaced ---------------------------------------
#
# A write that names the version it read (If-Match, an edit page's) holds the
# record from its read to its commit. Another writer's change, uncommitted when
# the request reads, makes it wait; once that change commits, the request sees
# it and refuses, instead of checking the old version and then writing over the
# new one. PostgreSQL only: SQLite's writers take turns for the whole transaction.


def _racing_app(url: str) -> tuple[Flask, Engineer, str, HourLog]:
    """An app where requests commit, with an engineer, their token and an hour entry."""
    if not url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL only (SQLite's writers take turns)")
    app = create_app(
        {
            "DATABASE_URL": url,
            "SECRET_KEY": "race",
            "TESTING": True,
            "TODAY": factories.TODAY,
            "WTF_CSRF_ENABLED": False,
        }
    )
    factory = sessionmaker(bind=app.extensions["tracker.engine"], expire_on_commit=False)
    with session_scope(factory) as session:
        who = factories.engineer(session)
        secret = create_token(session, who, "race")[1]
        entry = log_hours(
            session,
            who,
            factories.course(session, "FDL"),
            factories.TODAY.replace(day=2),
            Decimal("1.5"),
            factories.TODAY,
            note="reading",
            actor=who,
        )
        entry_row = session.get(HourLog, entry.id)
        assert entry_row is not None
    return app, who, secret, entry_row


def _note(engine: Engine, entry: HourLog) -> str:
    with engine.connect() as conn:
        return conn.execute(select(HourLog.note).where(HourLog.id == entry.id)).scalar_one()


def test_an_api_write_at_a_version_waits_for_a_change_and_then_refuses(racing_url: str):
    app, _, secret, entry = _racing_app(racing_url)
    engine = app.extensions["tracker.engine"]
    try:
        client, url = app.test_client(), f"/api/v1/hours/{entry.id}"
        bearer = {"Authorization": f"Bearer {secret}"}
        read = client.get(url, headers=bearer)
        change = {"course": "FDL", "date": "2026-11-02", "hours": 2, "note": "mine"}
        status = while_another_writes(
            engine,
            update(HourLog).where(HourLog.id == entry.id).values(note="theirs"),
            lambda: (
                client.put(
                    url, json=change, headers={**bearer, "If-Match": read.headers["ETag"]}
                ).status_code
            ),
        )
        assert (status, _note(engine, entry)) == (412, "theirs")
    finally:
        engine.dispose()


def test_an_edit_page_saved_while_another_change_commits_is_refused(racing_url: str):
    app, who, _, entry = _racing_app(racing_url)
    engine = app.extensions["tracker.engine"]
    try:
        client, url = app.test_client(), f"/hours/{entry.id}/edit"
        sign_in(client, who.email)
        sent = drawn_form(client.get(url).text, url)
        sent["note"] = "mine"
        status = while_another_writes(
            engine,
            update(HourLog).where(HourLog.id == entry.id).values(note="theirs"),
            lambda: client.post(url, data=sent).status_code,
        )
        assert (status, _note(engine, entry)) == (409, "theirs")
    finally:
        engine.dispose()


def test_a_scim_write_at_a_version_waits_for_a_change_and_then_refuses(racing_url: str):
    app, who, _, _ = _racing_app(racing_url)
    engine = app.extensions["tracker.engine"]
    try:
        factory = sessionmaker(bind=engine)
        with session_scope(factory) as session:
            token = create_scim_token(session, "race")[1]
        client, url = app.test_client(), f"/scim/v2/Users/{who.id}"
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/scim+json"}
        tag = client.get(url, headers=headers).headers["ETag"]
        patch = {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{"op": "replace", "path": "displayName", "value": "Mine"}],
        }
        status = while_another_writes(
            engine,
            update(Engineer).where(Engineer.id == who.id).values(name="Theirs"),
            lambda: client.patch(url, json=patch, headers={**headers, "If-Match": tag}).status_code,
        )
        with engine.connect() as conn:
            name = conn.execute(select(Engineer.name).where(Engineer.id == who.id)).scalar_one()
        assert (status, name) == (412, "Theirs")
    finally:
        engine.dispose()
