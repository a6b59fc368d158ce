"""`tracker remind --today YYYY-MM-DD --json` on a fresh database against real SMTP.

The rule: "`tracker remind [--today YYYY-MM-DD] [--json]` runs one pass for that
day and then delivers every pending row now, back-off notwithstanding, and prints
how many notices were queued, sent, retried and failed ...; it exits 0 when SMTP
is down, leaving the rows pending."
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator

import pytest
from flask import Flask
from icalendar import Calendar
from sqlalchemy import select

from tests import factories
from tests.live import free_port
from tests.reminders.conftest import MAIL_FROM
from tests.reminders.helpers import BASE_URL, DAY, EARNED, EXPIRES, days_before
from tracker import create_app
from tracker.db import session_scope
from tracker.progress.services.certifications import record_attempt
from tracker.reminders.models import Notification


@pytest.fixture
def cli_app(fresh_url: str, smtp) -> Iterator[Flask]:
    """A fresh app on its own database (after `tracker init`), sending to `smtp`."""
    app = create_app(
        {
            "DATABASE_URL": fresh_url,
            "SECRET_KEY": "x",
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": smtp.port,
            "SMTP_TIMEOUT": 5.0,
            "MAIL_FROM": MAIL_FROM,
            "BASE_URL": BASE_URL,
        }
    )
    result = app.test_cli_runner().invoke(args=["init"])
    assert result.exit_code == 0, result.output
    try:
        yield app
    finally:
        app.extensions["tracker.engine"].dispose()


def remind(app: Flask, day: dt.date) -> dict[str, object]:
    result = app.test_cli_runner().invoke(args=["remind", "--today", day.isoformat(), "--json"])
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.output.strip().splitlines()[-1])


def counts(queued=0, sent=0, retried=0, failed=0) -> dict[str, object]:
    # No endpoint is registered in these tests: no webhook is delivered.
    webhooks = {"sent": 0, "retried": 0, "failed": 0}
    return {
        "queued": queued,
        "sent": sent,
        "retried": retried,
        "failed": failed,
        "webhooks": webhooks,
    }


def rows(app: Flask) -> list[Notification]:
    with app.extensions["tracker.sessions"]() as session:
        return list(session.scalars(select(Notification).order_by(Notification.id)))


def test_remind_exits_0_when_smtp_is_down_and_leaves_rows_pending(cli_app):
    with session_scope(cli_app.extensions["tracker.sessions"]) as session:
        who = factories.engineer(session)
        factories.certification(session, who, "NCA-AIIO", EARNED, EXPIRES)
    cli_app.config["SMTP_PORT"] = free_port()
    assert remind(cli_app, days_before(30)) == counts(queued=1, retried=1)
    (notice,) = rows(cli_app)
    assert notice.status == "pending"
    assert notice.attempts == 1
    assert notice.sent_at is None
    assert "cannot connect" in notice.last_error


def test_remind_prints_counts_in_words_without_json(cli_app, smtp):
    with session_scope(cli_app.extensions["tracker.sessions"]) as session:
        who = factories.engineer(session)
        factories.certification(session, who, "NCA-AIIO", EARNED, EXPIRES)
    result = cli_app.test_cli_runner().invoke(args=["remind", "--today", "2027-01-30"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "queued 1, sent 1, retried 0, failed 0"
    assert len(smtp.mailbox.received) == 1


def test_remind_refuses_a_bad_date_and_bad_windows(cli_app):
    runner = cli_app.test_cli_runner()
    result = runner.invoke(args=["remind", "--today", "30/01/2027", "--json"])
    assert result.exit_code == 2
    cli_app.config["REMINDER_WINDOWS"] = "90,soon"
    result = runner.invoke(args=["remind", "--today", "2027-01-30", "--json"])
    assert result.exit_code == 1
    assert "windows must be days before expiry" in result.output


def test_a_scenario_across_days_delivers_every_message_exactly_once(cli_app, smtp):
    """Reruns, skipped days, an SMTP outage and a renewal: each expected message arrives
    exactly once, with the right recipients and dates (docs/domain.md section 9).

    Ada holds NCA-AIIO until 2027-03-01 and reports to Max; Bo holds CKA until
    2027-03-11 and has no manager.
    """
    factory = cli_app.extensions["tracker.sessions"]
    with session_scope(factory) as session:
        boss = factories.engineer(session, name="Max", access_role="manager")
        ada = factories.engineer(session, name="Ada", manager=boss)
        bo = factories.engineer(session, name="Bo")
        factories.certification(session, ada, "NCA-AIIO", EARNED, EXPIRES)
        factories.certification(session, bo, "CKA", EARNED, EXPIRES + 10 * DAY)
        max_, ada_, bo_ = boss.email, ada.email, bo.email
    up = cli_app.config["SMTP_PORT"]

    # 90 days before Ada's expiry: her first reminder, and Max's weekly digest.
    assert remind(cli_app, days_before(90)) == counts(queued=2, sent=2)
    # A rerun the same day and a run the next day (same ISO week) send nothing.
    assert remind(cli_app, days_before(90)) == counts()
    assert remind(cli_app, days_before(89)) == counts()
    # Days skipped: the 60-day windows (Bo's 90-day one is gone for good), a new digest.
    assert remind(cli_app, days_before(45)) == counts(queued=3, sent=3)
    # SMTP is down: Ada's 30-day reminder (copying Max) and the digest wait.
    cli_app.config["SMTP_PORT"] = free_port()
    assert remind(cli_app, days_before(30)) == counts(queued=2, retried=2)
    assert len(smtp.mailbox.received) == 5
    # Up again the next day (same ISO week): the waiting two go out, nothing new.
    cli_app.config["SMTP_PORT"] = up
    assert remind(cli_app, days_before(29)) == counts(sent=2)
    # Ada renews 20 days before the expiry: no more reminders for her old one.
    with session_scope(factory) as session:
        ada = session.get(type(ada), ada.id)
        day = days_before(20)
        record_attempt(session, ada, factories.exam(session, "NCA-AIIO"), day, 88, True, day)
    # Bo's 30-day window; nothing for Ada, no digest (nothing of Max's people expires soon).
    assert remind(cli_app, days_before(7)) == counts(queued=1, sent=1)
    # Skipped past Bo's 7-day window and expiry: only the expiry notice.
    assert remind(cli_app, EXPIRES + 11 * DAY) == counts(queued=1, sent=1)
    assert remind(cli_app, EXPIRES + 11 * DAY) == counts()
    assert remind(cli_app, EXPIRES + 12 * DAY) == counts()

    received = smtp.mailbox.received
    by_id = smtp.mailbox.by_message_id()
    assert len(received) == len(by_id) == 9
    got = sorted(
        (r.subject, sorted(r.rcpt_tos), str(r.message["To"]), str(r.message["Cc"] or ""))
        for r in received
    )
    digest = "Weekly digest: 1 certification expiring within 90 days"
    assert got == sorted(
        [
            ("NCA-AIIO valid through 2027-03-01 (90 days from today)", [ada_], ada_, ""),
            ("NCA-AIIO valid through 2027-03-01 (45 days from today)", [ada_], ada_, ""),
            (
                "NCA-AIIO valid through 2027-03-01 (30 days from today)",
                sorted([ada_, max_]),
                ada_,
                max_,
            ),
            ("CKA valid through 2027-03-11 (55 days from today)", [bo_], bo_, ""),
            ("CKA valid through 2027-03-11 (17 days from today)", [bo_], bo_, ""),
            ("CKA valid through 2027-03-11 (lapsed)", [bo_], bo_, ""),
            (digest, [max_], max_, ""),
            (digest, [max_], max_, ""),
            (digest, [max_], max_, ""),
        ]
    )
    assert {r.mail_from for r in received} == {MAIL_FROM}
    # The calendar attachment of every reminder marks the expiry its subject names.
    for r in received:
        if r.subject.startswith("Weekly digest"):
            assert "Ada" in r.message.get_body(("plain",)).get_content()
            continue
        (attachment,) = list(r.message.iter_attachments())
        (event,) = Calendar.from_ical(attachment.get_payload(decode=True)).walk("VEVENT")
        assert event.decoded("dtstart").isoformat() in r.subject
    assert {n.status for n in rows(cli_app)} == {"sent"}
    assert sorted(n.message_id for n in rows(cli_app)) == sorted(by_id)
