"""A team's readiness at the start of each coming month (tracker.readiness.services.forecast)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tests import factories
from tests.readiness.helpers import TODAY, D, members, person
from tracker.readiness.services.forecast import forecast
from tracker.readiness.services.members import load_templates


def test_forecast_dates_are_the_first_of_each_following_month(db: Session) -> None:
    """Readiness at the start of each of the next 12 months."""
    crew = factories.team(db, gpus=50)
    points = forecast(crew, [], load_templates(db), TODAY)
    assert [p.on for p in points] == [D(2026, 12, 1)] + [D(2027, m, 1) for m in range(1, 12)]
    assert all((p.filled, p.total, p.percent) == (0, 4, 0.0) for p in points)


def test_forecast_from_december_and_a_month_end(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    templates = load_templates(db)
    assert [p.on for p in forecast(crew, [], templates, D(2026, 12, 31), months=2)] == [
        D(2027, 1, 1),
        D(2027, 2, 1),
    ]
    assert [p.on for p in forecast(crew, [], templates, D(2027, 1, 1), months=1)] == [D(2027, 2, 1)]


def test_forecast_drops_in_the_month_after_a_lapse(db: Session) -> None:
    """Assuming no renewals, so a manager sees which lapse hurts when.

    The NCA-AIIO lapses mid-March: the seat is held on 1 March and lost on 1 April.
    The networking certification expires on 1 June itself: held on 1 June (valid on
    its expiry date), lost on 1 July.
    """
    crew = factories.team(db, gpus=50)
    person(db, "Op", crew, certs={"NCA-AIIO": D(2027, 3, 15)})
    person(db, "Net", crew, roles=("network",), level=3, certs={"NVIDIA-NETWORKING": D(2027, 6, 1)})
    points = forecast(crew, members(db, crew), load_templates(db), TODAY)

    by_month = {p.on: (p.filled, p.total, p.percent) for p in points}
    assert len(points) == 12
    assert by_month[D(2027, 3, 1)] == (2, 4, 50.0)
    assert by_month[D(2027, 4, 1)] == (1, 4, 25.0)
    assert by_month[D(2027, 6, 1)] == (1, 4, 25.0)
    assert by_month[D(2027, 7, 1)] == (0, 4, 0.0)
    assert [p.filled for p in points] == [2, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0]


def test_forecast_for_another_fleet_size(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    points = forecast(crew, [], load_templates(db), TODAY, gpus=500, months=3)
    assert [(p.total, p.filled) for p in points] == [(10, 0)] * 3
