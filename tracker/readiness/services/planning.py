"""Plan to a target fleet by a date: who trains on which path, which seats need hires, costs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from tracker.catalog.models.credentials import Credential, LearningPath
from tracker.catalog.models.levels import Level
from tracker.catalog.models.planning import TrainingStrategy
from tracker.catalog.models.team_templates import TeamTemplate, TemplateSlot
from tracker.catalog.services.reads import paths_with_courses
from tracker.errors import ValidationError
from tracker.i18n import N_, money, msg
from tracker.people.models import Team
from tracker.progress.services.paths import logged_hours, path_progress
from tracker.progress.services.validity import experience_months, holding
from tracker.readiness.rules import (
    LIST_PRICE_STRATEGY,
    MIN_SHADOW_LEVEL,
    SANE_WEEKLY_HOURS,
    SHADOW_RULE,
    WEEKS_PER_YEAR,
)
from tracker.readiness.services.matching import Seat, choose_template, fits, max_matching, seats_of
from tracker.readiness.services.members import Member, load_members, load_templates


@dataclass(frozen=True)
class Catalog:
    """The catalog parts a plan reads, loaded once."""

    templates: list[TeamTemplate]
    paths: list[LearningPath]
    levels: dict[int, Level]
    strategies: dict[str, TrainingStrategy]

    def path_for(self, credential: Credential) -> LearningPath | None:
        """Return the path whose exam grants `credential` (or the first member of a group)."""
        wanted = (
            [credential.id] if credential.kind != "group" else [m.id for m in credential.members]
        )
        for credential_id in wanted:
            for path in self.paths:
                if path.exam is not None and path.exam.credential_id == credential_id:
                    return path
        return None


def load_catalog(session: Session) -> Catalog:
    """Load templates, paths, levels and strategies for planning."""
    levels = session.scalars(
        select(Level).options(
            selectinload(Level.required_credentials).selectinload(Credential.members)
        )
    ).all()
    strategies = session.scalars(select(TrainingStrategy)).all()
    return Catalog(
        templates=load_templates(session),
        paths=paths_with_courses(session),
        levels={lv.number: lv for lv in levels},
        strategies={s.code: s for s in strategies},
    )


@dataclass(frozen=True)
class Training:
    """What one member must do to fill a seat by the target date."""

    paths: list[LearningPath]
    remaining_hours: Decimal
    to_level: int | None
    weeks: Decimal

    @property
    def hours_per_week(self) -> Decimal:
        if self.weeks <= 0:
            return self.remaining_hours
        return (self.remaining_hours / self.weeks).quantize(Decimal("0.1"))

    @property
    def overloaded(self) -> bool:
        return self.hours_per_week > SANE_WEEKLY_HOURS


@dataclass(frozen=True)
class PlanSeat:
    seat: Seat
    member: Member | None
    training: Training | None  # None: ready as is (or a hire when member is None)
    salary_range: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class StrategyCost:
    strategy: TrainingStrategy
    low: int | None
    high: int | None
    note: str


@dataclass(frozen=True)
class Plan:
    team: Team
    gpus: int
    today: dt.date
    target: dt.date
    template: TeamTemplate
    seats: list[PlanSeat]
    costs: list[StrategyCost]
    yearly_cost: tuple[int, int]

    @property
    def trainees(self) -> list[PlanSeat]:
        return [s for s in self.seats if s.member is not None and s.training is not None]

    @property
    def hires(self) -> list[PlanSeat]:
        return [s for s in self.seats if s.member is None]

    @property
    def ready(self) -> list[PlanSeat]:
        return [s for s in self.seats if s.member is not None and s.training is None]


def _training_for(
    member: Member,
    slot: TemplateSlot,
    catalog: Catalog,
    logged: dict[int, dict[int, Decimal]],
    today: dt.date,
    target: dt.date,
) -> Training | None:
    """Return the training that lets `member` fill `slot` on `target`, or None if none can."""
    if slot.job_role.code not in member.role_codes or member.level > slot.max_level:
        return None
    needed: list[LearningPath] = []
    # progress types the engineer as the mapped one; a Person reads the same fields.
    experience = experience_months(member.engineer, target)  # type: ignore[arg-type]

    def need(credential: Credential) -> bool:
        """Add the path(s) earning `credential` by the target; False when no path can."""
        # progress types these as Certifications; HeldCertifications read the same fields.
        if holding(member.certifications, credential, target) is not None:  # type: ignore[arg-type]
            return True
        path = catalog.path_for(credential)
        if path is None or path.exam is None:
            return False
        for prerequisite in path.exam.prerequisites:
            if not need(prerequisite):
                return False
        if experience < path.exam.experience_months:
            return False
        if path not in needed:
            needed.append(path)
        return True

    if not all(need(c) for c in slot.credentials):
        return None
    to_level = None
    if member.level < slot.min_level:
        for number in range(member.level + 1, slot.min_level + 1):
            level = catalog.levels.get(number)
            if level is None or level.requires_evidence:
                return None
            if experience < level.min_experience_months:
                return None
            if not all(need(c) for c in level.required_credentials):
                return None
        to_level = slot.min_level
    hours = sum((path_progress(p, logged.get(member.id, {})).remaining for p in needed), Decimal(0))
    weeks = Decimal((target - today).days) / 7
    return Training(needed, hours, to_level, weeks)


def _band(catalog: Catalog, slot: TemplateSlot) -> tuple[int, int]:
    low = catalog.levels.get(slot.min_level)
    high = catalog.levels.get(slot.max_level)
    return (low.salary_min if low else 0, high.salary_max if high else 0)


def plan_to_target(
    session: Session, team: Team, gpus: int, target: dt.date, today: dt.date
) -> Plan:
    """Propose who trains on which path, which seats need hires, and what it costs."""
    errors: dict[str, str] = {}
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 0:
        errors["gpus"] = N_("fleet size must be a whole number of GPUs, 0 or more")
    if target <= today:
        errors["target"] = N_("the target date must be after today")
    if errors:
        raise ValidationError(errors)
    catalog = load_catalog(session)
    members = load_members(session, [team.id]).get(team.id, [])
    logged = {m.id: logged_hours(session, m.id) for m in members}
    template = choose_template(catalog.templates, gpus)
    seats = seats_of(template)

    ready_fit = {
        (s, e): fits(m, seat.slot, target)
        for s, seat in enumerate(seats)
        for e, m in enumerate(members)
    }
    trainings = {
        (s, e): _training_for(m, seat.slot, catalog, logged, today, target)
        for s, seat in enumerate(seats)
        for e, m in enumerate(members)
        if not ready_fit[(s, e)]
    }
    # Fill with the people ready first; augmenting paths then add trainees
    # without ever emptying a seat that was filled.
    matching = max_matching(seats, members, ready_fit)
    train_fit = {k: v or trainings.get(k) is not None for k, v in ready_fit.items()}
    matching = max_matching(
        seats, members, train_fit, start=matching, preference=_fewest_hours(trainings)
    )

    plan_seats = []
    for s, seat in enumerate(seats):
        e = matching.get(s)
        member = members[e] if e is not None else None
        training = None if e is None or ready_fit[(s, e)] else trainings[(s, e)]
        plan_seats.append(PlanSeat(seat, member, training, _band(catalog, seat.slot)))

    trainees = [p for p in plan_seats if p.training is not None]
    seniors = [m for m in members if m.level >= MIN_SHADOW_LEVEL]
    costs = _strategy_costs(catalog, len(trainees), seniors)
    bands = [p.salary_range for p in plan_seats]
    yearly = (sum(b[0] for b in bands), sum(b[1] for b in bands))
    return Plan(team, gpus, today, target, template, plan_seats, costs, yearly)


def _fewest_hours(
    trainings: dict[tuple[int, int], Training | None],
) -> Callable[[int, int], Decimal]:
    """Prefer, for a seat, whoever is ready or has the fewest training hours left."""

    def hours(seat: int, engineer: int) -> Decimal:
        training = trainings.get((seat, engineer))
        return Decimal(0) if training is None else training.remaining_hours

    return hours


def _strategy_costs(
    catalog: Catalog, participants: int, seniors: list[Member]
) -> list[StrategyCost]:
    costs = []
    bootcamp = catalog.strategies.get(LIST_PRICE_STRATEGY)
    for strategy in catalog.strategies.values():
        if participants == 0:
            costs.append(StrategyCost(strategy, 0, 0, N_("nobody needs training")))
        elif strategy.code == LIST_PRICE_STRATEGY and strategy.cost_min is not None:
            # The seed gives both ends of a range or neither.
            assert strategy.cost_max is not None
            costs.append(
                StrategyCost(
                    strategy,
                    participants * strategy.cost_min,
                    participants * strategy.cost_max,
                    msg(
                        "%(participants)s x %(low)s-%(high)s a participant",
                        participants=participants,
                        low=money(strategy.cost_min),
                        high=money(strategy.cost_max),
                    ),
                )
            )
        elif strategy.discount_min_percent is not None and bootcamp and bootcamp.cost_min:
            assert bootcamp.cost_max is not None and strategy.discount_max_percent is not None
            low = participants * bootcamp.cost_min
            high = participants * bootcamp.cost_max
            if participants >= (strategy.min_group_size or 0):
                costs.append(
                    StrategyCost(
                        strategy,
                        low * (100 - strategy.discount_max_percent) // 100,
                        high * (100 - strategy.discount_min_percent) // 100,
                        msg(
                            "%(low)s-%(high)s%% off list price for %(participants)s participants",
                            low=strategy.discount_min_percent,
                            high=strategy.discount_max_percent,
                            participants=participants,
                        ),
                    )
                )
            else:
                costs.append(
                    StrategyCost(
                        strategy,
                        low,
                        high,
                        msg(
                            "no discount: needs %(size)s or more participants, the plan has "
                            "%(participants)s",
                            size=strategy.min_group_size,
                            participants=participants,
                        ),
                    )
                )
        elif strategy.productivity_loss_percent is not None:
            if not seniors:
                costs.append(StrategyCost(strategy, None, None, SHADOW_RULE))
                continue
            senior = max(seniors, key=lambda m: m.level)
            level = catalog.levels[senior.level]
            yearly = level.salary_midpoint * strategy.productivity_loss_percent // 100
            low = participants * yearly * (strategy.min_weeks or 0) // WEEKS_PER_YEAR
            high = participants * yearly * (strategy.max_weeks or 0) // WEEKS_PER_YEAR
            costs.append(
                StrategyCost(
                    strategy,
                    low,
                    high,
                    msg(
                        "%(loss)s%% of %(senior)s's time (level %(level)s midpoint "
                        "%(midpoint)s) for %(min_weeks)s-%(max_weeks)s weeks per apprentice",
                        loss=strategy.productivity_loss_percent,
                        senior=senior.name,
                        level=senior.level,
                        midpoint=money(level.salary_midpoint),
                        min_weeks=strategy.min_weeks,
                        max_weeks=strategy.max_weeks,
                    ),
                )
            )
        else:
            costs.append(StrategyCost(strategy, None, None, N_("the organisation's own cost")))
    return costs
