"""Which reminders the pass queues: each window once, until a renewal or a planned exam."""

from __future__ import annotations

import datetime as dt

import pytest

from tests import factories
from tests.reminders.helpers import (
    DAY,
    EXPIRES,
    FAR,
    days_before,
    holder,
    outbox,
    run,
    windows_of,
)
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.exam_plans import plan_exam
from tracker.reminders.rules import EXPIRED
from tracker.reminders.services.windows import Windows

# --- the pass: one row per (certification, window) ----------------------------


def test_each_window_is_queued_once_on_its_own_day(db):
    """ "Each (certification, window) is sent at most once, ever."

    A pass every day from 100 days before to 5 days after the expiry queues
    each window exactly on its opening day and the expiry notice on the day
    after the expiry; no other day queues anything.
    """
    _, cert = holder(db)
    queued: dict[int | None, list[dt.date]] = {}
    day = days_before(100)
    while day <= EXPIRES + 5 * DAY:
        for window in windows_of(run(db, day), cert):
            queued.setdefault(window, []).append(day)
        day += DAY
    assert queued == {
        90: [days_before(90)],
        60: [days_before(60)],
        30: [days_before(30)],
        7: [days_before(7)],
        EXPIRED: [EXPIRES + DAY],
    }
    rows = outbox(db)
    assert sorted(r.dedupe_key for r in rows) == sorted(
        f"{'expired' if w == EXPIRED else 'reminder'}:{cert.id}:{w}" for w in queued
    )
    assert all(r.status == "pending" and r.attempts == 0 for r in rows)


@pytest.mark.parametrize("window", [90, 60, 30, 7, EXPIRED])
def test_a_second_pass_on_the_same_day_queues_nothing(db, window):
    """A rerun on the same day (or a restart) must not queue a notice twice."""
    _, cert = holder(db)
    day = EXPIRES + DAY if window == EXPIRED else days_before(window)
    assert windows_of(run(db, day), cert) == [window]
    assert run(db, day).count() == 0
    # Nor does the next day's pass: the window is still open, but already queued.
    assert run(db, day + DAY).count() == 0
    assert [r.window_days for r in outbox(db)] == [window]


def test_downtime_collapses_to_the_most_urgent_window(db):
    """ "If the scheduler was down across several windows, the next run sends only the
    most urgent window that is due, not a burst of stale ones."
    """
    _, cert = holder(db)
    assert windows_of(run(db, days_before(95)), cert) == []
    # Down from 95 to 55 days before: the 90-day window was missed for good.
    assert windows_of(run(db, days_before(55)), cert) == [60]
    assert windows_of(run(db, days_before(54)), cert) == []
    # Down again from 54 to 3 days before: only the 7-day window.
    assert windows_of(run(db, days_before(3)), cert) == [7]
    assert windows_of(run(db, EXPIRES + 10 * DAY), cert) == [EXPIRED]
    assert sorted(r.window_days for r in outbox(db)) == [EXPIRED, 7, 60]


def test_a_certification_that_lapsed_long_ago_gets_no_notice(db):
    """The expiry notice is for a recent lapse, not one from before the tracker ran."""
    holder(db)
    assert run(db, EXPIRES + 31 * DAY).count() == 0
    assert run(db, EXPIRES + 30 * DAY).count() == 1


def test_a_certification_without_expiry_or_a_former_engineer_gets_no_reminder(db):
    holder(db, "RHCE", expires_on=None)
    gone, _ = holder(db)
    gone.active = False
    db.flush()
    for n in (90, 30, 7, -1):
        assert run(db, days_before(n)).count() == 0
    assert outbox(db) == []


def test_configured_windows_are_used(db):
    """ "Windows are configurable." """
    _, cert = holder(db)
    windows = Windows(before=(14,))
    assert windows_of(run(db, days_before(30), windows), cert) == []
    assert windows_of(run(db, days_before(14), windows), cert) == [14]
    assert windows_of(run(db, days_before(1), windows), cert) == []
    assert windows_of(run(db, EXPIRES + DAY, windows), cert) == [EXPIRED]


# --- renewal ------------------------------------------------------------------


def test_a_renewal_stops_reminders_for_the_old_certification(db):
    """ "A renewed certification (a newer pass of the same exam) stops all further
    reminders for the older one."
    """
    who, old = holder(db)
    assert windows_of(run(db, days_before(90)), old) == [90]
    renewed_on = days_before(70)
    attempt = record_attempt(
        db, who, factories.exam(db, "NCA-AIIO"), renewed_on, 80, True, today=renewed_on
    )
    new = attempt.certification
    assert new.renews_id == old.id
    for day in (days_before(60), days_before(30), days_before(7), EXPIRES + DAY):
        report = run(db, day)
        assert windows_of(report, old) == []
        assert windows_of(report, new) == []
    assert [r.certification_id for r in outbox(db)] == [old.id]


def test_a_failed_renewal_attempt_does_not_stop_reminders(db):
    who, old = holder(db)
    day = days_before(40)
    record_attempt(db, who, factories.exam(db, "NCA-AIIO"), day, 40, False, today=day)
    assert windows_of(run(db, days_before(30)), old) == [30]


def test_a_renewed_credential_earned_elsewhere_stops_reminders(db):
    from tracker.progress.services.certifications import record_credential

    who, old = holder(db, "CKA")
    assert windows_of(run(db, days_before(60)), old) == [60]
    record_credential(
        db,
        who,
        factories.credential(db, "CKA"),
        days_before(50),
        today=days_before(50),
        evidence="cert no. 2",
        expires_on=FAR,
    )
    assert run(db, days_before(30)).count() == 0


# --- manager copies -----------------------------------------------------------


def test_the_manager_is_copied_from_the_30_day_window_on(db):
    """ "From the 30-day window on, the engineer's manager is copied."

    Both the engineer's own manager and their team's manager are copied; the
    90- and 60-day reminders go to the engineer alone.
    """
    boss = factories.engineer(db, name="Boss", access_role="manager")
    lead = factories.engineer(db, name="Lead", access_role="manager")
    crew = factories.team(db, gpus=0, manager=lead)
    who, cert = holder(db, team=crew, manager=boss)
    copies = {}
    for window, day in ((90, 90), (60, 60), (30, 30), (7, 7), (EXPIRED, -1)):
        (row,) = [n for n in run(db, days_before(day)).queued if n.certification_id == cert.id]
        assert row.window_days == window
        assert row.to_addrs == who.email
        copies[window] = row.cc_addrs
    assert copies[90] == copies[60] == ""
    for window in (30, 7, EXPIRED):
        assert sorted(copies[window].split(", ")) == sorted([boss.email, lead.email])


def test_a_manager_who_is_both_is_copied_once_and_an_inactive_one_not(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=0, manager=boss)
    holder(db, team=crew, manager=boss)
    (row,) = [n for n in run(db, days_before(30)).queued if n.kind == "reminder"]
    assert row.cc_addrs == boss.email
    boss.active = False
    db.flush()
    (row,) = [n for n in run(db, days_before(7)).queued if n.kind == "reminder"]
    assert row.cc_addrs == ""


# --- acknowledgement ----------------------------------------------------------


def test_planning_the_renewal_exam_pauses_reminders_until_the_planned_date_passes(db):
    """Planning the renewal exam on a date stops the intermediate
    reminders; they resume if the planned date passes without a pass.
    """
    who, cert = holder(db)
    assert windows_of(run(db, days_before(90)), cert) == [90]
    planned = days_before(20)
    plan_exam(db, who, factories.exam(db, "NCA-AIIO"), planned, days_before(70), renews=cert)
    for n in (60, 45, 30, 25, 20):
        assert windows_of(run(db, days_before(n)), cert) == [], n
    # The planned day passed without a pass: the most urgent open window comes.
    assert windows_of(run(db, days_before(19)), cert) == [30]
    assert windows_of(run(db, days_before(7)), cert) == [7]
    assert windows_of(run(db, EXPIRES + DAY), cert) == [EXPIRED]


def test_a_plan_after_the_expiry_does_not_pause_reminders(db):
    """Reminders resume when the planned date falls after the expiry."""
    who, cert = holder(db)
    exam = factories.exam(db, "NCA-AIIO")
    plan_exam(db, who, exam, EXPIRES + DAY, days_before(70), renews=cert)
    assert windows_of(run(db, days_before(60)), cert) == [60]
    # Moving the plan before the expiry pauses; moving it after resumes.
    plan_exam(db, who, exam, days_before(10), days_before(40))
    assert windows_of(run(db, days_before(30)), cert) == []
    plan_exam(db, who, exam, EXPIRES + 5 * DAY, days_before(20))
    assert windows_of(run(db, days_before(20)), cert) == [30]


def test_a_plan_for_another_exam_does_not_acknowledge(db):
    who, cert = holder(db)
    plan_exam(db, who, factories.exam(db, "NCP-AIO"), days_before(10), days_before(70))
    assert windows_of(run(db, days_before(60)), cert) == [60]


def test_a_renewal_pass_on_the_planned_date_ends_reminders(db):
    who, cert = holder(db)
    exam = factories.exam(db, "NCA-AIIO")
    plan_exam(db, who, exam, days_before(20), days_before(40), renews=cert)
    assert run(db, days_before(30)).count() == 0
    record_attempt(db, who, exam, days_before(20), 90, True, today=days_before(20))
    for n in (19, 7, -1):
        assert run(db, days_before(n)).count() == 0
    assert outbox(db) == []
