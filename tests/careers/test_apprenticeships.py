"""Apprenticeships (docs/domain.md section 5): pairing, progress, senior-time cost."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tests.careers.conftest import People
from tracker.careers.models import Apprenticeship
from tracker.careers.services.apprenticeships import (
    apprenticeship_cost,
    apprenticeship_view,
    can_pair,
    create_apprenticeship,
    default_path,
)
from tracker.careers.services.ladder import change_level, load_levels
from tracker.catalog.models.credentials import LearningPath
from tracker.catalog.models.levels import Level
from tracker.errors import ValidationError
from tracker.progress.services.hours import log_hours

D = dt.date
TODAY = factories.TODAY


def path(db: Session, code: str) -> LearningPath:
    return db.scalars(select(LearningPath).where(LearningPath.code == code)).one()


@pytest.mark.parametrize(
    ("level", "months", "cost"),
    [
        # 20 % of the band midpoint per year, prorated by months.
        (4, 3, 10_625),  # midpoint 212,500 -> 42,500 a year
        (4, 6, 21_250),
        (5, 6, 32_500),  # midpoint 325,000 -> 65,000 a year
        (3, 1, 2_500),  # midpoint 150,000 -> 30,000 a year
        (2, 12, 22_000),  # midpoint 110,000
    ],
)
def test_the_cost_is_twenty_percent_of_the_seniors_midpoint_prorated(db, level, months, cost):
    assert apprenticeship_cost(db.get(Level, level), 20, months) == cost


def test_creating_an_apprenticeship_stores_the_period_and_the_catalogs_loss(db, people: People):
    row = create_apprenticeship(
        db, people.junior, people.senior, D(2026, 12, 1), 3, TODAY, path=path(db, "FOUNDATIONS")
    )
    assert (row.starts_on, row.ends_on) == (D(2026, 12, 1), D(2027, 3, 1))
    assert row.productivity_loss_percent == 20
    view = apprenticeship_view(db, row, TODAY, load_levels(db))
    assert view.state == "planned"
    assert (view.months, view.cost, view.cost_to_date) == (3, 10_625, 0)


def test_the_path_defaults_to_the_juniors_first_unfinished_one(db, people: People):
    row = create_apprenticeship(db, people.junior, people.senior, TODAY, 6, TODAY)
    assert row.path is not None
    assert row.path.id == default_path(db, people.junior, TODAY).id


def test_progress_over_the_period(db, people: People):
    p = people
    infra = path(db, "FOUNDATIONS")
    first = infra.courses[0]
    log_hours(db, p.junior, first, D(2026, 8, 31), Decimal(2), TODAY)  # before the start
    log_hours(db, p.junior, first, D(2026, 9, 1), Decimal(3), TODAY)  # on the first day
    log_hours(db, p.junior, first, D(2026, 11, 29), Decimal(1), TODAY)  # today
    row = create_apprenticeship(db, p.junior, p.senior, D(2026, 9, 1), 6, TODAY, path=infra)
    view = apprenticeship_view(db, row, TODAY, load_levels(db))
    assert view.state == "running"
    assert view.elapsed_months == 2
    assert view.at_start.counted == Decimal(2)
    assert view.at_date.counted == Decimal(6)
    assert view.gained_hours == Decimal(4)
    assert view.at_date.percent > view.at_start.percent
    assert (view.cost, view.cost_to_date) == (21_250, 7_083)

    # Judged after its end, the progress stops at the last day.
    log_hours(db, p.junior, first, D(2026, 11, 28), Decimal(1), TODAY)
    ended = apprenticeship_view(db, row, D(2027, 6, 1), load_levels(db))
    assert ended.state == "finished"
    assert ended.elapsed_months == 6
    assert ended.cost_to_date == ended.cost


def test_the_cost_uses_the_seniors_level_when_the_period_starts(db, people: People):
    p = people
    row = create_apprenticeship(db, p.junior, p.senior, D(2026, 10, 1), 3, TODAY)
    change_level(db, p.senior, 5, p.manager, D(2026, 11, 1))
    view = apprenticeship_view(db, row, TODAY, load_levels(db))
    assert view.senior_level.number == 4
    assert view.cost == 10_625


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"months": 0}, "months", "months must be a whole number from 1 to 12"),
        ({"months": 13}, "months", "months must be a whole number from 1 to 12"),
        ({"months": "3"}, "months", "months must be a whole number from 1 to 12"),
        ({"months": None}, "months", "months must be a whole number from 1 to 12"),
        ({"senior": "junior"}, "senior", "two different people"),
        ({"senior": "report"}, "senior", "the senior's level must be above the junior's"),
        ({"starts_on": None}, "starts_on", "a start date is required"),
        ({"starts_on": D(2027, 12, 1)}, "starts_on", "within a year from today"),
        (
            {"starts_on": D(2020, 6, 1)},
            "starts_on",
            "start must not be before the junior's hire date 2021-01-01",
        ),
        ({"note": "n" * 501}, "note", "at most 500 characters"),
    ],
)
def test_bad_pairings_are_refused_and_nothing_is_stored(db, people: People, change, field, message):
    values = {"junior": people.junior, "senior": people.senior, "starts_on": TODAY, "months": 3}
    values.update(change)
    for role in ("junior", "senior"):
        if isinstance(values[role], str):
            values[role] = getattr(people, values[role])
    if values["senior"] is people.report:
        values["junior"] = factories.engineer(db, level=2, team=people.team)
    with pytest.raises(ValidationError) as caught:
        create_apprenticeship(db, today=TODAY, **values)
    assert message in caught.value.errors[field]
    assert db.scalar(select(func.count()).select_from(Apprenticeship)) == 0


def test_the_same_level_is_not_senior_enough(db, people: People):
    peer = factories.engineer(db, level=1, team=people.team)
    with pytest.raises(ValidationError) as caught:
        create_apprenticeship(db, people.junior, peer, TODAY, 3, TODAY)
    assert caught.value.errors["senior"].endswith("level 1, Jules Junior level 1)")


def test_both_must_be_active(db, people: People):
    people.senior.active = False
    with pytest.raises(ValidationError) as caught:
        create_apprenticeship(db, people.junior, people.senior, TODAY, 3, TODAY)
    assert caught.value.errors["senior"] == "Sasha Senior is deactivated"


def test_a_junior_has_one_apprenticeship_at_a_time(db, people: People):
    create_apprenticeship(db, people.junior, people.senior, D(2026, 9, 1), 6, TODAY)
    with pytest.raises(ValidationError) as caught:
        create_apprenticeship(db, people.junior, people.manager, D(2027, 2, 28), 3, TODAY)
    assert (
        "already apprenticed to Sasha Senior from 2026-09-01 to 2027-03-01"
        in (caught.value.errors["starts_on"])
    )
    # The day the first one ends, the next may start.
    create_apprenticeship(db, people.junior, people.manager, D(2027, 3, 1), 3, TODAY)


def test_who_may_pair(people: People):
    p = people
    assert can_pair(p.manager, p.junior, p.senior)
    assert can_pair(p.manager, p.junior, p.manager)
    assert can_pair(p.admin, p.outsider, p.senior)
    assert not can_pair(p.manager, p.outsider, p.senior)
    assert not can_pair(p.manager, p.junior, p.other_manager)
    assert not can_pair(p.senior, p.junior, p.senior)
