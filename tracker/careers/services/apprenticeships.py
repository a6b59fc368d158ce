"""Apprenticeships: pairing a junior with a senior, the junior's progress and the cost."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from tracker.careers.models import Apprenticeship
from tracker.careers.rules import (
    DEFAULT_PRODUCTIVITY_LOSS,
    EARLIEST_DATE,
    MAX_APPRENTICESHIP_LEAD_MONTHS,
    MAX_APPRENTICESHIP_MONTHS,
    MAX_APPRENTICESHIP_NOTE_LENGTH,
    MIN_APPRENTICESHIP_MONTHS,
    USUAL_APPRENTICESHIP_MONTHS,
    is_whole,
)
from tracker.careers.services.ladder import level_on, load_levels, managed_people
from tracker.catalog.models.credentials import LearningPath
from tracker.catalog.models.levels import Level
from tracker.catalog.models.planning import TrainingStrategy
from tracker.catalog.services.reads import paths_with_courses
from tracker.errors import ValidationError
from tracker.i18n import N_, day, msg
from tracker.people.models import Engineer, LevelChange
from tracker.people.rules import MANAGER_ROLES, shown_name
from tracker.people.services.access import manages
from tracker.progress.models import HourLog
from tracker.progress.services.certifications import certifications_of
from tracker.progress.services.paths import PathProgress, logged_hours, path_progress
from tracker.progress.services.validity import add_months, holding, whole_months_between


def productivity_loss(session: Session) -> int:
    """Return the senior's productivity loss of an apprenticeship, from the catalog (20 %)."""
    value = session.scalar(
        select(TrainingStrategy.productivity_loss_percent).where(
            TrainingStrategy.code == "apprenticeship"
        )
    )
    return DEFAULT_PRODUCTIVITY_LOSS if value is None else value


def apprenticeship_cost(level: Level, loss_percent: int, months: int) -> int:
    """Return the senior time an apprenticeship costs, in currency units (whole, rounded).

    loss % of the senior's level salary band midpoint, per year, prorated by months.
    """
    cost = Decimal(level.salary_midpoint) * loss_percent / 100 * months / 12
    return int(cost.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def can_pair(actor: Engineer, junior: Engineer, senior: Engineer) -> bool:
    """Return whether `actor` may pair these two: an admin, or the manager of both.

    A manager may also be the senior themself.
    """
    if not actor.active or actor.access_role not in MANAGER_ROLES:
        return False
    if actor.access_role == "admin":
        return True
    return manages(actor, junior) and (senior.id == actor.id or manages(actor, senior))


def default_path(session: Session, junior: Engineer, on: dt.date) -> LearningPath | None:
    """Return the first path the junior has not finished (courses done and exam held)."""
    paths = paths_with_courses(session)
    logged = logged_hours(session, junior.id)
    certs = certifications_of(session, junior.id)
    for path in paths:
        done = path_progress(path, logged).complete
        held = path.exam is None or holding(certs, path.exam.credential, on) is not None
        if not (done and held):
            return path
    return paths[0] if paths else None


def create_apprenticeship(
    session: Session,
    junior: Engineer | None,
    senior: Engineer | None,
    starts_on: dt.date | None,
    months: int | None,
    today: dt.date,
    path: LearningPath | None = None,
    note: str = "",
) -> Apprenticeship:
    """Pair a junior with a senior from `starts_on` for `months` (1-12; 3-6 is usual).

    Refused when they are the same person, either is deactivated, the senior's
    level is not above the junior's, or the junior is already apprenticed then.
    """
    errors: dict[str, str] = {}
    if junior is None:
        errors["junior"] = N_("a junior is required")
    if senior is None:
        errors["senior"] = N_("a senior is required")
    if not is_whole(months) or not (
        MIN_APPRENTICESHIP_MONTHS <= months <= MAX_APPRENTICESHIP_MONTHS
    ):
        errors["months"] = msg(
            "months must be a whole number from %(min)s to %(max)s (%(usual)s is usual)",
            min=MIN_APPRENTICESHIP_MONTHS,
            max=MAX_APPRENTICESHIP_MONTHS,
            usual=USUAL_APPRENTICESHIP_MONTHS,
        )
    if not isinstance(starts_on, dt.date):
        errors["starts_on"] = N_("a start date is required (YYYY-MM-DD)")
    elif starts_on < EARLIEST_DATE:
        errors["starts_on"] = msg(
            "start must not be before %(earliest)s", earliest=day(EARLIEST_DATE)
        )
    elif starts_on > add_months(today, MAX_APPRENTICESHIP_LEAD_MONTHS):
        errors["starts_on"] = N_("start must be within a year from today")
    elif junior is not None and junior.hired_on is not None and starts_on < junior.hired_on:
        # The senior's time is costed from the start: none before the junior is here.
        errors["starts_on"] = msg(
            "start must not be before the junior's hire date %(date)s", date=day(junior.hired_on)
        )
    note = (note or "").strip()
    if len(note) > MAX_APPRENTICESHIP_NOTE_LENGTH:
        errors["note"] = msg(
            "note must be at most %(max)s characters", max=MAX_APPRENTICESHIP_NOTE_LENGTH
        )
    if junior is not None and senior is not None:
        if junior.id == senior.id:
            errors["senior"] = N_("the junior and the senior must be two different people")
        else:
            for name, who in (("junior", junior), ("senior", senior)):
                if not who.active:
                    errors[name] = msg("%(name)s is deactivated", name=shown_name(who.id, who.name))
            if "senior" not in errors and senior.level <= junior.level:
                errors["senior"] = msg(
                    "the senior's level must be above the junior's "
                    "(%(senior)s is level %(senior_level)s, %(junior)s level %(junior_level)s)",
                    senior=senior.name,
                    senior_level=senior.level,
                    junior=junior.name,
                    junior_level=junior.level,
                )
    if errors:
        raise ValidationError(errors)
    assert junior is not None and senior is not None and starts_on is not None
    assert months is not None
    ends_on = add_months(starts_on, months)
    overlapping = session.scalars(
        select(Apprenticeship)
        .where(
            Apprenticeship.junior_id == junior.id,
            Apprenticeship.starts_on < ends_on,
            Apprenticeship.ends_on > starts_on,
        )
        .options(selectinload(Apprenticeship.senior))
        .limit(1)
    ).first()
    if overlapping is not None:
        raise ValidationError(
            {
                "starts_on": msg(
                    "%(junior)s is already apprenticed to %(senior)s from %(start)s to %(end)s",
                    junior=junior.name,
                    senior=overlapping.senior.name,
                    start=day(overlapping.starts_on),
                    end=day(overlapping.ends_on),
                )
            }
        )
    if path is None:
        path = default_path(session, junior, starts_on)
    row = Apprenticeship(
        junior_id=junior.id,
        senior_id=senior.id,
        path_id=path.id if path is not None else None,
        starts_on=starts_on,
        ends_on=ends_on,
        productivity_loss_percent=productivity_loss(session),
        note=note,
    )
    session.add(row)
    session.flush()
    return row


def logged_until(session: Session, engineer_id: int, until: dt.date) -> dict[int, Decimal]:
    """Return the hours an engineer logged per course id on or before `until`."""
    rows = session.execute(
        select(HourLog.course_id, func.sum(HourLog.hours))
        .where(HourLog.engineer_id == engineer_id, HourLog.logged_on <= until)
        .group_by(HourLog.course_id)
    )
    return dict(rows.tuples().all())


@dataclass(frozen=True)
class ApprenticeshipView:
    """An apprenticeship on a date: the junior's path progress over it and its cost."""

    apprenticeship: Apprenticeship
    on: dt.date
    months: int
    elapsed_months: int
    senior_level: Level | None
    cost: int | None
    cost_to_date: int | None
    at_start: PathProgress | None
    at_date: PathProgress | None

    @property
    def state(self) -> str:
        a = self.apprenticeship
        if self.on < a.starts_on:
            return "planned"
        return "finished" if self.on >= a.ends_on else "running"

    @property
    def gained_hours(self) -> Decimal:
        if self.at_start is None or self.at_date is None:
            return Decimal(0)
        return self.at_date.counted - self.at_start.counted


def apprenticeship_view(
    session: Session, apprenticeship: Apprenticeship, on: dt.date, levels: dict[int, Level]
) -> ApprenticeshipView:
    """Judge an apprenticeship on `on`: progress from its start to `on` (or its end), cost."""
    a = apprenticeship
    months = whole_months_between(a.starts_on, a.ends_on)
    until = min(on, a.ends_on)
    elapsed = whole_months_between(a.starts_on, until) if until >= a.starts_on else 0
    changes = session.scalars(
        select(LevelChange).where(LevelChange.engineer_id == a.senior_id)
    ).all()
    level = levels.get(level_on(a.senior.level, changes, a.starts_on))
    cost = cost_to_date = None
    if level is not None:
        cost = apprenticeship_cost(level, a.productivity_loss_percent, months)
        cost_to_date = apprenticeship_cost(level, a.productivity_loss_percent, elapsed)
    at_start = at_date = None
    if a.path is not None:
        before = a.starts_on - dt.timedelta(days=1)
        at_start = path_progress(a.path, logged_until(session, a.junior_id, before))
        at_date = path_progress(a.path, logged_until(session, a.junior_id, until))
    return ApprenticeshipView(a, on, months, elapsed, level, cost, cost_to_date, at_start, at_date)


def _apprenticeship_query():
    return select(Apprenticeship).options(
        selectinload(Apprenticeship.junior),
        selectinload(Apprenticeship.senior),
        selectinload(Apprenticeship.path),
    )


def apprenticeships_of(
    session: Session, engineer: Engineer, on: dt.date
) -> list[ApprenticeshipView]:
    """Return the apprenticeships `engineer` is the junior or the senior of, newest first."""
    rows = session.scalars(
        _apprenticeship_query()
        .where(
            (Apprenticeship.junior_id == engineer.id) | (Apprenticeship.senior_id == engineer.id)
        )
        .order_by(Apprenticeship.starts_on.desc(), Apprenticeship.id.desc())
    ).all()
    levels = load_levels(session)
    return [apprenticeship_view(session, a, on, levels) for a in rows]


def visible_apprenticeships(
    session: Session, actor: Engineer, on: dt.date
) -> list[ApprenticeshipView]:
    """Return the apprenticeships whose junior or senior `actor` manages (all for an admin)."""
    query = _apprenticeship_query().order_by(
        Apprenticeship.starts_on.desc(), Apprenticeship.id.desc()
    )
    if actor.access_role != "admin":
        ids = [e.id for e in managed_people(session, actor)] + [actor.id]
        query = query.where(Apprenticeship.junior_id.in_(ids) | Apprenticeship.senior_id.in_(ids))
    levels = load_levels(session)
    return [apprenticeship_view(session, a, on, levels) for a in session.scalars(query)]
