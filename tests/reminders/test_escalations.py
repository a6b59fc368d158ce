"""Escalations: when a lapse leaves a seat no one else can fill, and the drop they name."""

from __future__ import annotations

from sqlalchemy import select

from tests import factories
from tests.reminders.helpers import (
    EARNED,
    FAR,
    WINDOWS,
    _ops,
    days_before,
    holder,
    run,
)
from tracker.readiness.models import LapseImpact
from tracker.readiness.services.lapses import judge_lapses


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
