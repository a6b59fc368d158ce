"""Rendering notices: subject, plain text, HTML and an iCalendar attachment."""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage
from functools import cache

from icalendar import Calendar, Event
from jinja2 import Environment, FileSystemLoader, select_autoescape

from tracker.config import PROJECT_ROOT


@cache
def _env() -> Environment:
    # Plain Jinja, not Flask's: the reminder pass runs outside any request.
    return Environment(
        loader=FileSystemLoader(str(PROJECT_ROOT / "templates" / "email")),
        autoescape=select_autoescape(["html"]),
        keep_trailing_newline=True,
    )


def render(name: str, **context: object) -> tuple[str, str]:
    """Return the plain-text and HTML bodies of template `name`."""
    return (
        _env().get_template(f"{name}.txt").render(**context),
        _env().get_template(f"{name}.html").render(**context),
    )


def expiry_calendar(
    uid: str,
    summary: str,
    description: str,
    on: dt.date,
    url: str,
    stamp: dt.datetime | None = None,
) -> str:
    """Return an iCalendar document with one all-day event on `on`."""
    calendar = Calendar()
    calendar.add("prodid", "-//tracker//certification expiry//EN")
    calendar.add("version", "2.0")
    calendar.add_component(expiry_event(uid, summary, description, on, url, stamp))
    return calendar.to_ical().decode()


def expiry_event(
    uid: str,
    summary: str,
    description: str,
    on: dt.date,
    url: str,
    stamp: dt.datetime | None = None,
) -> Event:
    """Return an all-day event on `on`; `stamp` is when its information was made (UTC)."""
    event = Event()
    event.add("uid", uid)
    # DTSTAMP is when the event's information was created, not the event's day;
    # the certification's record time keeps it stable across feed downloads.
    stamp = stamp or dt.datetime(on.year, on.month, on.day)
    event.add("dtstamp", stamp.replace(tzinfo=dt.UTC))
    event.add("dtstart", on)
    event.add("dtend", on + dt.timedelta(days=1))
    event.add("summary", summary)
    event.add("description", description)
    event.add("url", url)
    event.add("transp", "TRANSPARENT")
    return event


def build_email(
    *,
    mail_from: str,
    to: list[str],
    cc: list[str],
    subject: str,
    text: str,
    html: str,
    message_id: str,
    ics: str | None,
) -> EmailMessage:
    """Return the MIME message: text and HTML alternatives, plus the .ics when given."""
    message = EmailMessage()
    message["From"] = mail_from
    message["To"] = ", ".join(to)
    if cc:
        message["Cc"] = ", ".join(cc)
    message["Subject"] = subject
    message["Message-ID"] = message_id
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    if ics:
        message.add_attachment(
            ics.encode(), maintype="text", subtype="calendar", filename="expiry.ics"
        )
    return message
