"""The reminder and the expiry notice as delivered: subject, parts, renewal steps, Message-ID."""

from __future__ import annotations

import re
from decimal import Decimal

from icalendar import Calendar

from tests import factories
from tests.reminders.conftest import MAIL_FROM
from tests.reminders.helpers import (
    BASE_URL,
    DAY,
    EXPIRES,
    MAIL,
    NOW,
    WINDOWS,
    days_before,
    fresh,
    holder,
    queue,
    row,
)
from tracker.outbox import RETRY_BASE
from tracker.progress.services.hours import log_hours
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver


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
