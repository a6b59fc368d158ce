"""Every kind of notice, as a mail client and its recipients meet it.

Each message is delivered over real SMTP and read back with Python's strict
parser (RFC 5322 and MIME defects raise); it carries Date, Message-ID, From,
To and Subject; its text and HTML parts say the same; it has an attachment
exactly when its text mentions one; it greets the people it is addressed to;
and every link in it opens (200) for each of its recipients, signed in.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

import pytest
from flask import Flask
from icalendar import Calendar
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import PASSWORD
from tests.reminders.conftest import MAIL_FROM, SmtpServer
from tests.reminders.helpers import (
    BASE_URL,
    DAY,
    EXPIRES,
    MAIL,
    WINDOWS,
    days_before,
    holder,
    html_text,
    recipients,
    squeeze,
    strict,
    text_links,
)
from tracker.people.models import Engineer
from tracker.reminders import messages
from tracker.reminders.models import Notification
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver

# "Escalation: Ada Abe's NCA-AIIO is valid through 2027-03-01, then readiness drops" is
# just too long for one line: Python's folder broke it right after "Subject:".
ENGINEER = "Ada Abe"
OWN_MANAGER = "Zoë Ångström"
TEAM_MANAGER = "Bea <Boss> & Co"
TEAM = "R&D <Ops>"


# --- the scenes ---------------------------------------------------------------


def _send(db: Session, factory, smtp: SmtpServer, day: dt.date) -> dt.datetime:
    plan(db, day, WINDOWS, MAIL)
    db.flush()
    now = dt.datetime.combine(day, dt.time(8, 30))
    deliver(factory, smtp.settings, now)
    return now


def _organisation(db: Session) -> Engineer:
    """An engineer whose own manager is not their team's: every notice has two managers."""
    own = factories.engineer(db, name=OWN_MANAGER, access_role="manager")
    theirs = factories.engineer(db, name=TEAM_MANAGER, access_role="manager")
    # The small template's two operations seats: the lapse leaves one no one can fill.
    crew = factories.team(db, gpus=64, manager=theirs, name=TEAM)
    who, _ = holder(
        db, "NCA-AIIO", name=ENGINEER, team=crew, manager=own, level=2, job_roles=("operations",)
    )
    return who


Picked = Callable[[Notification], bool]

# Each kind: the day its pass runs, and which of that day's notices it is.
KINDS: dict[str, tuple[dt.date, Picked]] = {
    "reminder": (days_before(90), lambda n: n.kind == "reminder" and not n.cc_addrs),
    "expiry notice": (EXPIRES + DAY, lambda n: n.kind == "expired"),
    "manager copy": (days_before(30), lambda n: n.kind == "reminder" and bool(n.cc_addrs)),
    "escalation": (days_before(90), lambda n: n.kind == "escalation"),
    "digest": (days_before(90), lambda n: n.kind == "digest"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_of_notice_meets_the_mail_standards(
    kind: str, app: Flask, db: Session, factory, smtp: SmtpServer
):
    _organisation(db)
    day, picked = KINDS[kind]
    now = _send(db, factory, smtp, day)
    rows = {n.message_id: n for n in db.scalars(select(Notification)) if picked(n)}
    received = [r for r in smtp.mailbox.received if r.message_id in rows]
    assert received and len(received) == len(rows), kind
    people = {e.email: e for e in db.scalars(select(Engineer))}

    for delivery in received:
        message = strict(delivery.content)
        row = rows[str(message["Message-ID"])]

        # The header fields RFC 5322 asks for, and what they say.
        for name in ("Date", "Message-ID", "From", "To", "Subject"):
            assert message[name] is not None, f"{kind}: no {name}"
        # Automatic mail says so (RFC 3834): no autoresponder answers it.
        assert message["Auto-Submitted"] == "auto-generated", kind
        # Bulk mail, the digest alone, has a one-click unsubscribe (RFC 2369, RFC 8058).
        bulk = message["List-Unsubscribe"] is not None
        assert bulk == (message["List-Unsubscribe-Post"] is not None) == (kind == "digest"), kind
        assert message["Date"].datetime == now.replace(tzinfo=dt.UTC)
        assert re.fullmatch(r"<[^<>@\s]+@[^<>@\s]+>", str(message["Message-ID"]))
        assert str(message["From"]) == MAIL_FROM
        assert message["Subject"] == row.subject
        to, cc = recipients(message, "To"), recipients(message, "Cc")
        assert delivery.rcpt_tos == to + cc

        # The text and HTML parts say the same.
        text_part, html_part = message.get_body(("plain",)), message.get_body(("html",))
        assert text_part is not None and html_part is not None
        text, html = text_part.get_content(), html_part.get_content()
        said, html_links = html_text(html)
        assert squeeze(text) == said, kind
        assert text_links(text) == html_links

        # An attachment exactly when the text mentions one.
        attachments = list(message.iter_attachments())
        assert bool(attachments) == ("attached" in text), kind
        for attachment in attachments:
            assert attachment.get_content_type() == "text/calendar"
            # Its charset and method said on the part, as inside (RFC 6047): a reader
            # that decodes the text as the part says gets the same calendar.
            assert attachment.get_content_charset() == "utf-8", kind
            assert attachment.get_param("method") == "PUBLISH", kind
            calendar = Calendar.from_ical(attachment.get_content())
            assert calendar["method"] == "PUBLISH", kind

        # The greeting names everyone in To.
        greeting = text.splitlines()[0]
        assert greeting.startswith("Hello ") and greeting.endswith(",")
        for address in to:
            assert people[address].name in greeting, (kind, greeting)

        # Every link opens for every recipient.
        assert html_links, kind
        for address in to + cc:
            client = app.test_client()
            signed_in = client.post("/login", data={"email": address, "password": PASSWORD})
            assert signed_in.status_code == 302, address
            for link in html_links:
                assert link.startswith(BASE_URL + "/")
                response = client.get(link.removeprefix(BASE_URL))
                assert response.status_code == 200, (kind, people[address].name, link)


def test_the_escalation_greets_its_managers_and_copies_the_engineer(db, factory, smtp):
    who = _organisation(db)
    _send(db, factory, smtp, days_before(90))
    (escalation,) = [r for r in smtp.mailbox.received if r.subject.startswith("Escalation")]
    message = strict(escalation.content)
    assert recipients(message, "Cc") == [who.email]
    text = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert text.splitlines()[0] == f"Hello {OWN_MANAGER} and {TEAM_MANAGER},"
    assert f"{BASE_URL}/teams/" not in text  # a page the engineer in Cc may not open
    (attachment,) = list(message.iter_attachments())
    (event,) = Calendar.from_ical(attachment.get_payload(decode=True)).walk("VEVENT")
    assert event.decoded("dtstart") == EXPIRES
    assert str(event["summary"]) == f"{ENGINEER}: NCA-AIIO valid through this day"


# --- the subject ----------------------------------------------------------------


@pytest.mark.parametrize(
    "subject",
    [
        "Escalation: Ada Abe's NCA-AIIO is valid through 2027-03-01, then readiness drops",
        "Escalation: Jean-Baptiste Emmanuel de la Fontaine's NCP-AIN is valid through "
        "2027-03-01, then readiness drops",
        "Escalation: Zoë Ångström-Ölander van der Berg-Łukasiewicz's NCP-AII is valid through "
        "2027-03-01, then readiness drops",
        "(2026-03-01) x 30 and 30 (2026-03-01) 30 (2026-03-01) Escalation: Łukasiewicz's drops",
        "A" * 90 + " valid through this day",
        "Weekly digest: 3 certifications expiring within 90 days",
        "Looks encoded: =?utf-8?q?x?= but is not",
    ],
)
def test_a_strict_parser_reads_back_the_exact_subject(subject):
    """However the Subject is folded, unfolding gives it back: no leading or doubled space."""
    message = messages.build_email(
        mail_from=MAIL_FROM,
        to=["ada@example.com"],
        cc=[],
        subject=subject,
        text="text",
        html="<p>text</p>",
        message_id="<subject.test@tracker.example.com>",
        ics=None,
        date=dt.datetime(2027, 3, 1, 8),
    )
    raw = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    assert strict(raw)["Subject"] == subject
    head = raw.split(b"\r\n\r\n")[0].decode("ascii")
    assert head.startswith("Date: Mon, 01 Mar 2027 08:00:00 +0000\r\n")
    # No line longer than 78 characters unless one word is.
    assert all(len(line) <= 78 for line in head.splitlines()) or "A" * 90 in subject
