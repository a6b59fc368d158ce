"""A notice names a certification's last valid day as the day it is valid through.

The stored `expires_on` is the last day a certification counts ("valid on its
expiry date and expired from the next day"): no notice, mail or feed may call
that day the one it lapses, expires or expired on.
"""

from __future__ import annotations

import re

import pytest
from icalendar import Calendar
from sqlalchemy.orm import Session

from tests import factories
from tests.reminders.helpers import DAY, EXPIRES, MAIL, WINDOWS, days_before, holder, outbox
from tracker.i18n import format_day
from tracker.reminders import calendars
from tracker.reminders.services.daily_pass import plan

# How each language may introduce the last valid day: the day it is valid
# through, or the day a renewal is due by.
BEFORE_THE_DAY = {
    "en": ("valid through ", "valid through <strong>", "again by "),
    "es": ("válida hasta el ", "válida hasta el <strong>", "como muy tarde el "),
}
# A lapse dated on the last valid day, in either language.
WRONG = re.compile(
    r"(expires|expired|lapses|lapsed) (on|in)\b|\b(vence|venció|caduca|caducó) (el|en)\b",
    re.IGNORECASE,
)
DATES = {"en": EXPIRES.isoformat(), "es": format_day(EXPIRES, "es")}


def _scene(db: Session, engineer: str, managers: str) -> None:
    own = factories.engineer(db, name="Own Boss", access_role="manager", locale=managers)
    lead = factories.engineer(db, name="Team Lead", access_role="manager", locale=managers)
    # The small template's two operations seats: the lapse leaves one no one can fill.
    crew = factories.team(db, gpus=64, manager=lead, name="Ops")
    holder(
        db,
        name="Ana Ops",
        team=crew,
        manager=own,
        level=2,
        job_roles=("operations",),
        locale=engineer,
    )


def _said(text: str, locale: str) -> list[str]:
    """Return what comes before each mention of the last valid day in `text`."""
    date = DATES[locale]
    return [text[max(0, m.start() - 30) : m.start()] for m in re.finditer(re.escape(date), text)]


def _assert_exact(text: str, locale: str, where: str) -> None:
    assert not WRONG.search(text), (where, WRONG.search(text))
    for before in _said(text, locale):
        assert before.endswith(BEFORE_THE_DAY[locale]), (where, before)


@pytest.mark.parametrize(("engineer", "managers"), [("en", "es"), ("es", "en")])
def test_every_notice_says_the_day_it_is_valid_through(db, engineer, managers):
    _scene(db, engineer, managers)
    for day in (days_before(90), days_before(30), EXPIRES + DAY):
        plan(db, day, WINDOWS, MAIL)
    notices = [n for n in outbox(db) if n.kind != "digest"]
    # Reminders, the expiry notice and the escalation, each with its copy in the other language.
    assert {(n.kind, n.locale) for n in notices} == {
        ("reminder", engineer),
        ("expired", engineer),
        ("escalation", engineer),
        ("copy", managers),
    }
    for notice in notices:
        where = f"{notice.dedupe_key}"
        assert _said(notice.subject, notice.locale), where
        for text in (notice.subject, notice.body_text or "", notice.body_html):
            _assert_exact(text, notice.locale, where)
        assert notice.ics is not None
        (event,) = Calendar.from_ical(notice.ics).walk("VEVENT")
        for value in (event["summary"], event["description"]):
            _assert_exact(str(value), notice.locale, where)
    # A digest lists each certification under its last valid day, as its heading says.
    digests = outbox(db, "digest")
    assert digests
    for digest in digests:
        for text in (digest.body_text or "", digest.body_html):
            assert not WRONG.search(text), WRONG.search(text)
            assert ("last valid day" if digest.locale == "en" else "último día de validez") in text


@pytest.mark.parametrize("locale", ["en", "es"])
def test_every_feed_event_says_the_day_it_is_valid_through(db, locale):
    manager = factories.engineer(db, access_role="manager", locale=locale)
    crew = factories.team(db, manager=manager)
    ana, _ = holder(db, team=crew, locale=locale)
    for feed in (calendars.engineer_feed(db, ana), calendars.team_feed(db, crew)):
        (event,) = Calendar.from_ical(feed).walk("VEVENT")
        assert event.decoded("dtstart") == EXPIRES
        for value in (event["summary"], event["description"]):
            _assert_exact(str(value), locale, str(value))
            assert ("valid through" if locale == "en" else "válida hasta") in str(value)
