"""The reminder pass (docs/domain.md section 9): windows, collapse, renewals, copies, escalation.

Every test runs the pass as a plain function of a date on the rolled-back
test session and inspects the outbox rows it writes.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from tests import factories
from tests.reminders.helpers import (
    DAY,
    EARNED,
    EXPIRES,
    FAR,
    WINDOWS,
    days_before,
    holder,
    outbox,
    run,
    windows_of,
)
from tracker.errors import ValidationError
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.exam_plans import plan_exam
from tracker.readiness.models import LapseImpact, StoredReadiness
from tracker.readiness.services.lapses import judge_lapses
from tracker.reminders.rules import EXPIRED
from tracker.reminders.services.windows import Windows, parse_windows

# --- the window due on a day -------------------------------------------------


def window_due(db, day: dt.date, windows: Windows = WINDOWS) -> int | None:
    """Return the window one pass on `day` queues for a fresh certification expiring on EXPIRES."""
    _, cert = holder(db)
    queued = windows_of(run(db, day, windows), cert)
    assert len(queued) <= 1
    return queued[0] if queued else None


@pytest.mark.parametrize(
    ("left", "expected"),
    [
        (120, None),
        (91, None),
        (90, 90),
        (89, 90),
        (61, 90),
        (60, 60),
        (59, 60),
        (31, 60),
        (30, 30),
        (25, 30),
        (8, 30),
        (7, 7),
        (1, 7),
        (0, 7),
        (-1, EXPIRED),
        (-30, EXPIRED),
        (-31, None),
        (-400, None),
    ],
)
def test_the_window_due_is_a_range_opening_on_its_day(db, left, expected):
    """ "Default reminder windows: 90, 60, 30 and 7 days before expiry, and a notice on
    the day after expiry."

    Each window opens exactly on its day (not a day earlier) and stays due until
    the next, more urgent one opens; a pass 25 days before finds the 30-day
    window. The expiry day itself is still the 7-day window (valid through
    its expiry date), the expiry notice comes from the day after, and only
    within the grace period.
    """
    assert window_due(db, EXPIRES - dt.timedelta(days=left)) == expected


def test_the_expiry_day_is_not_the_expiry_notice(db):
    """A certification is valid through its expiry date: no expiry notice that day."""
    assert window_due(db, EXPIRES) == 7
    assert window_due(db, EXPIRES + DAY) == EXPIRED


def test_the_window_due_after_downtime_is_only_the_most_urgent(db):
    """ "If the scheduler was down across several windows, the next run sends only the
    most urgent window that is due, not a burst of stale ones."
    """
    # Down from 95 days before until 5 days before: 90, 60, 30 and 7 all passed.
    assert window_due(db, days_before(5)) == 7
    assert window_due(db, days_before(45)) == 60


def test_the_window_due_follows_configured_windows_and_grace(db):
    """ "Windows are configurable." """
    windows = Windows(before=(14, 3), expired_grace_days=2)
    assert window_due(db, days_before(15), windows) is None
    assert window_due(db, days_before(14), windows) == 14
    assert window_due(db, days_before(4), windows) == 14
    assert window_due(db, days_before(3), windows) == 3
    assert window_due(db, EXPIRES + 2 * DAY, windows) == EXPIRED
    assert window_due(db, EXPIRES + 3 * DAY, windows) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90,60,30,7", (90, 60, 30, 7)),
        ("7, 30 ,60,90", (90, 60, 30, 7)),
        ("30,30,7", (30, 7)),
        ("14", (14,)),
        ("90,,30,", (90, 30)),
    ],
)
def test_parse_windows_reads_distinct_days_most_distant_first(text, expected):
    assert parse_windows(text) == Windows(before=expected)


def test_an_empty_setting_means_the_default_windows():
    assert parse_windows("") == parse_windows("  ") == Windows()
    assert Windows().before == (90, 60, 30, 7)


@pytest.mark.parametrize("text", [" , ", "abc", "90,x", "0", "30,-7", "4000", "7.5"])
def test_parse_windows_refuses_anything_but_positive_day_counts(text):
    with pytest.raises(ValidationError) as caught:
        parse_windows(text)
    assert "windows" in caught.value.errors


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


# --- escalation ---------------------------------------------------------------


def _ops(db, crew, expires_on=EXPIRES, **extra):
    return holder(
        db, "NCA-AIIO", expires_on, team=crew, level=2, job_roles=("operations",), **extra
    )


def test_escalation_when_the_lapse_leaves_a_seat_no_one_else_can_fill(db):
    """ "A lapse that would drop the team's readiness (a slot no one else
    can fill ...) is escalated to the manager at once, named as such."
    """
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)  # small template: 2 operations seats
    who, cert = _ops(db, crew)
    report = run(db, days_before(90))
    (escalation,) = [n for n in report.queued if n.kind == "escalation"]
    assert escalation.certification_id == cert.id
    assert escalation.subject.startswith("Escalation")
    assert who.name in escalation.subject and "NCA-AIIO" in escalation.subject
    assert escalation.to_addrs == boss.email
    assert escalation.cc_addrs == who.email
    assert "seats no one else can fill" in escalation.body_text
    assert "Escalation" in escalation.body_html
    # Escalated once, not at every window.
    for n in (60, 30, 7):
        assert [q for q in run(db, days_before(n)).queued if q.kind == "escalation"] == []


def test_no_escalation_when_someone_else_fills_the_seat(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)
    _ops(db, crew)
    _ops(db, crew, expires_on=FAR)
    _ops(db, crew, expires_on=FAR)
    report = run(db, days_before(30))
    assert [n.kind for n in report.queued if n.kind == "escalation"] == []
    assert report.count("reminder") == 1


def test_escalation_fires_at_the_next_pass_once_the_lapse_starts_to_drop_readiness(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)
    _, cert = _ops(db, crew)
    _ops(db, crew, expires_on=FAR)
    leaving, _ = _ops(db, crew, expires_on=FAR)
    assert run(db, days_before(60)).count("escalation") == 0
    leaving.active = False  # now the lapse leaves an operations seat empty
    db.flush()
    (escalation,) = [n for n in run(db, days_before(59)).queued if n.kind == "escalation"]
    assert escalation.certification_id == cert.id


def test_no_escalation_when_another_of_their_certifications_still_fits(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)
    who, _ = _ops(db, crew)
    factories.certification(db, who, "NCP-AIO", EARNED, FAR)  # also NVIDIA-ASSOCIATE+
    assert run(db, days_before(30)).count("escalation") == 0


def test_no_escalation_for_a_certification_no_seat_needs(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss)
    holder(db, "CKA", team=crew, level=2)  # the small template asks for no CKA
    report = run(db, days_before(30))
    assert report.count("reminder") == 1
    assert report.count("escalation") == 0


def test_no_escalation_without_a_team(db):
    holder(db, level=2)
    assert run(db, days_before(30)).count("escalation") == 0


def test_escalation_for_the_last_valid_holder_of_a_team_wide_credential(db):
    """ "... or the last valid holder of a team-wide certification"."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=500, manager=boss)  # medium: CKA, RHCE, VCP-DCV team-wide
    holder(db, "CKA", team=crew, job_roles=("storage",))
    (escalation,) = [n for n in run(db, days_before(60)).queued if n.kind == "escalation"]
    assert "last valid CKA" in escalation.body_text
    assert escalation.to_addrs == boss.email


def test_no_escalation_when_another_member_still_holds_the_team_wide_credential(db):
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=500, manager=boss)
    holder(db, "CKA", team=crew, job_roles=("storage",))
    holder(db, "CKA", FAR, team=crew, job_roles=("storage",))
    assert run(db, days_before(60)).count("escalation") == 0


def test_readiness_impact_names_the_drop(db):
    crew = factories.team(db, gpus=64)
    _, cert = _ops(db, crew)
    assert judge_lapses(db, days_before(30), WINDOWS.expired_grace_days) >= 1
    impact = db.scalar(select(LapseImpact.impact).where(LapseImpact.certification_id == cert.id))
    assert "seats no one else can fill: 1 (0/4 instead of 1/4)" in impact


# --- weekly digest ------------------------------------------------------------


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
