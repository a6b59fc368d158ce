"""Forecast a team's readiness month by month, assuming no renewals."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from tracker.people.models import Team
from tracker.progress.services.validity import add_months
from tracker.readiness.rules import FORECAST_MONTHS
from tracker.readiness.services.matching import (
    TemplateT,
    choose_template,
    filled_percent,
    judge,
    kuhn,
    seat_candidates,
    template_seats,
)
from tracker.readiness.services.members import Member


@dataclass(frozen=True)
class ForecastPoint:
    on: dt.date
    filled: int
    total: int
    percent: float


def forecast(
    team: Team,
    members: Sequence[Member],
    templates: Sequence[TemplateT],
    today: dt.date,
    gpus: int | None = None,
    months: int = FORECAST_MONTHS,
) -> list[ForecastPoint]:
    """Return readiness on the first day of each of the next `months` months, without renewals."""
    first = dt.date(today.year, today.month, 1)
    gpus = team.gpus if gpus is None else gpus
    points: list[ForecastPoint] = []
    if months < 1:
        return points
    template = choose_template(templates, gpus)
    seats = template_seats(template)
    total = len(seats)
    # Months in which the same people fit the same seats fill as many: the
    # matching is only run for each new pattern of fits.
    filled_for: dict[tuple[tuple[int, ...], ...], int] = {}
    for n in range(1, months + 1):
        on = add_months(first, n)
        candidates = seat_candidates(template, seats, judge(members, on))
        pattern = tuple(map(tuple, candidates))
        filled = filled_for.get(pattern)
        if filled is None:
            filled = filled_for[pattern] = len(kuhn(candidates))
        points.append(ForecastPoint(on, filled, total, filled_percent(filled, total)))
    return points
