"""A record's version: a hash of what it says, named by If-Match and If-None-Match headers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import ColumnElement, Engine, Executable, insert, select, update
from sqlalchemy.orm import sessionmaker
from werkzeug.test import TestResponse

from tests import factories
from tests.helpers import WEBHOOK_HOSTS, drawn_form, sign_in
from tests.locks import racing_app, while_another_writes
from tracker.careers.models import SkillAssessment
from tracker.catalog.models.skills import Speciality
from tracker.db import FOR_CHANGE, session_scope
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token
from tracker.progress.models import HourLog
from tracker.progress.services.hours import log_hours
from tracker.scim.services.tokens import create_scim_token
from tracker.versions import names, version
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.services.endpoints import add_endpoint


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
    app = racing_app(url)
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


def _raced(
    app: Flask,
    secret: str,
    url: str,
    change: Executable | tuple[Executable, ...],
    write: Callable[[FlaskClient, dict[str, str]], TestResponse],
) -> int:
    """Read `url`'s version, then `write` at it while another transaction commits `change`."""
    client, bearer = app.test_client(), {"Authorization": f"Bearer {secret}"}
    tag = client.get(url, headers=bearer).headers["ETag"]
    headers = {**bearer, "If-Match": tag}
    engine = app.extensions["tracker.engine"]
    return while_another_writes(engine, change, lambda: write(client, headers).status_code)


def _stored(app: Flask, column: Any, where: ColumnElement[bool]) -> list[Any]:
    with app.extensions["tracker.engine"].connect() as conn:
        return list(conn.scalars(select(column).where(where)))


def test_a_persons_settings_set_while_another_change_commits_are_refused(racing_url: str):
    app, who, secret, _ = _racing_app(racing_url)
    try:
        status = _raced(
            app,
            secret,
            f"/api/v1/engineers/{who.id}",
            update(Engineer).where(Engineer.id == who.id).values(name="Theirs"),
            lambda client, headers: client.patch(
                f"/api/v1/engineers/{who.id}", json={"weekly_digest": False}, headers=headers
            ),
        )
        assert (status, _stored(app, Engineer.weekly_digest, Engineer.id == who.id)) == (
            412,
            [True],
        )
    finally:
        app.extensions["tracker.engine"].dispose()


def test_a_proficiency_set_while_another_is_committed_is_refused(racing_url: str):
    """Two assessors read the skills; the other's PUT holds the engineer and commits first."""
    app, who, secret, _ = _racing_app(racing_url)
    try:
        (nccl,) = _stored(app, Speciality.id, Speciality.code == "nccl")
        theirs = (
            select(Engineer.id).where(Engineer.id == who.id).with_for_update(**FOR_CHANGE),
            insert(SkillAssessment).values(
                engineer_id=who.id, speciality_id=nccl, proficiency=2, confirmed=False
            ),
        )
        url = f"/api/v1/engineers/{who.id}/skills"
        status = _raced(
            app,
            secret,
            url,
            theirs,
            lambda client, headers: client.put(f"{url}/nccl", json={"level": 3}, headers=headers),
        )
        levels = _stored(app, SkillAssessment.proficiency, SkillAssessment.engineer_id == who.id)
        assert (status, levels) == (412, [2])
    finally:
        app.extensions["tracker.engine"].dispose()


def test_a_secret_rotated_while_another_change_commits_is_refused(racing_url: str):
    app, _, _, _ = _racing_app(racing_url)
    try:
        factory = sessionmaker(bind=app.extensions["tracker.engine"], expire_on_commit=False)
        with session_scope(factory) as session:
            admin = factories.engineer(session, name="Race admin", access_role="admin")
            secret = create_token(session, admin, "race")[1]
            endpoint = add_endpoint(
                session, "https://hooks.example.com/in", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS
            )
        url, theirs = f"/api/v1/webhooks/{endpoint.id}", "https://hooks.example.com/theirs"
        status = _raced(
            app,
            secret,
            url,
            update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint.id).values(url=theirs),
            lambda client, headers: client.post(f"{url}/rotate-secret", headers=headers),
        )
        secrets = _stored(app, WebhookEndpoint.secret, WebhookEndpoint.id == endpoint.id)
        assert (status, secrets) == (412, [endpoint.secret])
    finally:
        app.extensions["tracker.engine"].dispose()
