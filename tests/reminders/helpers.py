"""Scene builders and mail readers shared by the reminder tests."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import re
from email.message import EmailMessage
from html.parser import HTMLParser

from icalendar import Calendar
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import SECRET_KEY
from tests.reminders.conftest import SmtpServer
from tracker.audit.models import AccountEvent
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.reminders.models import Notification
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver
from tracker.reminders.services.queueing import Mail, PassReport
from tracker.reminders.services.windows import Windows

D = dt.date
DAY = dt.timedelta(days=1)
BASE_URL = "https://tracker.example.com"
# Signed with the suite's secret key: the digest's unsubscribe links open on the test app.
MAIL = Mail(base_url=BASE_URL, domain="tracker.example.com", signing_key=SECRET_KEY)
WINDOWS = Windows()
EXPIRES = D(2027, 3, 1)  # a Monday; the expiry most scenes use
EARNED = D(2025, 3, 1)
FAR = D(2030, 1, 1)


def days_before(n: int, expiry: dt.date = EXPIRES) -> dt.date:
    return expiry - dt.timedelta(days=n)


def holder(
    db: Session,
    code: str = "NCA-AIIO",
    expires_on: dt.date | None = EXPIRES,
    **engineer: object,
) -> tuple[Engineer, Certification]:
    """Create an engineer holding `code` until `expires_on`."""
    who = factories.engineer(db, **engineer)
    return who, factories.certification(db, who, code, EARNED, expires_on)


def _ops(db, crew, expires_on=EXPIRES, **extra):
    """Create a level-2 operations engineer of `crew` holding NCA-AIIO until `expires_on`."""
    return holder(
        db, "NCA-AIIO", expires_on, team=crew, level=2, job_roles=("operations",), **extra
    )


def run(db: Session, day: dt.date, windows: Windows = WINDOWS) -> PassReport:
    """Run the reminder pass for `day` on the test session."""
    return plan(db, day, windows, MAIL)


def outbox(db: Session, kind: str | None = None) -> list[Notification]:
    query = select(Notification).order_by(Notification.id)
    if kind is not None:
        query = query.where(Notification.kind == kind)
    return list(db.scalars(query))


def account_changes(db: Session, person: Engineer) -> list[AccountEvent]:
    """Return the trail's changes of the person's account (not their provisioning), oldest first."""
    return list(
        db.scalars(
            select(AccountEvent)
            .where(AccountEvent.engineer_id == person.id, AccountEvent.kind == "updated")
            .order_by(AccountEvent.id)
        )
    )


def windows_of(report: PassReport, cert: Certification) -> list[int | None]:
    """Return the windows queued for `cert` by one pass (reminders and expiry notices)."""
    return [
        n.window_days
        for n in report.queued
        if n.certification_id == cert.id and n.kind in ("reminder", "expired")
    ]


# --- a delivery's scene ---------------------------------------------------------


DAY30 = days_before(30)
NOW = dt.datetime.combine(DAY30, dt.time(8, 0))
MINUTE = dt.timedelta(minutes=1)


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


# --- mail in two languages --------------------------------------------------------


ANA = "Ana Álvarez"
CREDENTIAL = "NVIDIA Certified Associate - AI Infrastructure and Operations"


def _send(db: Session, factory, smtp: SmtpServer, day: dt.date, mail: Mail = MAIL) -> None:
    plan(db, day, WINDOWS, mail)
    db.flush()
    deliver(factory, smtp.settings, dt.datetime.combine(day, dt.time(8, 30)))


def _manager(db: Session, name: str, locale: str) -> Engineer:
    return factories.engineer(db, name=name, access_role="manager", locale=locale)


def notices(db: Session) -> list[Notification]:
    """Return the outbox but the digests: each notice, its copies after it, by window."""
    found = [n for n in outbox(db) if n.kind != "digest"]
    return sorted(found, key=lambda n: (n.created_at, n.kind == "copy", n.dedupe_key))


def _parts(message) -> tuple[str, str]:
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    return text, html


def _event(message):
    (attachment,) = list(message.iter_attachments())
    # As a mail reader decodes it: by the charset its part declares.
    (event,) = Calendar.from_ical(attachment.get_content()).walk("VEVENT")
    return event


def _assert_in_one_language(text: str, said: tuple[str, ...], unsaid: tuple[str, ...]) -> None:
    for phrase in said:
        assert phrase in text, phrase
    for phrase in unsaid:
        assert phrase not in text, phrase


# --- reading a message --------------------------------------------------------


class _Text(HTMLParser):
    """Collect an HTML body's words, a link as its text then <its address> (as in the text part)."""

    BLOCKS = frozenset({"p", "br", "ul", "ol", "table", "tr", "td", "th", "div", "h1", "h2"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self.links: list[str] = []
        self._href: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href.append(dict(attrs).get("href"))
        elif tag == "li":
            self.words.append(" - ")
        elif tag in self.BLOCKS:
            self.words.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            href = self._href.pop()
            if href:
                self.links.append(href)
                self.words.append(f" <{href}>")
        elif tag in self.BLOCKS or tag == "li":
            self.words.append(" ")

    def handle_data(self, data: str) -> None:
        self.words.append(data)


def squeeze(text: str) -> str:
    return " ".join(text.split())


def html_text(html: str) -> tuple[str, list[str]]:
    """Return the HTML part's normalised text and its links."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return squeeze("".join(parser.words)), parser.links


def text_links(text: str) -> list[str]:
    return re.findall(r"https?://[^\s<>]+", text)


def strict(content: bytes) -> EmailMessage:
    """Parse as a strict mail client would: any defect raises."""
    message = email.message_from_bytes(content, policy=email.policy.strict)
    assert isinstance(message, EmailMessage)
    for part in message.walk():
        assert not part.defects, part.defects
    return message


def recipients(message: EmailMessage, header: str) -> list[str]:
    field = message[header]
    return [] if field is None else [a.addr_spec for a in field.addresses]
