"""Delivering the outbox over real SMTP (aiosmtpd in the test process).

docs/domain.md section 9: "A failed delivery is kept and retried with back-off; a
permanent refusal (SMTP 5xx) is marked failed and shown to admins. No notice
is lost and none is sent twice, also across restarts and with more than one
scheduler."
"""

from __future__ import annotations

import dataclasses
import socket
import time

import pytest
from aiosmtpd.controller import Controller

from tests import factories
from tests.live import free_port
from tests.reminders.conftest import Mailbox, settings_for
from tests.reminders.helpers import (
    DAY,
    DAY30,
    MAIL,
    MINUTE,
    NOW,
    WINDOWS,
    days_before,
    fresh,
    holder,
    queue,
    row,
)
from tracker.errors import ValidationError
from tracker.outbox import CLAIM_LEASE, RETRY_BASE
from tracker.progress.services.certifications import record_attempt
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver, retry_failed


def test_a_batch_goes_over_one_connection_and_each_row_is_marked_sent(db, factory, smtp):
    """Reusing one connection per batch, marking each sent with its time."""
    rows = queue(db, people=3)
    report = deliver(factory, smtp.settings, NOW)
    assert (report.sent, report.retried, report.failed) == (3, 0, 0)
    assert smtp.mailbox.connections == 1
    assert {r.connection for r in smtp.mailbox.received} == {1}
    assert sorted(r.message_id for r in smtp.mailbox.received) == sorted(r.message_id for r in rows)
    for notice in rows:
        fresh(db, notice)
        assert notice.status == "sent"
        assert notice.sent_at == NOW
        assert notice.attempts == 1
        assert notice.claimed_by is None
        assert notice.last_error is None
    # Nothing left to send: a second run sends nothing and opens no connection.
    assert deliver(factory, smtp.settings, NOW + DAY, force=True).sent == 0
    assert smtp.mailbox.connections == 1
    assert len(smtp.mailbox.received) == 3


def test_one_connection_per_batch(db, factory, smtp):
    queue(db, people=5)
    assert deliver(factory, smtp.settings, NOW, batch=2).sent == 5
    assert smtp.mailbox.connections == 3
    assert sorted(r.connection for r in smtp.mailbox.received) == [1, 1, 2, 2, 3]
    assert all(len(v) == 1 for v in smtp.mailbox.by_message_id().values())


def test_the_envelope_includes_the_copied_manager(db, factory, smtp):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    (notice,) = queue(db, manager=boss)
    deliver(factory, smtp.settings, NOW)
    # The boss's weekly digest goes out too.
    (received,) = smtp.mailbox.by_message_id()[notice.message_id]
    assert received.rcpt_tos == [notice.to_addrs, boss.email]
    assert received.message["Cc"] == boss.email


def test_smtp_down_keeps_rows_pending_with_back_off_then_delivers_exactly_once(
    db, factory, smtp, smtp_down
):
    """ "A failed delivery is kept and retried with back-off." SMTP down, then up,
    delivers exactly once.
    """
    rows = queue(db, people=2)
    report = deliver(factory, smtp_down, NOW)
    assert (report.sent, report.retried, report.failed) == (0, 2, 0)
    for notice in rows:
        fresh(db, notice)
        assert notice.status == "pending"
        assert notice.attempts == 1
        assert notice.next_attempt_at > NOW
        assert notice.claimed_by is None
        assert notice.sent_at is None
        assert "cannot connect" in notice.last_error

    # Up again, but the back-off has not passed: nothing yet.
    assert deliver(factory, smtp.settings, NOW + MINUTE).sent == 0
    assert smtp.mailbox.received == []
    later = max(fresh(db, n).next_attempt_at for n in rows)
    report = deliver(factory, smtp.settings, later)
    assert (report.sent, report.retried, report.failed) == (2, 0, 0)
    assert sorted(smtp.mailbox.by_message_id()) == sorted(n.message_id for n in rows)
    assert all(len(v) == 1 for v in smtp.mailbox.by_message_id().values())
    for notice in rows:
        assert fresh(db, notice).status == "sent"
        assert notice.attempts == 2
        assert notice.sent_at == later
    # Later runs send nothing more.
    deliver(factory, smtp.settings, later + DAY, force=True)
    assert len(smtp.mailbox.received) == 2


def test_the_back_off_grows_with_each_attempt(db, factory, smtp_down):
    (notice,) = queue(db)
    now = NOW
    waits = []
    for _ in range(4):
        deliver(factory, smtp_down, now)
        fresh(db, notice)
        waits.append(notice.next_attempt_at - now)
        now = notice.next_attempt_at
    assert notice.attempts == 4
    assert waits == sorted(waits) and waits[0] < waits[-1]
    assert waits[0] >= RETRY_BASE


def test_a_451_answer_is_retried(db, factory, smtp):
    (notice,) = queue(db)
    smtp.mailbox.data_reply = "451 try later"
    report = deliver(factory, smtp.settings, NOW)
    assert (report.sent, report.retried, report.failed) == (0, 1, 0)
    fresh(db, notice)
    assert notice.status == "pending"
    assert notice.attempts == 1
    assert notice.next_attempt_at > NOW
    assert "451" in notice.last_error
    smtp.mailbox.data_reply = None
    assert deliver(factory, smtp.settings, notice.next_attempt_at).sent == 1
    assert len(smtp.mailbox.received) == 1
    assert fresh(db, notice).status == "sent"


def test_a_421_closing_the_connection_retries_the_rest_of_the_batch(db, factory, smtp):
    rows = queue(db, people=3)
    smtp.mailbox.data_reply = "421 closing"
    report = deliver(factory, smtp.settings, NOW)
    assert (report.sent, report.retried, report.failed) == (0, 3, 0)
    assert all(fresh(db, n).status == "pending" for n in rows)
    smtp.mailbox.data_reply = None
    assert deliver(factory, smtp.settings, NOW, force=True).sent == 3
    assert all(len(v) == 1 for v in smtp.mailbox.by_message_id().values())
    assert len(smtp.mailbox.received) == 3


def test_a_550_marks_failed_with_the_servers_answer_and_is_not_retried(db, factory, smtp):
    """ "A permanent refusal (SMTP 5xx) is marked failed and shown to admins." """
    (notice,) = queue(db)
    smtp.mailbox.data_reply = "550 no such user"
    report = deliver(factory, smtp.settings, NOW)
    assert (report.sent, report.retried, report.failed) == (0, 0, 1)
    fresh(db, notice)
    assert notice.status == "failed"
    assert notice.attempts == 1
    assert notice.sent_at is None
    assert notice.claimed_by is None
    assert "550" in notice.last_error and "no such user" in notice.last_error
    smtp.mailbox.data_reply = None
    assert deliver(factory, smtp.settings, NOW + DAY, force=True).sent == 0
    assert smtp.mailbox.received == []
    assert fresh(db, notice).status == "failed"


def test_a_5xx_for_one_row_does_not_hold_up_the_rest_of_the_batch(db, factory, smtp):
    rows = queue(db, people=3)
    smtp.mailbox.next_replies = ["554 rejected"]
    report = deliver(factory, smtp.settings, NOW)
    assert (report.sent, report.retried, report.failed) == (2, 0, 1)
    assert sorted(fresh(db, n).status for n in rows) == ["failed", "sent", "sent"]


def test_a_notice_no_mail_can_carry_fails_alone_and_the_batch_goes_on(db, factory, smtp):
    rows = queue(db, people=3)
    # Stored before names had to be one line: a header cannot hold the line break.
    rows[1].subject = "Escalation: Ada\nBcc: someone@example.com"
    db.flush()
    report = deliver(factory, smtp.settings, NOW)
    assert (report.sent, report.retried, report.failed) == (2, 0, 1)
    broken = fresh(db, rows[1])
    assert broken.status == "failed" and broken.attempts == 1
    assert broken.last_error.startswith("not sent: the message cannot be written")
    assert len(smtp.mailbox.received) == 2


def test_a_4xx_for_one_row_retries_that_row_and_sends_the_rest(db, factory, smtp):
    rows = queue(db, people=3)
    smtp.mailbox.next_replies = ["451 try later"]
    report = deliver(factory, smtp.settings, NOW)
    assert (report.sent, report.retried, report.failed) == (2, 1, 0)
    assert smtp.mailbox.connections == 1
    assert sorted(fresh(db, n).status for n in rows) == ["pending", "sent", "sent"]


def test_an_admin_retry_puts_a_failed_row_back(db, factory, smtp):
    (notice,) = queue(db)
    with pytest.raises(ValidationError):
        retry_failed(db, notice, NOW)
    notice.status = "failed"
    notice.attempts = 1
    notice.last_error = "550 no such user"
    db.flush()
    retry_failed(db, notice, NOW + DAY)
    assert notice.status == "pending"
    assert deliver(factory, smtp.settings, NOW + DAY).sent == 1
    assert fresh(db, notice).status == "sent"
    with pytest.raises(ValidationError):
        retry_failed(db, notice, NOW + DAY)


def test_a_recipient_refused_alone_does_not_resend_to_the_others(db, factory, smtp):
    """ "A recipient refused alone does not resend to the others"."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    (notice,) = queue(db, manager=boss)
    smtp.mailbox.refuse[boss.email] = "550 5.1.1 unknown"
    report = deliver(factory, smtp.settings, NOW)
    # The reminder is sent; the boss's weekly digest (to the boss alone) fails.
    assert (report.sent, report.retried, report.failed) == (1, 0, 1)
    (received,) = smtp.mailbox.received
    assert received.message_id == notice.message_id
    assert received.rcpt_tos == [notice.to_addrs]
    fresh(db, notice)
    assert notice.status == "sent"
    assert boss.email in notice.last_error and "550" in notice.last_error
    smtp.mailbox.refuse.clear()
    deliver(factory, smtp.settings, NOW + DAY, force=True)
    assert len(smtp.mailbox.received) == 1


def test_every_recipient_refused_permanently_marks_failed(db, factory, smtp):
    (notice,) = queue(db)
    smtp.mailbox.refuse[notice.to_addrs] = "550 5.1.1 unknown"
    assert deliver(factory, smtp.settings, NOW).failed == 1
    fresh(db, notice)
    assert notice.status == "failed"
    assert "550 5.1.1 unknown" in notice.last_error


def test_every_recipient_refused_for_now_is_retried(db, factory, smtp):
    (notice,) = queue(db)
    smtp.mailbox.refuse[notice.to_addrs] = "450 4.2.1 mailbox busy"
    assert deliver(factory, smtp.settings, NOW).retried == 1
    assert fresh(db, notice).status == "pending"
    smtp.mailbox.refuse.clear()
    assert deliver(factory, smtp.settings, notice.next_attempt_at).sent == 1


def test_force_sends_pending_rows_despite_the_back_off(db, factory, smtp, smtp_down):
    """`tracker remind` "delivers every pending row now, back-off notwithstanding"."""
    (notice,) = queue(db)
    deliver(factory, smtp_down, NOW)
    assert fresh(db, notice).next_attempt_at > NOW + MINUTE
    assert deliver(factory, smtp.settings, NOW + MINUTE).sent == 0
    assert deliver(factory, smtp.settings, NOW + MINUTE, force=True).sent == 1
    assert len(smtp.mailbox.received) == 1


def test_a_row_not_composed_yet_is_not_taken(db, factory, smtp):
    (notice,) = queue(db)
    notice.body_text = None
    db.flush()
    assert deliver(factory, smtp.settings, NOW, force=True).sent == 0
    assert smtp.mailbox.attempts == []
    fresh(db, notice)
    assert (notice.status, notice.claimed_by, notice.attempts) == ("pending", None, 0)


def test_force_never_takes_a_row_another_live_sender_holds(db, factory, smtp):
    (notice,) = queue(db)
    notice.status = "sending"
    notice.claimed_by = "other:alive"
    notice.next_attempt_at = NOW + CLAIM_LEASE
    db.flush()
    assert deliver(factory, smtp.settings, NOW, force=True).sent == 0
    assert deliver(factory, smtp.settings, NOW).sent == 0
    assert smtp.mailbox.received == []
    assert fresh(db, notice).claimed_by == "other:alive"


def test_a_crashed_senders_row_is_taken_over_with_the_same_message_id(db, factory, smtp):
    """ "No notice is lost ... also across restarts": a row a dead sender left in
    "sending" is taken over once its lease has run out, with its Message-ID.
    """
    (notice,) = queue(db)
    notice.status = "sending"
    notice.claimed_by = "dead:1234"
    notice.next_attempt_at = NOW - MINUTE  # the lease ran out
    db.flush()
    report = deliver(factory, smtp.settings, NOW, worker="alive:1")
    assert report.sent == 1
    (received,) = smtp.mailbox.received
    assert received.message_id == notice.message_id
    fresh(db, notice)
    assert notice.status == "sent"
    assert notice.claimed_by is None
    assert notice.sent_at == NOW


def test_a_server_that_never_answers_times_out_and_is_retried(db, factory):
    """ "Every SMTP call has a timeout"."""
    (notice,) = queue(db)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)  # accepts connections (backlog) but never greets
        started = time.monotonic()
        report = deliver(factory, settings_for(mute.getsockname()[1], timeout=0.5), NOW)
        elapsed = time.monotonic() - started
    assert report.retried == 1
    assert elapsed < 5
    assert fresh(db, notice).status == "pending"


@pytest.mark.parametrize(
    "extra", [{"starttls": True}, {"username": "tracker", "password": "secret"}]
)
def test_a_server_without_starttls_or_auth_gets_nothing_in_clear(db, factory, smtp, extra):
    """Settings that ask for STARTTLS or a login never fall back to sending without them."""
    (notice,) = queue(db)
    settings = dataclasses.replace(smtp.settings, **extra)
    assert deliver(factory, settings, NOW).retried == 1
    assert smtp.mailbox.received == []
    fresh(db, notice)
    assert notice.status == "pending"
    assert "cannot connect" in notice.last_error


def test_non_ascii_names_travel_in_headers_and_bodies(db, factory, smtp):
    boss = factories.engineer(db, name="Måns Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)
    who, cert = holder(db, name="Zoë Ørsted", team=crew, level=2)
    plan(db, DAY30, WINDOWS, MAIL)
    escalation = row(db, cert.id, "escalation")
    assert deliver(factory, smtp.settings, NOW).failed == 0
    (received,) = smtp.mailbox.by_message_id()[escalation.message_id]
    assert received.subject == escalation.subject
    assert received.subject.startswith("Escalation: Zoë Ørsted's NCA-AIIO")
    assert received.rcpt_tos == [boss.email, who.email]
    assert "Zoë Ørsted" in received.message.get_body(("plain",)).get_content()


def test_a_non_ascii_address_goes_out_with_smtputf8_where_the_server_offers_it(db, factory):
    """An address that is not ASCII needs the server's SMTPUTF8, which smtplib asks for."""
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port, enable_SMTPUTF8=True)
    controller.start()
    try:
        holder(db, name="Zoë Ørsted", email="zoë@example.com")
        holder(db, name="Ann Plain", email="ann@example.com")
        plan(db, days_before(60), WINDOWS, MAIL)
        report = deliver(factory, settings_for(port), NOW)
    finally:
        controller.stop()
    assert (report.sent, report.retried, report.failed) == (2, 0, 0)
    by_rcpt = {tuple(r.rcpt_tos): r for r in mailbox.received}
    assert set(by_rcpt) == {("zoë@example.com",), ("ann@example.com",)}
    assert by_rcpt[("zoë@example.com",)].message["To"] == "zoë@example.com"
    assert "Ann Plain" in by_rcpt[("ann@example.com",)].message.get_body(("plain",)).get_content()


def test_a_notice_still_pending_when_the_certification_is_renewed_is_not_sent(
    db, factory, smtp, smtp_down
):
    """An outage holds the 30-day reminder; the engineer renews before SMTP is back.

    The stale "your certification expires in 30 days" must not reach them after
    the renewal.
    """
    who, _ = holder(db)
    plan(db, DAY30, WINDOWS, MAIL)
    deliver(factory, smtp_down, NOW)
    renewed_on = DAY30 + DAY
    record_attempt(db, who, factories.exam(db, "NCA-AIIO"), renewed_on, 85, True, today=renewed_on)
    deliver(factory, smtp.settings, NOW + DAY, force=True)
    assert smtp.mailbox.received == []
