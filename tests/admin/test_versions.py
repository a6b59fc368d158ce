"""Two admins editing the same person or team: the later save is refused, naming the change."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.admin.helpers import text
from tests.helpers import count, drawn_form, sign_in
from tracker.audit.models import AuditEvent
from tracker.people.models import Engineer, Team

ALERT = 'role="alert"'


def _other_admin(app: Flask, db: Session) -> FlaskClient:
    """Return a second browser, signed in as another admin."""
    other = factories.engineer(db, name="Bea Admin", email="bea@example.com", access_role="admin")
    browser = app.test_client()
    sign_in(browser, other)
    return browser


def test_a_save_over_a_change_made_since_the_page_opened_is_refused_then_goes_through(
    app: Flask, admin_client: FlaskClient, db: Session
):
    borealis = factories.team(db, name="Borealis Cluster")
    person = factories.engineer(db, name="Pia Person")
    url = f"/admin/people/{person.id}"
    mine = drawn_form(admin_client.get(url).text, url)
    theirs = _other_admin(app, db)
    changed = drawn_form(theirs.get(url).text, url)
    changed["team"] = str(borealis.id)
    assert theirs.post(url, data=changed).status_code == 302
    events = count(db, AuditEvent)

    mine["name"] = "Pia Renamed"
    refused = admin_client.post(url, data=mine)
    assert refused.status_code == 409
    page = text(refused)
    alert = page[page.index(ALERT) :].split("</div>")[0]
    assert "changed this record since you opened the page" in alert
    assert "Team: now Borealis Cluster" in alert and "Name:" not in alert
    assert 'value="Pia Renamed"' in page  # the reader's own values stay
    db.expire_all()
    stored = db.get(Engineer, person.id)
    assert (stored.name, stored.team_id) == ("Pia Person", borealis.id)
    assert count(db, AuditEvent) == events

    # The page drawn again carries the new version: keeping both changes saves.
    again = drawn_form(refused.text, url)
    again["team"] = str(borealis.id)
    assert again["name"] == "Pia Renamed"
    assert admin_client.post(url, data=again).status_code == 302
    db.expire_all()
    assert (stored.name, stored.team_id) == ("Pia Renamed", borealis.id)


def test_a_change_made_by_provisioning_or_the_api_counts_too(
    admin_client: FlaskClient, db: Session
):
    person = factories.engineer(db, name="Pia Person", level=1)
    url = f"/admin/people/{person.id}"
    mine = drawn_form(admin_client.get(url).text, url)
    person.level = 3  # as SCIM, the API or an import would write it
    db.flush()
    mine["experience_months"] = "30"
    refused = admin_client.post(url, data=mine)
    assert refused.status_code == 409
    assert "Level: now 3 · " in text(refused)
    db.expire_all()
    assert db.get(Engineer, person.id).experience_months != 30


def test_the_message_speaks_the_readers_language(admin_client: FlaskClient, db: Session):
    person = factories.engineer(db, name="Pia Person")
    url = f"/admin/people/{person.id}"
    mine = drawn_form(admin_client.get(url).text, url)
    person.name = "Pia Otra"
    db.flush()
    refused = admin_client.post(url, data=mine, headers={"Accept-Language": "es"})
    assert refused.status_code == 409
    assert "Nombre: ahora Pia Otra" in text(refused)


def test_a_save_without_a_version_or_with_the_current_one_goes_through(
    admin_client: FlaskClient, db: Session
):
    person = factories.engineer(db, name="Pia Person")
    url = f"/admin/people/{person.id}"
    form = drawn_form(admin_client.get(url).text, url)
    form["name"] = "Pia Current"
    assert admin_client.post(url, data=form).status_code == 302
    del form["version"]
    form["name"] = "Pia Unversioned"
    assert admin_client.post(url, data=form).status_code == 302
    db.expire_all()
    assert db.get(Engineer, person.id).name == "Pia Unversioned"


def test_two_admins_editing_a_team(app: Flask, admin_client: FlaskClient, db: Session):
    team = factories.team(db, name="Night Shift", gpus=64)
    url = f"/admin/teams/{team.id}"
    mine = drawn_form(admin_client.get(url).text, url)
    theirs = _other_admin(app, db)
    changed = drawn_form(theirs.get(url).text, url)
    changed["gpus"] = "128"
    assert theirs.post(url, data=changed).status_code == 302

    mine["name"] = "Day Shift"
    refused = admin_client.post(url, data=mine)
    assert refused.status_code == 409
    assert "Fleet size (GPUs): now 128" in text(refused)
    db.expire_all()
    assert (db.get(Team, team.id).name, db.get(Team, team.id).gpus) == ("Night Shift", 128)
    assert admin_client.post(url, data=drawn_form(refused.text, url)).status_code == 302
    db.expire_all()
    assert db.get(Team, team.id).name == "Day Shift"


def test_a_page_opened_before_the_key_was_rotated_still_saves(
    admin_client: FlaskClient, db: Session, request: pytest.FixtureRequest
):
    """The sign-in and the page's version, signed with the old key, open with the fallback."""
    person = factories.engineer(db, name="Pia Person")
    url = f"/admin/people/{person.id}"
    mine = drawn_form(admin_client.get(url).text, url)
    request.getfixturevalue("rotated")

    mine["name"] = "Pia Renamed"
    assert admin_client.post(url, data=mine).status_code == 302
    db.expire_all()
    stored = db.get(Engineer, person.id)
    assert stored is not None and stored.name == "Pia Renamed"
