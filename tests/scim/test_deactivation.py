"""Deactivation by SCIM (PATCH active false, or DELETE) takes effect at once, everywhere:
sessions and API tokens stop on the next request, reminders are neither queued nor sent
(also those queued before), readiness stops counting the person; their records stay."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from tests import factories
from tests.helpers import fresh, sign_in, token_for
from tests.readiness.helpers import members
from tests.reminders.conftest import smtp  # noqa: F401  (the real SMTP server fixture)
from tests.reminders.helpers import MAIL, WINDOWS, days_before, holder, outbox
from tests.scim.conftest import error_of
from tracker.people.models import Engineer, LevelChange
from tracker.people.services.persons import update_engineer
from tracker.progress.models import Certification
from tracker.readiness.services.team import team_readiness
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver

OFF = {"op": "replace", "path": "active", "value": False}
OFF_WITHOUT_PATH = {"op": "replace", "value": {"active": False}}


def _deactivate(scim, person: Engineer, how: str) -> None:
    path = f"/Users/{person.id}"
    if how == "delete":
        assert scim.delete(path).status_code == 204
    else:
        response = scim.patch(path, OFF if how == "patch" else OFF_WITHOUT_PATH)
        assert response.status_code == 200, response.get_data(as_text=True)


HOW = ["patch", "patch without a path", "delete"]


@pytest.mark.parametrize("how", HOW)
def test_web_sessions_end_at_once(app, db, scim, how):
    person = factories.engineer(db)
    browser = app.test_client()
    sign_in(browser, person)
    assert browser.get("/profile").status_code == 200
    epoch = person.session_epoch
    _deactivate(scim, person, how)
    db.expire_all()
    assert person.session_epoch == epoch + 1
    response = browser.get("/profile")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


@pytest.mark.parametrize("how", HOW)
def test_api_tokens_are_refused_on_the_next_request(client, db, scim, how):
    person = factories.engineer(db)
    token = token_for(db, person)
    headers = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/me", headers=headers).status_code == 200
    _deactivate(scim, person, how)
    assert client.get("/api/v1/me", headers=headers).status_code == 401


def test_reminders_are_not_queued_for_a_deactivated_person(db, scim):
    person, cert = holder(db)
    _deactivate(scim, person, "patch")
    db.expire_all()
    plan(db, days_before(30), WINDOWS, MAIL)
    assert [n for n in outbox(db) if n.certification_id == cert.id] == []


@pytest.mark.parametrize("how", HOW)
def test_notices_queued_before_are_not_sent(app, db, scim, smtp, how):  # noqa: F811
    person, cert = holder(db)
    plan(db, days_before(30), WINDOWS, MAIL)
    (notice,) = [n for n in outbox(db) if n.certification_id == cert.id]
    _deactivate(scim, person, how)
    now = dt.datetime.combine(days_before(29), dt.time(8))
    report = deliver(app.extensions["tracker.sessions"], smtp.settings, now)
    assert report.sent == 0 and report.skipped == 1
    assert smtp.mailbox.received == []
    db.refresh(notice)
    assert notice.status == "skipped" and "deactivated" in (notice.last_error or "")


def test_a_colleague_still_active_is_still_mailed(app, db, scim, smtp):  # noqa: F811
    gone, _ = holder(db)
    stays, _ = holder(db)
    plan(db, days_before(30), WINDOWS, MAIL)
    _deactivate(scim, gone, "patch")
    now = dt.datetime.combine(days_before(29), dt.time(8))
    report = deliver(app.extensions["tracker.sessions"], smtp.settings, now)
    assert (report.sent, report.skipped) == (1, 1)
    assert [r.rcpt_tos for r in smtp.mailbox.received] == [[stays.email]]


@pytest.mark.parametrize("how", HOW)
def test_readiness_stops_counting_them(db, scim, how):
    team = factories.team(db, gpus=8)
    person = factories.engineer(db, team=team, level=3)
    factories.certification(db, person, "NCA-AIIO", dt.date(2026, 1, 10), dt.date(2029, 1, 10))
    assert [m.id for m in members(db, team)] == [person.id]
    before = team_readiness(db, team, factories.TODAY)
    _deactivate(scim, person, how)
    db.expire_all()
    assert members(db, team) == []
    after = team_readiness(db, team, factories.TODAY)
    assert all(seat.member is None for seat in after.seats)
    assert after.filled == 0 and after.filled <= before.filled


def test_delete_keeps_the_persons_history(db, scim):
    person, cert = holder(db)
    _deactivate(scim, person, "delete")
    db.expire_all()
    assert db.get(Engineer, person.id) is not None
    assert db.get(Certification, cert.id) is not None
    assert db.scalars(select(LevelChange).where(LevelChange.engineer_id == person.id)).all()


def test_scim_deactivating_the_last_admin_is_refused_with_the_rule(scim, db):
    created = scim.create_user("boss@example.com")
    admin = db.get(Engineer, int(created["id"]))
    update_engineer(db, admin, None, factories.TODAY, access_role="admin")
    response = scim.patch(
        f"/Users/{created['id']}", {"op": "replace", "path": "active", "value": False}
    )
    assert "active: the tracker must keep at least one active admin" in error_of(
        response, 400, "invalidValue"
    )
    assert fresh(db, admin).active is True
    assert "must keep at least one active admin" in error_of(
        scim.delete(f"/Users/{created['id']}"), 400, "invalidValue"
    )
