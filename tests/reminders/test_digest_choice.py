"""The weekly digest's choice: on the person's own profile, shown on their admin page.

On by default (the column's server default too); the pass's digests skip whoever
turned it off, on SQLite and on PostgreSQL; a digest still waiting when it is
turned off is not sent.
"""

from __future__ import annotations

import datetime as dt
import re

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import count, csrf_token, sign_in
from tests.reminders.conftest import SmtpServer
from tests.reminders.helpers import (
    DAY,
    MAIL,
    WINDOWS,
    account_changes,
    days_before,
    holder,
    outbox,
    run,
)
from tracker.audit.models import AccountEvent
from tracker.people.models import Engineer
from tracker.people.services.persons import set_weekly_digest
from tracker.reminders.models import Notification
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver

SWITCH = re.compile(r'<input[^>]*name="weekly_digest"[^>]*>')
# The digests of the pass 90 days before the expiry, by recipient.
ON = days_before(90)


def _switch(page: str) -> str:
    found = SWITCH.search(page)
    assert found, "no weekly digest switch on the page"
    return found.group(0)


def _fresh(db: Session, person: Engineer) -> bool:
    db.expire(person)
    return person.weekly_digest


# --- the profile -----------------------------------------------------------------------


def test_a_new_person_gets_the_digest_and_the_database_says_so_too(db: Session):
    person = factories.engineer(db)
    assert person.weekly_digest is True
    # A row written without the column (an import, the bulk generator) gets it on.
    db.execute(
        text(
            "INSERT INTO engineers (name, email, access_role, level, experience_text,"
            " experience_months, session_epoch, locale, created_at, updated_at)"
            " VALUES ('Raw', 'raw@example.com', 'engineer', 1, '', 0, 0, '',"
            " '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
        )
    )
    raw = db.scalars(select(Engineer).where(Engineer.email == "raw@example.com")).one()
    assert raw.weekly_digest is True


def test_the_profile_shows_the_choice_and_saves_it_both_ways(client: FlaskClient, db: Session):
    person = factories.engineer(db, access_role="manager")
    sign_in(client, person)
    page = client.get("/profile").get_data(as_text=True)
    assert '<h2 id="weekly-digest">Weekly digest</h2>' in page
    assert "certifications expiring within 90 days" in page
    assert "checked" in _switch(page)
    assert 'action="/profile/digest"' in page

    # A checkbox left unticked is not sent: off.
    off = client.post("/profile/digest", data={}, follow_redirects=True)
    assert off.status_code == 200
    assert "Weekly digest off: you will not get it any more." in off.text
    assert "checked" not in _switch(off.text)
    assert _fresh(db, person) is False

    on = client.post("/profile/digest", data={"weekly_digest": "y"}, follow_redirects=True)
    assert "Weekly digest on: it comes at the start of each week." in on.text
    assert "checked" in _switch(on.text)
    assert _fresh(db, person) is True

    first, second = account_changes(db, person)
    assert first.detail == {"weekly_digest": {"from": True, "to": False}}
    assert second.detail == {"weekly_digest": {"from": False, "to": True}}
    assert {(e.method, e.actor_id) for e in (first, second)} == {("web", None)}


def test_saving_the_same_choice_again_records_nothing(client: FlaskClient, db: Session):
    person = factories.engineer(db)
    sign_in(client, person)
    for _ in range(2):
        client.post("/profile/digest", data={"weekly_digest": "y"})
    assert account_changes(db, person) == []
    assert set_weekly_digest(db, person, True) is False


def test_the_choice_needs_the_forms_token(app: Flask, client: FlaskClient, db: Session):
    person = factories.engineer(db)
    sign_in(client, person)
    events = count(db, AccountEvent)
    app.config["WTF_CSRF_ENABLED"] = True
    try:
        refused = client.post("/profile/digest", data={})
        token = csrf_token(client.get("/profile").get_data(as_text=True))
        accepted = client.post("/profile/digest", data={"csrf_token": token})
    finally:
        app.config["WTF_CSRF_ENABLED"] = False
    assert refused.status_code == 400
    assert accepted.status_code == 302
    assert count(db, AccountEvent) == events + 1
    assert _fresh(db, person) is False


def test_only_the_signed_in_person_changes_their_own_choice(client: FlaskClient, db: Session):
    person = factories.engineer(db)
    answer = client.post("/profile/digest", data={})
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/login")
    assert _fresh(db, person) is True


def test_the_admins_page_shows_the_choice_without_changing_it(client: FlaskClient, db: Session):
    admin = factories.engineer(db, access_role="admin")
    person = factories.engineer(db, name="Pat Example")
    sign_in(client, admin)
    page = client.get(f"/admin/people/{person.id}").get_data(as_text=True)
    assert "Weekly digest: on (sent when someone reports to them)." in page
    set_weekly_digest(db, person, False, via="web")
    page = client.get(f"/admin/people/{person.id}").get_data(as_text=True)
    assert "Weekly digest: off. Only Pat Example can turn it back on, on their profile." in page
    assert 'name="weekly_digest"' not in page


# --- the pass and the sender ---------------------------------------------------------------


def test_the_pass_skips_the_managers_who_turned_it_off(db: Session):
    """One report, two managers (their own and their team's): each digest is the manager's."""
    own = factories.engineer(db, name="Own", access_role="manager")
    theirs = factories.engineer(db, name="Theirs", access_role="manager")
    crew = factories.team(db, manager=theirs)
    holder(db, team=crew, manager=own)
    set_weekly_digest(db, own, False)
    run(db, ON)
    assert [n.to_addrs for n in outbox(db, "digest")] == [theirs.email]

    set_weekly_digest(db, theirs, False)
    set_weekly_digest(db, own, True)
    run(db, ON + 7 * DAY)
    assert [n.to_addrs for n in outbox(db, "digest")] == [theirs.email, own.email]

    # Both off: a certification with no manager who wants it is in no digest at all.
    set_weekly_digest(db, own, False)
    assert run(db, ON + 14 * DAY).count("digest") == 0
    # The rest of the pass is the same: the reminders still go.
    assert outbox(db, "reminder")


def test_a_digest_waiting_when_it_is_turned_off_is_not_sent(
    app: Flask, db: Session, smtp: SmtpServer
):
    boss = factories.engineer(db, access_role="manager")
    holder(db, manager=boss)
    plan(db, ON, WINDOWS, MAIL)
    db.flush()
    set_weekly_digest(db, boss, False, via="web")
    report = deliver(
        app.extensions["tracker.sessions"], smtp.settings, dt.datetime.combine(ON, dt.time(9))
    )
    assert report.skipped == 1
    (digest,) = outbox(db, "digest")
    db.refresh(digest)
    assert (digest.status, digest.last_error) == (
        "skipped",
        "not sent: the person turned the weekly digest off before delivery",
    )
    assert not [r for r in smtp.mailbox.received if r.subject.startswith("Weekly digest")]
    # The reminder to the holder is not bulk mail: it went.
    assert db.scalar(select(Notification.status).where(Notification.kind == "reminder")) == "sent"
