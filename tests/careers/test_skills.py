"""Specialities (docs/domain.md section 10): proficiency, history, confirmation, coverage."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tests.careers.conftest import People
from tracker.careers.models import SkillAssessment
from tracker.careers.services.ladder import can_manage
from tracker.careers.services.skills import (
    assess,
    can_assess,
    confirm,
    current_assessment,
    current_skills,
    find_speciality,
    skill_history,
    specialities,
    team_coverage,
)
from tracker.errors import ValidationError


def spec(db: Session, code: str):
    return find_speciality(db, code)


def test_the_catalog_lists_the_specialities_of_domain_section_ten(db: Session):
    codes = [s.code for s in specialities(db)]
    assert codes[:9] == [
        "infiniband-rdma",
        "parallel-fs-gds",
        "liquid-cooling",
        "nccl",
        "mig",
        "kubernetes",
        "multi-cloud",
        "security",
        "sustainability",
    ]
    assert set(codes[9:]) == {
        "quantum-classical",
        "neuromorphic",
        "optical-interconnect",
        "energy-recovery",
    }
    assert find_speciality(db, "NCCL").code == "nccl"
    assert find_speciality(db, "cobol") is None


def test_self_assessed_then_confirmed_keeps_the_history(db: Session, people: People):
    nccl = spec(db, "nccl")
    own = assess(db, people.junior, nccl, 2, people.junior)
    assert (own.proficiency, own.confirmed, own.assessed_by_id) == (2, False, people.junior.id)

    raised = assess(db, people.junior, nccl, 3, people.junior)
    confirmed = confirm(db, people.junior, nccl, people.manager)
    assert (confirmed.proficiency, confirmed.confirmed) == (3, True)
    assert confirmed.assessed_by_id == people.manager.id

    current = current_skills(db, [people.junior.id])[people.junior.id]
    assert current[nccl.id].id == confirmed.id
    history = skill_history(db, people.junior.id)
    assert [(r.proficiency, r.confirmed) for r in history] == [(3, True), (3, False), (2, False)]
    assert history[1].id == raised.id


def test_the_newest_row_counts_even_when_it_lowers_or_unconfirms(db: Session, people: People):
    mig = spec(db, "mig")
    assess(db, people.junior, mig, 4, people.manager)
    assess(db, people.junior, mig, 1, people.junior)
    current = current_assessment(db, people.junior.id, mig.id)
    assert (current.proficiency, current.confirmed) == (1, False)


def test_a_manager_or_admin_writing_confirms(db: Session, people: People):
    mig = spec(db, "mig")
    assert assess(db, people.junior, mig, 3, people.manager).confirmed
    assert assess(db, people.junior, mig, 3, people.admin).confirmed


def test_confirming_an_already_confirmed_proficiency_adds_no_row(db: Session, people: People):
    mig = spec(db, "mig")
    row = assess(db, people.junior, mig, 3, people.manager)
    assert confirm(db, people.junior, mig, people.manager).id == row.id
    assert len(skill_history(db, people.junior.id)) == 1


def test_confirming_needs_an_assessment_and_someone_else(db: Session, people: People):
    mig = spec(db, "mig")
    with pytest.raises(ValidationError) as caught:
        confirm(db, people.junior, mig, people.manager)
    assert "no proficiency in MIG partitioning to confirm" in caught.value.errors["speciality"]
    assess(db, people.junior, mig, 2, people.junior)
    with pytest.raises(ValidationError):
        confirm(db, people.junior, mig, people.junior)
    assert len(skill_history(db, people.junior.id)) == 1


@pytest.mark.parametrize("level", [-1, 5, "3", 2.5, True, None])
def test_a_proficiency_outside_zero_to_four_is_refused(db: Session, people: People, level):
    with pytest.raises(ValidationError) as caught:
        assess(db, people.junior, spec(db, "mig"), level, people.junior)
    assert "from 0 (none) to 4 (expert)" in caught.value.errors["level"]
    assert db.scalar(select(func.count()).select_from(SkillAssessment)) == 0


def test_who_may_assess_and_confirm(people: People):
    p = people
    assert can_assess(p.junior, p.junior)
    assert can_assess(p.manager, p.junior) and can_manage(p.manager, p.junior)
    assert can_assess(p.manager, p.report) and can_manage(p.manager, p.report)
    assert can_assess(p.admin, p.junior) and can_manage(p.admin, p.junior)
    assert not can_manage(p.junior, p.junior)
    assert not can_assess(p.senior, p.junior)
    assert not can_assess(p.other_manager, p.junior)
    assert not can_manage(p.other_manager, p.junior)


# --- coverage --------------------------------------------------------------------


def test_coverage_shows_single_points_of_failure(db: Session, people: People):
    p = people
    third = factories.engineer(db, name="Tess Third", team=p.team)
    ib, nccl, mig, cooling = (
        spec(db, c) for c in ("infiniband-rdma", "nccl", "mig", "liquid-cooling")
    )
    # InfiniBand: two holders at 3+ -> covered. NCCL: one at 4, one at 2 -> SPOF.
    assess(db, p.junior, ib, 3, p.junior)
    assess(db, p.senior, ib, 4, p.manager)
    assess(db, p.senior, nccl, 4, p.senior)
    assess(db, third, nccl, 2, third)
    # MIG: one at exactly 3 -> SPOF (the boundary). Cooling: was 3, now 2 -> nobody.
    assess(db, third, mig, 3, p.manager)
    assess(db, p.junior, cooling, 3, p.junior)
    assess(db, p.junior, cooling, 2, p.manager)
    # Someone outside the team does not count.
    assess(db, p.outsider, mig, 4, p.outsider)

    coverage = team_coverage(db, p.team)
    assert [m.name for m in coverage.members] == ["Jules Junior", "Sasha Senior", "Tess Third"]
    assert [s.code for s in coverage.single_points_of_failure] == ["nccl", "mig"]
    assert "liquid-cooling" in [s.code for s in coverage.uncovered]
    assert "infiniband-rdma" not in [s.code for s in coverage.uncovered]
    row = next(r for r in coverage.rows if r.speciality.code == "nccl")
    assert [m.name for m in row.holders] == ["Sasha Senior"]
    assert [(m.name, a.proficiency if a else None) for m, a in row.cells] == [
        ("Jules Junior", None),
        ("Sasha Senior", 4),
        ("Tess Third", 2),
    ]


def test_a_deactivated_member_leaves_the_coverage(db: Session, people: People):
    p = people
    nccl = spec(db, "nccl")
    assess(db, p.junior, nccl, 4, p.junior)
    assess(db, p.senior, nccl, 4, p.senior)
    assert team_coverage(db, p.team).single_points_of_failure == []
    p.senior.active = False
    db.flush()
    assert [s.code for s in team_coverage(db, p.team).single_points_of_failure] == ["nccl"]
