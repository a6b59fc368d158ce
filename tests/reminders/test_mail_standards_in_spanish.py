"""Every kind of notice in Spanish meets the mail standards of test_mail_standards."""

from __future__ import annotations

import pytest
from icalendar import Calendar

from tests import factories
from tests.reminders.helpers import (
    ANA,
    DAY,
    EXPIRES,
    _assert_in_one_language,
    _manager,
    _parts,
    _send,
    days_before,
    holder,
    html_text,
    outbox,
    recipients,
    squeeze,
    strict,
    text_links,
)

KINDS = {
    "reminder": (days_before(90), lambda n: n.kind == "reminder"),
    "manager copy": (days_before(30), lambda n: n.kind == "copy"),
    "expiry notice": (EXPIRES + DAY, lambda n: n.kind == "expired"),
    "escalation": (days_before(90), lambda n: n.kind == "escalation"),
    "escalation copy": (days_before(90), lambda n: n.kind == "copy"),
    "digest": (days_before(90), lambda n: n.kind == "digest"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_of_spanish_notice_meets_the_mail_standards(kind, db, factory, smtp):
    """As test_mail_standards, in Spanish: headers, the parts say the same, the attachment,
    the greeting; the copies here are Spanish for Spanish managers of an English engineer."""
    spanish_engineer = kind not in ("manager copy", "escalation copy")
    own = _manager(db, "Zoë Ångström", "es")
    lead = _manager(db, "Bea <Boss> & Co", "es")
    crew = factories.team(db, gpus=64, manager=lead, name="R&D <Ops>")
    holder(
        db,
        name=ANA,
        team=crew,
        manager=own,
        level=2,
        job_roles=("operations",),
        locale="es" if spanish_engineer else "en",
    )
    day, picked = KINDS[kind]
    _send(db, factory, smtp, day)
    rows = {n.message_id: n for n in outbox(db) if picked(n)}
    received = [r for r in smtp.mailbox.received if r.message_id in rows]
    assert received and len(received) == len(rows), kind
    names = {own.email: own.name, lead.email: lead.name}

    for delivery in received:
        message = strict(delivery.content)
        row = rows[str(message["Message-ID"])]
        assert row.locale == "es"
        for name in ("Date", "Message-ID", "From", "To", "Subject"):
            assert message[name] is not None, f"{kind}: no {name}"
        assert message["Subject"] == row.subject
        to, cc = recipients(message, "To"), recipients(message, "Cc")
        assert delivery.rcpt_tos == to + cc

        text, html = _parts(message)
        said, html_links = html_text(html)
        assert squeeze(text) == said, kind
        assert text_links(text) == html_links and html_links
        attachments = list(message.iter_attachments())
        assert bool(attachments) == ("adjunto" in text), kind
        for attachment in attachments:
            Calendar.from_ical(attachment.get_payload(decode=True))

        lines = text.splitlines()
        if row.kind == "copy" and "reminder" in row.dedupe_key:
            assert lines[0].startswith(f"Copia del aviso enviado a {ANA} (")
            assert lines[2] == f"Hola, {ANA}:"
        else:
            assert lines[0].startswith("Hola, ") and lines[0].endswith(":")
            for address in to:
                assert names.get(address, ANA) in lines[0], (kind, lines[0])
        _assert_in_one_language(text, ("Hola", "Tracker, equipos"), ("Hello", "Tracker, certified"))
