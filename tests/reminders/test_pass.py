"""How the daily pass stays cheap without missing anything (the pass within 1.5x of a
raw query) and an escalation still goes out "at once".

Lapses are judged per team when the team's readiness revision moved or the
catalog changed, and kept; reminders are queued first and composed after.
"""

from __future__ import annotations

import datetime as dt

import pytest
from icalendar import Calendar
from sqlalchemy import select, text

from tests import factories
from tests.reminders.helpers import (
    DAY,
    EXPIRES,
    MAIL,
    WINDOWS,
    _ops,
    days_before,
    holder,
    outbox,
    run,
)
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.people.models import Engineer
from tracker.readiness.services.lapses import judge_lapses
from tracker.reminders.services.composing import compose_notices
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.reminders_sql import reminders_statement
from tracker.reminders.services.windows import parse_windows


def test_a_lapse_judged_long_before_escalates_when_its_first_window_opens(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)
    _, cert = _ops(db, crew)
    assert run(db, days_before(200)).count() == 0  # judged: not in reach yet
    assert judge_lapses(db, days_before(91), WINDOWS.expired_grace_days) == 0  # nothing moved since
    report = run(db, days_before(90))
    assert sorted(n.kind for n in report.queued if n.certification_id == cert.id) == [
        "escalation",
        "reminder",
    ]


def test_the_pass_judges_again_only_the_teams_whose_readiness_moved(db):
    first, second = factories.team(db, gpus=64), factories.team(db, gpus=64)
    _ops(db, first)
    _ops(db, second)
    run(db, days_before(100))
    assert judge_lapses(db, days_before(99), WINDOWS.expired_grace_days) == 0
    factories.engineer(db, team=second)
    assert judge_lapses(db, days_before(99), WINDOWS.expired_grace_days) == 1


def test_a_catalog_change_is_judged_at_the_next_pass(db):
    """A template that starts asking for a credential makes its last holder's lapse drop
    readiness: the next pass escalates it, though no team changed."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)  # the small template asks for no CKA
    holder(db, "CKA", team=crew, level=2)
    assert run(db, days_before(60)).count("escalation") == 0
    small = db.scalars(select(TeamTemplate).order_by(TeamTemplate.min_gpus)).first()
    small.team_credentials.append(factories.credential(db, "CKA"))
    db.flush()
    (escalation,) = [n for n in run(db, days_before(59)).queued if n.kind == "escalation"]
    assert "last valid CKA" in escalation.body_text


def test_the_weekly_digests_go_out_at_the_weeks_first_pass_only(db):
    """ "Managers get a weekly digest": a manager whose first expiry comes
    within 90 days in the middle of a week hears of it in the next week's digest."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    monday = dt.date(2027, 1, 25)
    holder(db, "CKA", monday + 92 * DAY, manager=boss)  # within 90 days from Wednesday
    digests = [
        n
        for offset in range(8)
        for n in run(db, monday + offset * DAY).queued
        if n.kind == "digest"
    ]
    assert [d.dedupe_key for d in digests] == [f"digest:{boss.id}:2027-W05"]


def test_the_scheduler_pass_queues_notices_without_text_and_composing_writes_it(db):
    who, cert = holder(db, manager=factories.engineer(db, name="Boss", access_role="manager"))
    report = plan(db, days_before(30), WINDOWS, MAIL, keep=False, compose=False)
    assert (report.queued, report.count("reminder")) == ([], 1)
    (row,) = outbox(db, "reminder")
    assert row.body_text is None and row.ics is None
    assert row.subject == f"NCA-AIIO valid through {EXPIRES.isoformat()} (30 days from today)"
    compose_notices(db, [row], MAIL)
    assert "30 days" in row.body_text and who.name in row.body_text
    assert "NCA-AIIO" in row.body_html
    (event,) = Calendar.from_ical(row.ics).walk("VEVENT")
    assert event.decoded("dtstart") == cert.expires_on


def test_composing_later_writes_what_composing_in_the_pass_writes(db):
    _, early = holder(db)
    _, late = holder(db)
    plan(db, days_before(7), WINDOWS, MAIL)  # composes in the pass
    queued = {n.certification_id: n for n in outbox(db, "reminder")}
    db.delete(queued[late.id])
    db.flush()
    plan(db, days_before(7), WINDOWS, MAIL, compose=False)
    (later,) = [n for n in outbox(db, "reminder") if n.certification_id == late.id]
    compose_notices(db, [later], MAIL)
    first = queued[early.id]

    def anonymous(text: str, who: Engineer) -> str:
        return text.replace(who.name, "X").replace(f"/engineers/{who.id}", "/engineers/X")

    for field in ("subject", "body_text", "body_html"):
        assert anonymous(getattr(later, field), late.engineer) == anonymous(
            getattr(first, field), early.engineer
        )


@pytest.mark.parametrize(
    ("own", "team_manager", "copied"),
    [
        (True, False, ["own"]),
        (False, True, ["team"]),
        (True, True, ["own", "team"]),
        ("same", "same", ["own"]),
        (False, "self", []),
        ("inactive", True, ["team"]),
    ],
)
def test_the_30_day_reminder_copies_each_active_manager_once(db, own, team_manager, copied):
    """docs/domain.md section 9: "From the 30-day window on, the engineer's manager is copied"
    (their own manager and their team's, once each, active ones, never themselves)."""
    mine = factories.engineer(db, name="Own boss", access_role="manager")
    lead = factories.engineer(db, name="Team lead", access_role="manager")
    crew = factories.team(
        db, gpus=64, manager=mine if team_manager == "same" else lead if team_manager else None
    )
    who, _ = holder(db, team=crew, manager=mine if own else None)
    if own == "inactive":
        mine.active = False  # deactivated after they were named manager
    if team_manager == "self":
        crew.manager = who
    db.flush()
    plan(db, days_before(30), WINDOWS, MAIL, keep=False, compose=False)
    (row,) = outbox(db, "reminder")
    addresses = {"own": mine.email, "team": lead.email}
    assert row.cc_addrs == ", ".join(addresses[c] for c in copied)
    assert row.to_addrs == who.email


def test_the_pass_compiles_nothing_just_in_time(db):
    """The planner costs the pass's statement by many more owed rows than a day has:
    past the JIT thresholds (large organisations), compiling it took a second."""
    if db.get_bind().dialect.name != "postgresql":
        pytest.skip("JIT: PostgreSQL only")
    holder(db)
    plan(db, days_before(30), WINDOWS, MAIL, keep=False, compose=False)
    assert db.execute(text("SHOW jit")).scalar() == "off"


def test_the_days_statement_stays_short_enough_for_the_drivers_parse_cache():
    # psycopg parses a statement's placeholders once and caches the result only
    # below 4,096 characters (psycopg._queries.MAX_CACHED_STATEMENT_LENGTH);
    # above, it parses again on every pass, which cost as much as a round trip.
    from sqlalchemy.dialects.postgresql.psycopg import dialect

    statement = reminders_statement(parse_windows("90,60,30,7"))
    assert len(statement.compile(dialect=dialect()).string) < 4096


def test_a_revoked_certification_is_not_reminded_of_its_expiry(db):
    """Its issuer revoked it: it counts for nothing, so no notice asks to renew it before
    it expires (nor tells its manager)."""
    manager = factories.engineer(db, name="Boss", access_role="manager")
    _, kept = holder(db, manager=manager)
    _, revoked = holder(db, manager=manager)
    revoked.revoked_on = days_before(40)
    db.flush()
    run(db, days_before(30))
    assert {n.certification_id for n in outbox(db, "reminder")} == {kept.id}
