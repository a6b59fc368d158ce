"""Readiness revisions: every change that can move a team's readiness bumps its revision.

The reminder pass re-judges the lapses of a team only when its revision moved
(a lapse that would drop the team's readiness is escalated to the manager at
once), so a change that the revision misses would delay an
escalation; a change that bumps it needlessly only costs a re-judgement.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tracker.people.models import JobRoleAssignment, Team


def revision(db: Session, team: Team) -> int:
    return db.scalar(select(Team.readiness_revision).where(Team.id == team.id))


@pytest.fixture
def crew(db: Session) -> Team:
    return factories.team(db, gpus=64)


def test_a_new_team_is_not_judged_yet(db: Session, crew: Team) -> None:
    judged = db.scalar(select(Team.judged_revision).where(Team.id == crew.id))
    assert revision(db, crew) != judged


def test_a_new_member_bumps_the_team(db: Session, crew: Team) -> None:
    before = revision(db, crew)
    factories.engineer(db, team=crew)
    assert revision(db, crew) > before


def test_a_certification_bumps_its_holders_team(db: Session, crew: Team) -> None:
    who = factories.engineer(db, team=crew)
    before = revision(db, crew)
    cert = factories.certification(db, who, "NCA-AIIO", dt.date(2025, 1, 1), dt.date(2027, 1, 1))
    assert revision(db, crew) == before + 1
    cert.expires_on = dt.date(2026, 12, 1)
    db.flush()
    assert revision(db, crew) == before + 2
    db.delete(cert)
    db.flush()
    assert revision(db, crew) == before + 3


@pytest.mark.parametrize(("field", "value"), [("level", 4), ("active", False)])
def test_a_members_level_or_leaving_bumps_the_team(
    db: Session, crew: Team, field: str, value: object
) -> None:
    who = factories.engineer(db, team=crew, level=2)
    before = revision(db, crew)
    setattr(who, field, value)
    db.flush()
    assert revision(db, crew) == before + 1


def test_moving_bumps_both_teams(db: Session, crew: Team) -> None:
    other = factories.team(db, gpus=64)
    who = factories.engineer(db, team=crew)
    before = revision(db, crew), revision(db, other)
    who.team = other
    db.flush()
    assert (revision(db, crew), revision(db, other)) == (before[0] + 1, before[1] + 1)


def test_a_job_role_ending_bumps_the_team(db: Session, crew: Team) -> None:
    who = factories.engineer(db, team=crew, job_roles=("operations",))
    before = revision(db, crew)
    (assignment,) = db.scalars(
        select(JobRoleAssignment).where(JobRoleAssignment.engineer_id == who.id)
    )
    assignment.ended_on = dt.date(2026, 11, 29)
    db.flush()
    assert revision(db, crew) == before + 1


def test_a_bigger_fleet_bumps_the_team(db: Session, crew: Team) -> None:
    before = revision(db, crew)
    crew.gpus = 500
    db.flush()
    assert revision(db, crew) == before + 1


def test_changes_readiness_does_not_read_leave_the_revision(db: Session, crew: Team) -> None:
    who = factories.engineer(db, team=crew)
    before = revision(db, crew)
    who.name = "Someone Else"
    crew.name = "Renamed"
    db.flush()
    assert revision(db, crew) == before
