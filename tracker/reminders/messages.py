"""Rendering notices: plain text and HTML in the reader's language, an iCalendar attachment."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime
from functools import cache, lru_cache
from typing import Any

from icalendar import Calendar, Event
from jinja2 import Environment, FileSystemLoader, select_autoescape

from tracker.config import PROJECT_ROOT
from tracker.i18n import (
    DEFAULT_LOCALE,
    LOCALES,
    before_code,
    format_day,
    format_hours,
    format_number,
    format_points,
    gettext,
    in_locale,
    translate,
    translations_for,
)
from tracker.people.rules import shown_name
from tracker.reminders.rules import ONE_CLICK_FIELD, ONE_CLICK_VALUE


def reader_locale(setting: str | None, default: str) -> str:
    """Return the language a person reads mail and feeds in: their setting, else `default`.

    Mail has no browser to ask, so "as my browser asks" (the empty setting)
    means the deployment's default (TRACKER_DEFAULT_LOCALE).
    """
    return setting if setting in LOCALES else default


def mail_day(day: dt.date, locale: str) -> str:
    """Write a date in a notice: 1 dic 2026 in Spanish; ISO (2026-12-01) in English.

    English mail keeps the ISO dates it has always carried (subjects people
    sort and search by); another language writes the locale's own date.
    """
    if locale == DEFAULT_LOCALE:
        return day.isoformat()
    return format_day(day, locale)


@cache
def _env(locale: str) -> Environment:
    # Plain Jinja, not Flask's: the reminder pass runs outside any request.
    # One environment per language, its catalogue and formats installed once.
    env = Environment(
        loader=FileSystemLoader(str(PROJECT_ROOT / "templates" / "email")),
        autoescape=select_autoescape(["html"]),
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(translations_for(locale), newstyle=True)  # type: ignore[attr-defined]
    # A digest writes hundreds of dates, day counts and percentages, mostly the
    # same few: Babel's formatting of each cost more than the rest of the template.
    env.filters["day"] = lru_cache(maxsize=1024)(lambda day: mail_day(day, locale))
    env.filters["number"] = lambda value: mail_number(value, locale)
    env.filters["hours"] = lambda value: format_hours(value, locale)
    env.filters["percent"] = lru_cache(maxsize=4096)(lambda value: format_points(value, locale))
    env.filters["tr"] = lambda text: translate(text, locale)
    # A catalog entry's name in the reader's language, as the pages' `named` shows it;
    # before "(CODE)" the name sheds the code a vendor wrote into it.
    env.filters["named"] = lambda entry, field=None: in_locale(entry, locale, field)
    env.filters["named_before_code"] = lambda entry: before_code(
        in_locale(entry, locale), entry.code
    )
    env.filters["person_name"] = lambda person: person_name(person, locale)
    env.globals["locale"] = locale
    return env


def person_name(person: Any, locale: str) -> str:
    """Write a person's name in a notice: an erased person's pseudonym in `locale`."""
    return translate(shown_name(person.id, person.name), locale)


def mail_number(value: Decimal | int, locale: str) -> str:
    """Write a number in a notice, grouped as the locale does (whole ones remembered)."""
    if type(value) is int:
        return _whole_number(value, locale)
    return format_number(value, locale)


@lru_cache(maxsize=4096)
def _whole_number(value: int, locale: str) -> str:
    return format_number(value, locale)


def render(name: str, locale: str, **context: object) -> tuple[str, str]:
    """Return the plain-text and HTML bodies of template `name`, written in `locale`."""
    env = _env(locale)
    return (
        env.get_template(f"{name}.txt").render(**context),
        env.get_template(f"{name}.html").render(**context),
    )


def expiry_summary(code: str, locale: str, who: str) -> str:
    """Return an expiry event's title: "Ada: NCA-AIIO valid through this day"."""
    return gettext("%(name)s: %(code)s valid through this day", locale, name=who, code=code)


def expiry_description(who: str, credential: str, locale: str) -> str:
    """Return an expiry event's description: whose certification is valid through the day."""
    return gettext(
        "%(name)s's %(credential)s is valid through this day.",
        locale,
        name=who,
        credential=credential,
    )


def expiry_calendar(event: Event) -> str:
    """Return an iCalendar document with the one all-day event."""
    calendar = Calendar()
    calendar.add("prodid", "-//tracker//certification expiry//EN")
    calendar.add("version", "2.0")
    # As the feeds say it: an event to keep, not an invitation to answer.
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add_component(event)
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


# An encoded word is at most 75 characters (RFC 2047 section 2).
_ENCODED_WORD = 75
_Q_LITERAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!*+-/")


def _q_encoded(char: str) -> str:
    if char == " ":
        return "_"
    if char in _Q_LITERAL:
        return char
    return "".join(f"={byte:02X}" for byte in char.encode())


def fold_unstructured(value: str, indent: int, width: int = 78, linesep: str = "\r\n") -> str:
    """Fold an unstructured header value (after `indent` characters) so that unfolding restores it.

    Python's own folder, for some values, puts a fold right after the colon or
    leaves a space before a fold; a strict parser then reads a leading or a
    doubled space. Plain ASCII is folded at single spaces only; anything else
    becomes a run of UTF-8 encoded words, whose folds a decoder drops.
    """
    if value.isascii() and "=?" not in value and "\r" not in value and "\n" not in value:
        lines: list[str] = []
        line, room = "", width - indent
        for index, word in enumerate(value.split(" ")):
            # Fold before a space between two words, so no line is only blanks.
            if index and word and line.strip() and len(line) + 1 + len(word) > room:
                lines.append(line)
                line, room = " " + word, width
            else:
                line = f"{line} {word}" if index else word
        return linesep.join([*lines, line])
    words: list[str] = []
    word, room = "", width - indent
    for char in value:
        encoded = _q_encoded(char)
        if word and len("=?utf-8?q??=") + len(word) + len(encoded) > min(room, _ENCODED_WORD):
            words.append(f"=?utf-8?q?{word}?=")
            word, room = "", width - 1
        word += encoded
    words.append(f"=?utf-8?q?{word}?=")
    return (linesep + " ").join(words)


# Written as given, on one line (RFC 5322 allows 998 characters): an angle-bracketed
# URL is no text to fold, and Python's folder encodes a long one as encoded words,
# which no mail client reads as a URL (RFC 2369 section 2).
_UNFOLDED = frozenset({"list-unsubscribe", "list-unsubscribe-post"})


class _MailPolicy(EmailPolicy):
    """The default policy, with a Subject folded so that a strict parser reads it back exactly,
    and the List-Unsubscribe fields written as they are."""

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        kept = name.lower() == "subject" or name.lower() in _UNFOLDED
        if not kept or not isinstance(value, str):
            return super().header_store_parse(name, value)
        # Kept as given: parsing it now would decode what merely looks like an encoded word.
        if "\r" in value or "\n" in value:
            raise ValueError("Header values may not contain linefeed or carriage return characters")
        if name.lower() in _UNFOLDED and not value.isascii():
            raise ValueError(f"{name} must be ASCII: it is written unencoded")
        return name, value

    def fold(self, name: str, value: str) -> str:
        if name.lower() in _UNFOLDED:
            return f"{name}: {value}{self.linesep}"
        if name.lower() != "subject":
            return super().fold(name, value)
        return self._folded(name, str(value))

    def fold_binary(self, name: str, value: str) -> bytes:
        if name.lower() in _UNFOLDED:
            return f"{name}: {value}{self.linesep}".encode("ascii")
        if name.lower() != "subject":
            return super().fold_binary(name, value)
        return self._folded(name, str(value)).encode("ascii")

    def _folded(self, name: str, value: str) -> str:
        width = self.max_line_length or 998
        folded = fold_unstructured(value, len(name) + 2, width, self.linesep)
        return f"{name}: {folded}{self.linesep}"


MAIL_POLICY = _MailPolicy()


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
    date: dt.datetime,
    unsubscribe: str | None = None,
) -> EmailMessage:
    """Return the MIME message: text and HTML alternatives, plus the .ics when given.

    `date` is when it is sent (naive means UTC); `unsubscribe` is a bulk notice's
    one-click unsubscribe URL.
    """
    message = EmailMessage(policy=MAIL_POLICY)
    message["Date"] = format_datetime(date if date.tzinfo else date.replace(tzinfo=dt.UTC))
    message["From"] = mail_from
    message["To"] = ", ".join(to)
    if cc:
        message["Cc"] = ", ".join(cc)
    message["Subject"] = subject
    message["Message-ID"] = message_id
    # Sent by a program (RFC 3834): out-of-office replies and autoresponders leave it be.
    message["Auto-Submitted"] = "auto-generated"
    if unsubscribe:
        # Bulk mail only, and the weekly digest is the tracker's one: Gmail and Yahoo ask
        # bulk senders for a one-click unsubscribe (RFC 2369's header, RFC 8058's POST,
        # both to be covered by the relay's DKIM signature). Reminders, expiry notices,
        # escalations and their copies are about the reader's own certifications or
        # people, not a list anyone subscribes to: they carry no List-Unsubscribe.
        message["List-Unsubscribe"] = f"<{unsubscribe}>"
        message["List-Unsubscribe-Post"] = f"{ONE_CLICK_FIELD}={ONE_CLICK_VALUE}"
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    if ics:
        # Its charset said, or a reader takes its Spanish for ASCII; its method as inside.
        message.add_attachment(
            ics,
            subtype="calendar",
            charset="utf-8",
            filename="expiry.ics",
            params={"method": "PUBLISH"},
        )
    return message
