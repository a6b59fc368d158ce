"""The jobs the scheduler and `tracker remind` run: the pass, then the sender, on the app."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from tests.reminders.conftest import MAIL_FROM
from tests.reminders.helpers import (
    BASE_URL,
    DAY,
    DAY30,
    NOW,
    fresh,
    holder,
    queue,
    row,
)
from tracker.clock import utcnow
from tracker.reminders import jobs
from tracker.reminders.services.delivery import deliver


@pytest.fixture
def mail_app(app, db, smtp, monkeypatch):
    """The session app (sharing the test's connection), sending to the test SMTP server."""
    monkeypatch.setitem(app.config, "SMTP_PORT", smtp.port)
    monkeypatch.setitem(app.config, "MAIL_FROM", MAIL_FROM)
    monkeypatch.setitem(app.config, "BASE_URL", BASE_URL)
    monkeypatch.setitem(app.config, "SMTP_TIMEOUT", 5.0)
    return app


def test_run_pass_commits_the_rows_and_run_sender_delivers_them(mail_app, db, smtp):
    who, cert = holder(db)
    assert jobs.run_pass(mail_app, DAY30) == 1
    assert jobs.run_pass(mail_app, DAY30) == 0
    notice = row(db, cert.id)
    assert notice.message_id.endswith("@tracker.example.com>")
    assert jobs.run_sender(mail_app, NOW).sent == 1
    (received,) = smtp.mailbox.received
    assert received.rcpt_tos == [who.email]
    assert jobs.remind(mail_app, DAY30 + DAY) == jobs.RunReport(0, 0, 0, 0)


def test_remind_delivers_rows_still_in_back_off(mail_app, db, smtp, smtp_down):
    (notice,) = queue(db)
    deliver(mail_app.extensions["tracker.sessions"], smtp_down, utcnow(), force=True)
    assert fresh(db, notice).attempts == 1
    assert notice.next_attempt_at > utcnow()
    assert jobs.remind(mail_app, DAY30) == jobs.RunReport(0, 1, 0, 0)
    assert len(smtp.mailbox.received) == 1


def test_the_daily_sender_sends_what_the_pass_just_queued_east_of_utc(mail_app, db, smtp):
    """The scheduler runs the pass for the local date at 07:00 in TRACKER_TIMEZONE and
    the sender right after it; in Auckland (UTC+13 in summer) that is 18:00 UTC the
    day before. The notices queued must go out in that run, not hours later.
    """
    mail_app.config["TIMEZONE"] = "Pacific/Auckland"
    holder(db)
    local = dt.datetime.combine(DAY30, dt.time(7, 0), tzinfo=ZoneInfo("Pacific/Auckland"))
    now_utc = local.astimezone(dt.UTC).replace(tzinfo=None)
    assert now_utc.date() == DAY30 - DAY
    assert jobs.run_pass(mail_app, DAY30) == 1
    assert jobs.run_sender(mail_app, now_utc).sent == 1
