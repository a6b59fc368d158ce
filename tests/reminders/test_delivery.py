"""Delivering the outbox over real SMTP (aiosmtpd in the test process), and the message.

docs/domain.md section 9: "A failed delivery is kept and retried with back-off; a
permanent refusal (SMTP 5xx) is marked failed and shown to admins. No notice
is lost and none is sent twice, also across restarts and with more than one
scheduler."
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import socket
import threading
import time
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from aiosmtpd.controller import Controller
from icalendar import Calendar
from sqlalchemy import func, select, update
from sqlalchemy.exc import OperationalError

from tests import factories
from tests.live import free_port
from tests.reminders.conftest import MAIL_FROM, Mailbox, settings_for
from tests.reminders.helpers import BASE_URL, DAY, EXPIRES, MAIL, WINDOWS, days_before, holder
from tracker.clock import utcnow
from tracker.db import session_scope
from tracker.errors import ValidationError
from tracker.outbox import CLAIM_LEASE, RETRY_BASE
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.hours import log_hours
from tracker.reminders import jobs
from tracker.reminders.models import Notification
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import DeliveryReport, deliver, retry_failed
from tracker.reminders.services.marks import Marks, finish

DAY30 = days_before(30)
NOW = dt.datetime.combine(DAY30, dt.time(8, 0))
MINUTE = dt.timedelta(minutes=1)


@pytest.fixture
def factory(app, db):
    """The app's session factory, bound to the test's connection (savepoints)."""
    return app.extensions["tracker.sessions"]


def queue(db, day=DAY30, people=1, **engineer):
    """Create `people` holders of NCA-AIIO and run the pass for `day`; return their rows."""
    holders = [holder(db, **engineer) for _ in range(people)]
    plan(db, day, WINDOWS, MAIL)
    db.flush()
    return [row(db, cert.id) for _, cert in holders]


def row(db, certification_id, kind="reminder") -> Notification:
    found = db.scalars(
        select(Notification).where(
            Notification.certification_id == certification_id, Notification.kind == kind
        )
    ).one()
    db.refresh(found)
    return found


def fresh(db, notification: Notification) -> Notification:
    db.refresh(notification)
    return notification


# --- the message ----------------------------------------------------------------


def test_the_reminder_message_says_what_expires_when_and_how_to_renew(db, factory, smtp):
    """Plain text and HTML parts, a subject naming the certification and
    the days left, the expiry date, how to renew (which exam, which path courses are
    still open), a link to the app, and an .ics attachment for the expiry date.
    """
    who, cert = holder(db, name="Ada <Ops> & Co")
    log_hours(db, who, factories.course(db, "FDL"), days_before(40), Decimal(8), days_before(40))
    plan(db, days_before(25), WINDOWS, MAIL)
    notice = row(db, cert.id)
    report = deliver(factory, smtp.settings, NOW + 5 * DAY)
    assert report.sent == 1

    (received,) = smtp.mailbox.received
    message = received.message
    assert received.mail_from == MAIL_FROM
    assert received.rcpt_tos == [who.email]
    assert message["From"] == MAIL_FROM
    assert message["To"] == who.email
    assert message["Cc"] is None
    assert message["Subject"] == "NCA-AIIO valid through 2027-03-01 (25 days from today)"
    assert message["Message-ID"] == notice.message_id
    assert re.fullmatch(r"<[^<>@\s]+@tracker\.example\.com>", notice.message_id)

    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    for body in (text, html):
        assert "2027-03-01" in body
        assert "25 days from today" in body
        assert "Pass exam NCA-AIIO again by 2027-03-01" in body
        # Open courses of the Foundations path; FDL is complete.
        assert "Introduction to AI Infrastructure (0 of 16 h)" in body
        assert "GPU Architecture Essentials (0 of 24 h)" in body
        assert "Fundamentals of Deep Learning" not in body
    links = re.findall(r"https?://[^\s\"<>]+", text)
    assert links and all(link.startswith(BASE_URL + "/") for link in links)
    assert f'href="{BASE_URL}/' in html
    assert "Ada &lt;Ops&gt; &amp; Co" in html and "<Ops>" not in html
    assert "Hello Ada <Ops> & Co," in text

    (attachment,) = list(message.iter_attachments())
    assert attachment.get_content_type() == "text/calendar"
    assert attachment.get_filename() == "expiry.ics"
    calendar = Calendar.from_ical(attachment.get_payload(decode=True))
    (event,) = calendar.walk("VEVENT")
    assert event.decoded("dtstart") == EXPIRES
    assert event.decoded("dtend") == EXPIRES + DAY
    assert "NCA-AIIO" in str(event["summary"])
    assert str(event["url"]).startswith(BASE_URL)


def test_the_subject_counts_one_day_and_the_expiry_notice_says_expired(db, factory, smtp):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    _, soon = holder(db, manager=boss)
    plan(db, days_before(1), WINDOWS, MAIL)
    assert row(db, soon.id).subject == "NCA-AIIO valid through 2027-03-01 (1 day from today)"
    _, lapsed = holder(db, "CKA", expires_on=days_before(2), manager=boss)
    plan(db, days_before(1), WINDOWS, MAIL)
    expired = row(db, lapsed.id, "expired")
    assert expired.subject == "CKA valid through 2027-02-27 (lapsed)"
    deliver(factory, smtp.settings, NOW + 29 * DAY)
    message = next(r for r in smtp.mailbox.received if r.subject.startswith("CKA")).message
    assert message["Cc"] == boss.email
    text = message.get_body(("plain",)).get_content()
    assert "was valid through 2027-02-27" in text
    # Earned elsewhere: renewed with the issuer, not by an exam.
    assert "Renew Certified Kubernetes Administrator (CKA) with CNCF / Linux Foundation" in text


def test_the_message_id_is_stable_across_retries(db, factory, smtp):
    """A retried notice carries the same Message-ID, so mail systems can tell it apart."""
    (notice,) = queue(db)
    smtp.mailbox.data_reply = "451 try later"
    assert deliver(factory, smtp.settings, NOW).retried == 1
    smtp.mailbox.data_reply = None
    assert deliver(factory, smtp.settings, NOW + RETRY_BASE).sent == 1
    first, second = smtp.mailbox.attempts
    assert not first.accepted and second.accepted
    assert first.message_id == second.message_id == fresh(db, notice).message_id


# --- delivery -------------------------------------------------------------------


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


# --- more than one sender and pass (a separate database, threads) -----------------


def _scene(factory, people: int) -> None:
    with session_scope(factory) as session:
        for _ in range(people):
            holder(session)


def _in_threads(count: int, target) -> list[BaseException]:
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            target(index)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return errors


def test_two_concurrent_senders_deliver_each_notice_once(committing_db, smtp):
    """ "... none is sent twice, also ... with more than one scheduler." """
    _scene(committing_db, 16)
    with session_scope(committing_db) as session:
        assert plan(session, DAY30, WINDOWS, MAIL).count("reminder") == 16
    reports: dict[int, DeliveryReport] = {}

    def send(index: int) -> None:
        reports[index] = deliver(
            committing_db, smtp.settings, NOW, batch=2, worker=f"sender-{index}"
        )

    assert _in_threads(2, send) == []
    assert sum(r.sent for r in reports.values()) == 16
    assert sum(r.retried + r.failed for r in reports.values()) == 0
    by_id = smtp.mailbox.by_message_id()
    assert len(by_id) == 16
    assert all(len(v) == 1 for v in by_id.values())
    with committing_db() as session:
        rows = session.scalars(select(Notification)).all()
        assert {r.status for r in rows} == {"sent"}
        assert {r.message_id for r in rows} == set(by_id)


def _queue_reminders(factory, people: int) -> None:
    _scene(factory, people)
    with session_scope(factory) as session:
        assert plan(session, DAY30, WINDOWS, MAIL).count("reminder") == people


def test_each_row_is_marked_before_the_next_message_goes_out(separate_db, smtp, monkeypatch):
    """A sender that dies sends at most one message again: marks run beside the
    sending (in a thread of their own), but the previous row's mark has committed
    before the next message's DATA, however slow the database is.
    """
    _queue_reminders(separate_db, 4)
    mark = Marks._mark

    def slow_mark(self, statement, params):
        time.sleep(0.05)
        mark(self, statement, params)

    monkeypatch.setattr(Marks, "_mark", slow_mark)
    sent_at_data: list[int] = []
    handle_data = smtp.mailbox.handle_DATA

    async def counting(server, session, envelope):
        with separate_db() as db_session:
            sent_at_data.append(
                db_session.scalar(
                    select(func.count(Notification.id)).where(Notification.status == "sent")
                )
            )
        return await handle_data(server, session, envelope)

    monkeypatch.setattr(smtp.mailbox, "handle_DATA", counting)
    assert deliver(separate_db, smtp.settings, NOW).sent == 4
    assert sent_at_data == [0, 1, 2, 3]
    with separate_db() as session:
        assert set(session.scalars(select(Notification.status))) == {"sent"}


def test_a_mark_that_fails_stops_the_sender_before_the_next_message(separate_db, smtp, monkeypatch):
    _queue_reminders(separate_db, 3)

    def failing_mark(self, statement, params):
        raise OperationalError("UPDATE notifications ...", {}, Exception("database gone"))

    monkeypatch.setattr(Marks, "_mark", failing_mark)
    with pytest.raises(OperationalError):
        deliver(separate_db, smtp.settings, NOW)
    # The first message went out; its mark failed, so no other one followed it.
    assert len(smtp.mailbox.attempts) == 1
    with separate_db() as session:
        assert set(session.scalars(select(Notification.status))) == {"sending"}


def test_a_mark_the_database_refuses_is_raised_and_the_next_one_still_commits(committing_db):
    """On a connection of their own (PostgreSQL's in pipeline mode, SQLite's in a
    thread): a refused mark raises at the wait before the next message; the
    marks after it go through."""
    _queue_reminders(committing_db, 2)
    with session_scope(committing_db) as session:
        rows = session.execute(
            update(Notification)
            .values(status="sending", claimed_by="sender-1")
            .returning(Notification.id, Notification.attempts)
        ).all()
    first, second = sorted(rows)
    marks = Marks(committing_db)
    try:
        finish(marks, first, "sender-1", NOW, status="lost")  # not a status: refused
        with pytest.raises(Exception, match="status_known"):
            marks.wait()
        finish(marks, second, "sender-1", NOW, status="sent", sent_at=NOW, attempts=1)
        marks.wait()
    finally:
        marks.close()
    with committing_db() as session:
        statuses = dict(
            session.execute(select(Notification.id, Notification.status)).tuples().all()
        )
    assert statuses == {first.id: "sending", second.id: "sent"}


def test_two_concurrent_passes_queue_each_notice_once(committing_db):
    """ "Each (certification, window) is sent at most once, ever", also when two
    passes run at once (the unique key settles the race).
    """
    _scene(committing_db, 10)
    for day in (days_before(90), days_before(60), days_before(30), EXPIRES + DAY):
        counts: dict[int, int] = {}

        def run_pass(index: int, day: dt.date = day, counts: dict[int, int] = counts) -> None:
            with session_scope(committing_db) as session:
                counts[index] = plan(session, day, WINDOWS, MAIL).count()

        assert _in_threads(2, run_pass) == []
        assert len(counts) == 2 and sum(counts.values()) == 10, day
    with committing_db() as session:
        keys = session.scalars(select(Notification.dedupe_key)).all()
    assert len(keys) == 40 == len(set(keys))


# --- the jobs the scheduler and `tracker remind` run ------------------------------


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
