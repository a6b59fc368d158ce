"""The weekly digest: one per manager per ISO week, with their teams' stored readiness."""

from __future__ import annotations

import datetime as dt

from tests import factories
from tests.reminders.helpers import (
    DAY,
    EXPIRES,
    FAR,
    _ops,
    days_before,
    holder,
    run,
)
from tracker.readiness.models import StoredReadiness


def test_one_digest_per_manager_per_iso_week(db):
    """ "Managers get a weekly digest of their people's certifications
    expiring within 90 days and the readiness change each causes."
    """
    boss = factories.engineer(db, name="Boss", access_role="manager")
    other = factories.engineer(db, name="Other boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)
    who, _ = _ops(db, crew)
    holder(db, "CKA", EXPIRES + 10 * DAY, manager=other)
    holder(db, "RHCE", FAR, manager=other)  # beyond 90 days: not in a digest
    # 2027-01-25 is a Monday; the week runs to Sunday 2027-01-31.
    monday = dt.date(2027, 1, 25)
    digests = []
    for offset in range(8):
        digests += [n for n in run(db, monday + offset * DAY).queued if n.kind == "digest"]
    assert sorted((d.to_addrs, d.dedupe_key.rsplit(":", 1)[1]) for d in digests) == [
        (boss.email, "2027-W04"),
        (boss.email, "2027-W05"),
        (other.email, "2027-W04"),
        (other.email, "2027-W05"),
    ]
    first = next(d for d in digests if d.to_addrs == boss.email)
    assert first.subject.startswith("Weekly digest")
    assert who.name in first.body_text and "NCA-AIIO" in first.body_text
    assert "readiness impact" in first.body_text and "seats no one else can fill" in (
        first.body_text
    )
    assert first.cc_addrs == ""
    theirs = next(d for d in digests if d.to_addrs == other.email)
    assert "CKA" in theirs.body_text and "RHCE" not in theirs.body_text


def test_the_digest_shows_the_managers_teams_readiness_as_stored(db):
    """Read from the stored readiness, brought to the pass's day first: the
    certification still valid on the Monday fills its seat."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss, name="Crew")
    factories.team(db, gpus=64, name="Not hers")
    _ops(db, crew)
    monday = dt.date(2027, 1, 25)
    (digest,) = [n for n in run(db, monday).queued if n.kind == "digest"]
    assert "Your teams' readiness today:" in digest.body_text
    assert f"- Crew <https://tracker.example.com/teams/{crew.id}>: 1 of 4 seats filled (25%)" in (
        digest.body_text
    )
    assert "Not hers" not in digest.body_text
    assert (
        f'<a href="https://tracker.example.com/teams/{crew.id}">Crew</a>: 1 of 4'
        in digest.body_html
    )
    stored = db.get(StoredReadiness, crew.id)
    assert (stored.computed_on, stored.filled) == (monday, 1)


def test_the_digest_week_is_the_iso_week_across_the_new_year(db):
    """2026-12-31 and 2027-01-01 both fall in ISO week 2026-W53: one digest."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    holder(db, manager=boss)
    keys = [
        n.dedupe_key
        for day in (dt.date(2026, 12, 31), dt.date(2027, 1, 1), dt.date(2027, 1, 4))
        for n in run(db, day).queued
        if n.kind == "digest"
    ]
    assert keys == [f"digest:{boss.id}:2026-W53", f"digest:{boss.id}:2027-W01"]


def test_no_digest_without_upcoming_expiries(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    holder(db, expires_on=FAR, manager=boss)
    assert run(db, days_before(30)).count("digest") == 0
