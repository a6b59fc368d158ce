"""The ladder (docs/domain.md section 1): each rule on its boundary, groups, evidence, history.

Level 2: a valid NCA-AIIO and 6 months. Level 3: a valid NCP-AII, an NVIDIA
networking certification and 12 months. Level 4: 24 months and a vendor expert
credential. Level 5: 48 months and recorded evidence. Experience = documented
months before joining + whole months since the hire date.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import SEED
from tracker.careers.models import Evidence
from tracker.careers.rules import EVIDENCE_KINDS, EVIDENCE_REASON
from tracker.careers.services.evidence import record_evidence
from tracker.careers.services.ladder import career as career_of
from tracker.careers.services.ladder import change_level, promotions
from tracker.catalog.models.levels import Level
from tracker.catalog.services.seed_loading import load_seed
from tracker.errors import ValidationError
from tracker.people.models import LevelChange
from tracker.people.services.reads import level_history

D = dt.date
TODAY = factories.TODAY  # 2026-11-29
FAR = D(2030, 1, 1)


HIRED = D(2020, 1, 1)


def person(db: Session, level: int = 1, hired: dt.date | None = HIRED, months: int = 0, **kw):
    return factories.engineer(db, level=level, hired_on=hired, experience_months=months, **kw)


def lacks(db: Session, who, on: dt.date = TODAY) -> list[str]:
    return career_of(db, who, on).lacks


# --- experience ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("months", "held", "level"),
    [
        (0, (), 1),
        (14, (), 1),  # level 2 asks for a valid NCA-AIIO too
        (5, ("NCA-AIIO",), 1),
        (6, ("NCA-AIIO",), 2),
        (14, ("NCA-AIIO", "NCP-AII"), 2),  # level 3 asks for a networking one too
        (14, ("NCA-AIIO", "NCP-AII", "NVIDIA-NETWORKING"), 3),
        (70, ("NCA-AIIO", "NCP-AII", "NVIDIA-NETWORKING", "VENDOR-EXPERT"), 4),  # no evidence
        (70, ("VENDOR-EXPERT",), 4),  # each level's rule stands on its own
    ],
)
def test_the_rules_give_the_highest_level_whose_rule_is_met(db: Session, months, held, level):
    who = person(db, hired=None, months=months)
    for code in held:
        factories.certification(db, who, code, D(2026, 1, 1), FAR)
    db.flush()
    assert career_of(db, who, TODAY).rule_level == level


@pytest.mark.parametrize(
    ("level", "held", "rule", "level_lacks"),
    [
        (2, (), 1, ["a valid NCA-AIIO"]),  # above: what its own rule lacks
        (1, ("NCA-AIIO",), 2, []),  # below: a promotion the rules allow
        (2, ("NCA-AIIO",), 2, []),
    ],
)
def test_a_career_says_whether_the_level_held_is_the_rules(
    db: Session, level, held, rule, level_lacks
):
    who = person(db, level=level, hired=None, months=14)
    for code in held:
        factories.certification(db, who, code, D(2026, 1, 1), FAR)
    db.flush()
    found = career_of(db, who, TODAY)
    assert found.rule_level == rule
    assert found.level_differs == (rule != level)
    assert [str(m) for m in found.level_lacks] == (level_lacks if rule < level else [])


def test_level_two_is_met_on_the_day_experience_reaches_six_months(db: Session):
    who = person(db, hired=D(2026, 5, 29))
    factories.certification(db, who, "NCA-AIIO", D(2026, 6, 1), FAR)

    before = career_of(db, who, D(2026, 11, 28))
    assert before.experience_months == 5
    assert before.next_level.number == 2
    assert not before.meets_next_level
    assert before.lacks == ["6 months of experience (has 5)"]

    on_the_day = career_of(db, who, D(2026, 11, 29))
    assert on_the_day.experience_months == 6
    assert on_the_day.meets_next_level
    assert on_the_day.lacks == []


def test_documented_months_before_joining_count(db: Session):
    who = person(db, hired=D(2026, 9, 29), months=4)
    factories.certification(db, who, "NCA-AIIO", D(2026, 10, 1), FAR)
    assert career_of(db, who, D(2026, 11, 28)).lacks == ["6 months of experience (has 5)"]
    assert career_of(db, who, D(2026, 11, 29)).meets_next_level


def test_a_hire_on_the_31st_reaches_a_month_at_the_end_of_a_shorter_month(db: Session):
    who = person(db, hired=D(2026, 5, 31))
    factories.certification(db, who, "NCA-AIIO", D(2026, 6, 1), FAR)
    assert career_of(db, who, D(2026, 11, 29)).experience_months == 5
    assert career_of(db, who, D(2026, 11, 30)).experience_months == 6
    assert career_of(db, who, D(2026, 11, 30)).meets_next_level


def test_no_hire_date_counts_the_documented_months_only(db: Session):
    who = person(db, hired=None, months=7)
    assert career_of(db, who, TODAY).experience_months == 7
    assert lacks(db, who) == ["a valid NCA-AIIO"]


# --- certifications lapsing -------------------------------------------------------


def test_a_certification_counts_through_its_expiry_day_and_lapses_the_day_after(db: Session):
    who = person(db)
    factories.certification(db, who, "NCA-AIIO", D(2024, 11, 29), D(2026, 11, 29))
    assert career_of(db, who, D(2026, 11, 29)).meets_next_level
    after = career_of(db, who, D(2026, 11, 30))
    assert not after.meets_next_level
    assert after.lacks == ["a valid NCA-AIIO (it was valid through 2026-11-29)"]


def test_a_certification_earned_after_the_date_does_not_count_yet(db: Session):
    who = person(db)
    factories.certification(db, who, "NCA-AIIO", D(2026, 12, 1), FAR)
    assert lacks(db, who, D(2026, 11, 30)) == ["a valid NCA-AIIO"]
    assert lacks(db, who, D(2026, 12, 1)) == []


def test_a_renewal_after_a_lapse_counts_again(db: Session):
    who = person(db)
    factories.certification(db, who, "NCA-AIIO", D(2022, 1, 10), D(2024, 1, 10))
    assert lacks(db, who, D(2024, 6, 1)) == ["a valid NCA-AIIO (it was valid through 2024-01-10)"]
    factories.certification(db, who, "NCA-AIIO", D(2024, 7, 1), D(2026, 7, 1))
    assert lacks(db, who, D(2024, 7, 1)) == []


# --- level 3 and 4 ------------------------------------------------------------------


def test_level_three_needs_ncp_aii_networking_and_twelve_months(db: Session):
    who = person(db, level=2, hired=D(2025, 12, 1))
    assert lacks(db, who) == [
        "12 months of experience (has 11)",
        "a valid NCP-AII",
        "a valid NVIDIA-NETWORKING",
    ]
    factories.certification(db, who, "NCP-AII", D(2026, 1, 10), FAR)
    factories.certification(db, who, "NVIDIA-NETWORKING", D(2025, 1, 10), D(2026, 1, 10))
    assert lacks(db, who) == [
        "12 months of experience (has 11)",
        "a valid NVIDIA-NETWORKING (it was valid through 2026-01-10)",
    ]
    factories.certification(db, who, "NVIDIA-NETWORKING", D(2026, 2, 1))  # no expiry
    assert lacks(db, who, D(2026, 12, 1)) == []
    assert career_of(db, who, D(2026, 12, 1)).next_level.number == 3


def test_level_four_needs_twenty_four_months_and_a_vendor_expert_credential(db: Session):
    who = person(db, level=3, hired=D(2024, 12, 1))
    assert lacks(db, who) == ["24 months of experience (has 23)", "a valid VENDOR-EXPERT"]
    factories.certification(db, who, "VENDOR-EXPERT", D(2025, 6, 1), FAR)
    assert lacks(db, who, D(2026, 12, 1)) == []


def test_only_the_next_level_is_judged(db: Session):
    """A level-1 engineer with everything for level 3 still needs level 2's NCA-AIIO."""
    who = person(db, level=1)
    factories.certification(db, who, "NCP-AII", D(2025, 1, 10), FAR)
    factories.certification(db, who, "NVIDIA-NETWORKING", D(2025, 1, 10))
    career = career_of(db, who, TODAY)
    assert career.next_level.number == 2
    assert career.lacks == ["a valid NCA-AIIO"]


# --- group credentials ------------------------------------------------------------------


@pytest.fixture
def level_two_takes_a_group(db: Session) -> Level:
    """Edit the catalog: level 2 asks for "NVIDIA Associate or higher" (a group)."""
    level = db.get(Level, 2)
    level.required_credentials = [factories.credential(db, "NVIDIA-ASSOCIATE+")]
    db.flush()
    return level


def test_any_member_of_a_group_satisfies_it(db: Session, level_two_takes_a_group):
    who = person(db)
    assert lacks(db, who) == ["a valid NVIDIA-ASSOCIATE+ (one of NCA-AIIO, NCP-AII, NCP-AIO)"]
    factories.certification(db, who, "NCP-AIO", D(2026, 1, 1), FAR)
    assert lacks(db, who) == []


def test_a_lapsed_group_member_is_named(db: Session, level_two_takes_a_group):
    who = person(db)
    factories.certification(db, who, "NCA-AIIO", D(2024, 1, 10), D(2026, 1, 10))
    assert lacks(db, who) == ["a valid NVIDIA-ASSOCIATE+ (NCA-AIIO was valid through 2026-01-10)"]


# --- level 5: evidence -------------------------------------------------------------------------


def test_level_five_needs_forty_eight_months_and_recorded_evidence(db: Session):
    who = person(db, level=4, hired=D(2022, 12, 1))
    assert lacks(db, who) == ["48 months of experience (has 47)", EVIDENCE_REASON]
    record_evidence(db, who, "patent", "Liquid-cooled rack manifold", D(2025, 3, 1), TODAY)
    assert lacks(db, who) == ["48 months of experience (has 47)"]
    assert career_of(db, who, D(2026, 12, 1)).meets_next_level


@pytest.mark.parametrize("kind", EVIDENCE_KINDS)
def test_each_kind_of_evidence_counts(db: Session, kind: str):
    who = person(db, level=4)
    record_evidence(db, who, kind, "Something notable", D(2024, 1, 1), TODAY)
    assert career_of(db, who, TODAY).meets_next_level


def test_evidence_dated_after_the_day_or_of_another_kind_does_not_count(db: Session):
    who = person(db, level=4)
    record_evidence(db, who, "publication", "NCCL tuning", D(2026, 11, 1), TODAY)
    db.add(Evidence(engineer_id=who.id, kind="other", title="A talk", occurred_on=D(2020, 1, 1)))
    db.flush()
    assert lacks(db, who, D(2026, 10, 31)) == [EVIDENCE_REASON]
    assert lacks(db, who, D(2026, 11, 1)) == []


def test_the_top_of_the_ladder_has_no_next_level(db: Session):
    career = career_of(db, person(db, level=5), TODAY)
    assert career.level == 5
    assert career.next_level is None
    assert career.meets_next_level is False
    assert career.lacks == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("kind", "talk", "kind must be one of patent, publication, deployment"),
        ("title", "  ", "a title is required"),
        ("title", "x" * 301, "title must be at most 300 characters"),
        ("occurred_on", D(2026, 11, 30), "date must not be in the future"),
        ("occurred_on", None, "a date is required"),
        ("note", "n" * 2001, "note must be at most 2000 characters"),
    ],
)
def test_bad_evidence_is_refused_and_nothing_is_stored(db: Session, field, value, message):
    who = person(db, level=4)
    values = {"kind": "patent", "title": "A patent", "occurred_on": D(2025, 1, 1), "note": ""}
    values[field] = value
    with pytest.raises(ValidationError) as caught:
        record_evidence(db, who, today=TODAY, **values)
    assert message in caught.value.errors[field]
    assert db.scalar(select(func.count()).select_from(Evidence)) == 0


# --- the rules live in the catalog ---------------------------------------------------------------


def test_the_rules_are_read_from_the_catalog_file(db: Session, tmp_path):
    seed = SEED.read_text()
    edited = seed.replace(
        'min_experience_months = 6\nrequires = ["NCA-AIIO"]',
        'min_experience_months = 9\nrequires = ["NCA-AIIO", "COMPTIA-LINUX-PLUS"]',
    )
    assert edited != seed
    path = tmp_path / "catalog.toml"
    path.write_text(edited)
    who = person(db, hired=D(2026, 3, 1))
    factories.certification(db, who, "NCA-AIIO", D(2026, 6, 1), FAR)
    assert lacks(db, who) == []
    load_seed(db, path)
    db.expire_all()
    assert lacks(db, who) == ["9 months of experience (has 8)", "a valid COMPTIA-LINUX-PLUS"]


# --- the level on a date and its history ---------------------------------------------------------


def changes(db: Session, who) -> list[LevelChange]:
    """Return the level history after the level recorded on creation, newest first."""
    return [c for c in level_history(db, who) if c.from_level is not None]


def test_the_level_on_a_date_follows_the_history(db: Session):
    manager = factories.engineer(db, access_role="manager")
    who = person(db, level=1, manager=manager)
    change_level(db, who, 2, manager, D(2026, 3, 1))
    change_level(db, who, 3, manager, D(2026, 9, 1))
    assert who.level == 3
    assert career_of(db, who, D(2026, 2, 28)).level == 1
    assert career_of(db, who, D(2026, 3, 1)).level == 2
    assert career_of(db, who, D(2026, 8, 31)).next_level.number == 3
    assert career_of(db, who, D(2026, 9, 1)).level == 3
    history = changes(db, who)
    assert [(c.from_level, c.to_level, c.changed_on, c.changed_by_id) for c in history] == [
        (2, 3, D(2026, 9, 1), manager.id),
        (1, 2, D(2026, 3, 1), manager.id),
    ]


def test_the_level_recorded_on_creation_holds_before_it(db: Session):
    who = person(db, level=3)
    db.add(LevelChange(engineer_id=who.id, from_level=None, to_level=3, changed_on=TODAY))
    db.flush()
    assert career_of(db, who, D(2020, 1, 1)).level == 3


def test_setting_the_same_level_writes_nothing(db: Session):
    manager = factories.engineer(db, access_role="manager")
    who = person(db, level=2, manager=manager)
    assert change_level(db, who, 2, manager, TODAY) is None
    assert changes(db, who) == []


def test_nobody_sets_their_own_level(db: Session):
    admin = factories.engineer(db, access_role="admin", level=2)
    with pytest.raises(ValidationError) as caught:
        change_level(db, admin, 3, admin, TODAY)
    assert "your own level" in caught.value.errors["level"]
    assert admin.level == 2


@pytest.mark.parametrize("level", [0, 6, "3", 2.0, True, None])
def test_a_level_outside_one_to_five_is_refused(db: Session, level):
    manager = factories.engineer(db, access_role="manager")
    who = person(db, level=2, manager=manager)
    with pytest.raises(ValidationError) as caught:
        change_level(db, who, level, manager, TODAY)
    assert caught.value.errors["level"] == "level must be a whole number from 1 to 5"
    assert who.level == 2
    assert changes(db, who) == []


# --- promotions ---------------------------------------------------------------


def test_promotions_list_the_managers_people_ready_first(db: Session):
    manager = factories.engineer(db, access_role="manager", name="Boss")
    team = factories.team(db, manager=manager)
    ready = person(db, name="Ready", team=team)
    factories.certification(db, ready, "NCA-AIIO", D(2026, 1, 1), FAR)
    person(db, name="Waiting", manager=manager)
    stranger = person(db, name="Stranger")
    gone = person(db, name="Gone", team=team)
    gone.active = False
    db.flush()

    rows = promotions(db, manager, TODAY)
    assert [(c.engineer.name, c.meets_next_level) for c in rows] == [
        ("Ready", True),
        ("Waiting", False),
    ]
    admin_rows = promotions(db, factories.engineer(db, access_role="admin"), TODAY)
    assert {"Ready", "Waiting", "Stranger", "Boss"} <= {c.engineer.name for c in admin_rows}
    assert "Gone" not in {c.engineer.name for c in admin_rows}
    assert promotions(db, stranger, TODAY) == []
