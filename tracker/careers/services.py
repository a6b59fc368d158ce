"""Career rules (DOMAIN.md sections 1, 5, 8 and 10).

The ladder and promotion readiness, level-5 evidence, speciality proficiency
and team coverage, apprenticeships and their cost, certification bonuses per
quarter, and rotation across job roles. Plain functions: they take a session
where they need data and the date they reason about as a parameter; none
reads the clock, and writes only flush (the request or command commits).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import and_, exists, func, select
from sqlalchemy.orm import Session, aliased, selectinload

from tracker.careers.models import Apprenticeship, CertificationBonus, Evidence, SkillAssessment
from tracker.catalog.models import (
    Credential,
    JobRole,
    LearningPath,
    Level,
    Speciality,
    TrainingStrategy,
)
from tracker.db import utcnow
from tracker.errors import ValidationError
from tracker.people.models import Engineer, JobRoleAssignment, LevelChange, Team
from tracker.people.services.access import can_view, manages
from tracker.people.services.persons import set_level
from tracker.progress import services as progress
from tracker.progress.models import Certification, HourLog

# What counts as level-5 evidence (the model also knows "other", which does not).
EVIDENCE_KINDS = ("patent", "publication", "deployment")
EVIDENCE_LABELS = {
    "patent": "Patent",
    "publication": "Publication",
    "deployment": "Deployment led",
}
EVIDENCE_REASON = "recorded evidence (patents, publications or deployments led)"
MAX_EVIDENCE_TITLE = 300
MAX_EVIDENCE_NOTE = 2000
EARLIEST_DATE = dt.date(1970, 1, 1)

PROFICIENCY_LABELS = {0: "none", 1: "basic", 2: "working", 3: "advanced", 4: "expert"}
# A speciality is held at this proficiency or above; one holder is a single point of failure.
HELD_AT = 3

MIN_APPRENTICESHIP_MONTHS = 1
MAX_APPRENTICESHIP_MONTHS = 12
DEFAULT_APPRENTICESHIP_MONTHS = 3
DEFAULT_PRODUCTIVITY_LOSS = 20
MAX_NOTE_LENGTH = 500

MAX_BONUS = Decimal(1_000_000)
_QUARTER = re.compile(r"([0-9]{4})-[Qq]([1-4])")


# --- permissions --------------------------------------------------------------


def can_manage(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may set `engineer`'s level and confirm their skills.

    Their manager (directly or through the team) or an admin; never oneself.
    """
    if not actor.active or actor.id == engineer.id:
        return False
    if actor.access_role == "admin":
        return True
    return actor.access_role == "manager" and manages(actor, engineer)


def can_assess(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may write `engineer`'s proficiency (self, manager, admin)."""
    return can_view(actor, engineer)


def can_record_evidence(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may record evidence for `engineer` (self, manager, admin)."""
    return can_view(actor, engineer)


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- the ladder ----------------------------------------------------------------


def load_levels(session: Session) -> dict[int, Level]:
    """Return the ladder's levels by number, with their required credentials and groups."""
    levels = session.scalars(
        select(Level).options(
            selectinload(Level.required_credentials).selectinload(Credential.members)
        )
    ).all()
    return {level.number: level for level in levels}


def level_on(current: int, changes: Sequence[LevelChange], on: dt.date) -> int:
    """Return the level held on `on` from the level history; `current` when there is none.

    The newest change made on or before `on` counts; before the first change,
    the level it changed from (or, for the level recorded on creation, the one it set).
    """
    ordered = sorted(changes, key=lambda c: (c.changed_on, c.id or 0))
    before = [c for c in ordered if c.changed_on <= on]
    if before:
        return before[-1].to_level
    if ordered:
        first = ordered[0]
        return first.from_level if first.from_level is not None else first.to_level
    return current


def _credential_lack(credential: Credential, certs: Sequence[Certification], on: dt.date) -> str:
    """Say which credential is missing, naming the one that lapsed when one did."""
    last = progress.latest_for((c for c in certs if c.earned_on <= on), credential)
    lapsed = last is not None and last.expires_on is not None and last.expires_on < on
    if credential.kind == "group":
        members = ", ".join(m.code for m in credential.members)
        if lapsed:
            return (
                f"a valid {credential.code} ({last.credential.code} "
                f"expired {last.expires_on.isoformat()})"
            )
        return f"a valid {credential.code} (one of {members})"
    if lapsed:
        return f"a valid {credential.code} (expired {last.expires_on.isoformat()})"
    return f"a valid {credential.code}"


def rule_lacks(
    level: Level,
    experience: int,
    certs: Sequence[Certification],
    evidence: Sequence[Evidence],
    on: dt.date,
) -> list[str]:
    """Return what keeps someone from `level`'s rule on `on` (empty when they meet it)."""
    lacks = []
    if experience < level.min_experience_months:
        lacks.append(f"{level.min_experience_months} months of experience (has {experience})")
    for credential in level.required_credentials:
        if progress.holding(certs, credential, on) is None:
            lacks.append(_credential_lack(credential, certs, on))
    if level.requires_evidence and not any(
        e.kind in EVIDENCE_KINDS and e.occurred_on <= on for e in evidence
    ):
        lacks.append(EVIDENCE_REASON)
    return lacks


@dataclass(frozen=True)
class Career:
    """Where an engineer stands on the ladder on a date."""

    engineer: Engineer
    on: dt.date
    level: int
    level_row: Level | None
    experience_months: int
    next_level: Level | None
    lacks: list[str]
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def meets_next_level(self) -> bool:
        return self.next_level is not None and not self.lacks


def _career(
    engineer: Engineer,
    levels: dict[int, Level],
    certs: Sequence[Certification],
    evidence: Sequence[Evidence],
    changes: Sequence[LevelChange],
    on: dt.date,
) -> Career:
    level = level_on(engineer.level, changes, on)
    experience = progress.experience_months(engineer, on)
    following = levels.get(level + 1)
    lacks = rule_lacks(following, experience, certs, evidence, on) if following else []
    return Career(
        engineer=engineer,
        on=on,
        level=level,
        level_row=levels.get(level),
        experience_months=experience,
        next_level=following,
        lacks=lacks,
        evidence=[e for e in evidence if e.occurred_on <= on],
    )


def _by_engineer(rows: Iterable, ids: Iterable[int]) -> dict[int, list]:
    grouped: dict[int, list] = {i: [] for i in ids}
    for row in rows:
        grouped.setdefault(row.engineer_id, []).append(row)
    return grouped


def careers(session: Session, engineers: Sequence[Engineer], on: dt.date) -> list[Career]:
    """Return each engineer's career on `on`, loading everything in a fixed number of queries."""
    ids = [e.id for e in engineers]
    if not ids:
        return []
    levels = load_levels(session)
    certs = _by_engineer(
        session.scalars(
            select(Certification)
            .where(Certification.engineer_id.in_(ids))
            .options(selectinload(Certification.credential))
        ),
        ids,
    )
    evidence = _by_engineer(
        session.scalars(
            select(Evidence)
            .where(Evidence.engineer_id.in_(ids))
            .order_by(Evidence.occurred_on, Evidence.id)
        ),
        ids,
    )
    changes = _by_engineer(
        session.scalars(select(LevelChange).where(LevelChange.engineer_id.in_(ids))), ids
    )
    return [_career(e, levels, certs[e.id], evidence[e.id], changes[e.id], on) for e in engineers]


def career(session: Session, engineer: Engineer, on: dt.date) -> Career:
    """Return `engineer`'s level, experience, next level and what they lack for it on `on`."""
    return careers(session, [engineer], on)[0]


def managed_people(session: Session, actor: Engineer) -> list[Engineer]:
    """Return the active people whose level `actor` may set, by name (everyone for an admin)."""
    if not actor.active or actor.access_role not in ("manager", "admin"):
        return []
    query = (
        select(Engineer)
        .where(Engineer.active.is_(True), Engineer.id != actor.id)
        .options(
            selectinload(Engineer.team),
            selectinload(Engineer.role_assignments).selectinload(JobRoleAssignment.job_role),
        )
        .order_by(func.lower(Engineer.name), Engineer.id)
    )
    if actor.access_role != "admin":
        managed_teams = select(Team.id).where(Team.manager_id == actor.id)
        query = query.where((Engineer.manager_id == actor.id) | Engineer.team_id.in_(managed_teams))
    return list(session.scalars(query))


def promotions(session: Session, actor: Engineer, on: dt.date) -> list[Career]:
    """Return the careers of `actor`'s people on `on`: those ready for promotion first."""
    people = managed_people(session, actor)
    return sorted(
        careers(session, people, on),
        key=lambda c: (not c.meets_next_level, len(c.lacks), c.engineer.name.lower()),
    )


def change_level(
    session: Session, engineer: Engineer, level: int, actor: Engineer, today: dt.date
) -> LevelChange | None:
    """Set `engineer`'s level as `actor`, keeping the history (who, when, from, to).

    None when the level is already that one. Refused for one's own level.
    """
    if actor.id == engineer.id:
        raise ValidationError({"level": "you cannot set your own level; your manager does"})
    return set_level(session, engineer, level, actor, today)


# --- evidence -------------------------------------------------------------------


def record_evidence(
    session: Session,
    engineer: Engineer,
    kind: str,
    title: str,
    occurred_on: dt.date | None,
    today: dt.date,
    note: str = "",
) -> Evidence:
    """Record a patent, publication or deployment led: the level-5 evidence."""
    errors: dict[str, str] = {}
    if kind not in EVIDENCE_KINDS:
        errors["kind"] = f"kind must be one of {', '.join(EVIDENCE_KINDS)}"
    title = (title or "").strip()
    if not title:
        errors["title"] = "a title is required (the patent, publication or deployment)"
    elif len(title) > MAX_EVIDENCE_TITLE:
        errors["title"] = f"title must be at most {MAX_EVIDENCE_TITLE} characters"
    if not isinstance(occurred_on, dt.date):
        errors["occurred_on"] = "a date is required (YYYY-MM-DD)"
    elif occurred_on > today:
        errors["occurred_on"] = "date must not be in the future"
    elif occurred_on < EARLIEST_DATE:
        errors["occurred_on"] = f"date must not be before {EARLIEST_DATE.isoformat()}"
    note = (note or "").strip()
    if len(note) > MAX_EVIDENCE_NOTE:
        errors["note"] = f"note must be at most {MAX_EVIDENCE_NOTE} characters"
    if errors:
        raise ValidationError(errors)
    entry = Evidence(
        engineer_id=engineer.id, kind=kind, title=title, occurred_on=occurred_on, note=note
    )
    session.add(entry)
    session.flush()
    return entry


def evidence_of(session: Session, engineer_id: int) -> list[Evidence]:
    """Return an engineer's evidence, newest first."""
    return list(
        session.scalars(
            select(Evidence)
            .where(Evidence.engineer_id == engineer_id)
            .order_by(Evidence.occurred_on.desc(), Evidence.id.desc())
        )
    )


# --- specialities and proficiency -------------------------------------------------


def specialities(session: Session) -> list[Speciality]:
    """Return the catalog's specialities: established ones first, in catalog order."""
    return list(session.scalars(select(Speciality).order_by(Speciality.emerging, Speciality.id)))


def find_speciality(session: Session, code: str) -> Speciality | None:
    """Return the speciality with this code (case-insensitive), if any."""
    return session.scalars(
        select(Speciality).where(func.lower(Speciality.code) == code.strip().lower())
    ).one_or_none()


def _proficiency_error(value: object) -> str | None:
    if not _is_whole(value) or not 0 <= value <= 4:  # type: ignore[operator]
        return "level must be a whole number from 0 (none) to 4 (expert)"
    return None


def assess(
    session: Session,
    engineer: Engineer,
    speciality: Speciality,
    proficiency: int,
    actor: Engineer,
) -> SkillAssessment:
    """Record a proficiency; the engineer's own is self-assessed, anyone else's confirmed.

    The caller checks that `actor` may (can_assess). A new row is written every
    time, so the history stays; the newest row counts.
    """
    if problem := _proficiency_error(proficiency):
        raise ValidationError({"level": problem})
    row = SkillAssessment(
        engineer_id=engineer.id,
        speciality_id=speciality.id,
        proficiency=proficiency,
        assessed_by_id=actor.id,
        confirmed=actor.id != engineer.id,
    )
    session.add(row)
    session.flush()
    return row


def current_assessment(
    session: Session, engineer_id: int, speciality_id: int
) -> SkillAssessment | None:
    """Return the newest assessment of one speciality for one engineer."""
    return session.scalars(
        select(SkillAssessment)
        .where(
            SkillAssessment.engineer_id == engineer_id,
            SkillAssessment.speciality_id == speciality_id,
        )
        .order_by(SkillAssessment.id.desc())
        .limit(1)
    ).first()


def confirm(
    session: Session, engineer: Engineer, speciality: Speciality, actor: Engineer
) -> SkillAssessment:
    """Confirm the current proficiency as the engineer's manager (a confirmed row, same level)."""
    if actor.id == engineer.id:
        raise ValidationError({"speciality": "your manager confirms your proficiency, not you"})
    latest = current_assessment(session, engineer.id, speciality.id)
    if latest is None:
        raise ValidationError(
            {"speciality": f"{engineer.name} has no proficiency in {speciality.name} to confirm"}
        )
    if latest.confirmed:
        return latest
    return assess(session, engineer, speciality, latest.proficiency, actor)


def current_skills(
    session: Session, engineer_ids: Iterable[int]
) -> dict[int, dict[int, SkillAssessment]]:
    """Return engineer id -> speciality id -> the newest assessment, in one query."""
    ids = list(engineer_ids)
    result: dict[int, dict[int, SkillAssessment]] = {i: {} for i in ids}
    if not ids:
        return result
    rows = session.scalars(
        select(SkillAssessment)
        .where(SkillAssessment.engineer_id.in_(ids))
        .options(selectinload(SkillAssessment.speciality))
        .order_by(SkillAssessment.id)
    )
    for row in rows:
        result[row.engineer_id][row.speciality_id] = row
    return result


def skill_history(session: Session, engineer_id: int) -> list[SkillAssessment]:
    """Return every assessment of an engineer, newest first, with who assessed."""
    return list(
        session.scalars(
            select(SkillAssessment)
            .where(SkillAssessment.engineer_id == engineer_id)
            .options(selectinload(SkillAssessment.speciality))
            .order_by(SkillAssessment.id.desc())
        )
    )


def assessors(session: Session, rows: Iterable[SkillAssessment]) -> dict[int, Engineer]:
    """Return the people who made these assessments, by id."""
    ids = {r.assessed_by_id for r in rows if r.assessed_by_id is not None}
    if not ids:
        return {}
    return {e.id: e for e in session.scalars(select(Engineer).where(Engineer.id.in_(ids)))}


@dataclass(frozen=True)
class SpecialityCoverage:
    """Who in a team holds one speciality, at what proficiency."""

    speciality: Speciality
    # (engineer, newest assessment or None), in the team's order.
    cells: list[tuple[Engineer, SkillAssessment | None]]

    @property
    def holders(self) -> list[Engineer]:
        """Return the members at HELD_AT or above."""
        return [e for e, a in self.cells if a is not None and a.proficiency >= HELD_AT]

    @property
    def single_point_of_failure(self) -> bool:
        return len(self.holders) == 1

    @property
    def uncovered(self) -> bool:
        return not self.holders


@dataclass(frozen=True)
class Coverage:
    """A team's specialities by people."""

    team: Team
    members: list[Engineer]
    rows: list[SpecialityCoverage]

    @property
    def single_points_of_failure(self) -> list[Speciality]:
        return [r.speciality for r in self.rows if r.single_point_of_failure]

    @property
    def uncovered(self) -> list[Speciality]:
        return [r.speciality for r in self.rows if r.uncovered]


def team_coverage(session: Session, team: Team) -> Coverage:
    """Return the proficiency of each active member in each speciality (the newest row counts).

    A speciality only one member holds at 3 or above is a single point of
    failure; one nobody holds at 3 or above is uncovered.
    """
    members = list(
        session.scalars(
            select(Engineer)
            .where(Engineer.team_id == team.id, Engineer.active.is_(True))
            .order_by(func.lower(Engineer.name), Engineer.id)
        )
    )
    skills = current_skills(session, [m.id for m in members])
    rows = [
        SpecialityCoverage(s, [(m, skills[m.id].get(s.id)) for m in members])
        for s in specialities(session)
    ]
    return Coverage(team, members, rows)


# --- apprenticeships ----------------------------------------------------------------


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
    if not actor.active or actor.access_role not in ("manager", "admin"):
        return False
    if actor.access_role == "admin":
        return True
    return manages(actor, junior) and (senior.id == actor.id or manages(actor, senior))


def default_path(session: Session, junior: Engineer, on: dt.date) -> LearningPath | None:
    """Return the first path the junior has not finished (courses done and exam held)."""
    paths = progress.paths_with_courses(session)
    logged = progress.logged_hours(session, junior.id)
    certs = progress.certifications_of(session, junior.id)
    for path in paths:
        done = progress.path_progress(path, logged).complete
        held = path.exam is None or progress.holding(certs, path.exam.credential, on) is not None
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
        errors["junior"] = "a junior is required"
    if senior is None:
        errors["senior"] = "a senior is required"
    if not _is_whole(months) or not (
        MIN_APPRENTICESHIP_MONTHS <= months <= MAX_APPRENTICESHIP_MONTHS  # type: ignore[operator]
    ):
        errors["months"] = (
            f"months must be a whole number from {MIN_APPRENTICESHIP_MONTHS} to "
            f"{MAX_APPRENTICESHIP_MONTHS} (3-6 is usual)"
        )
    if not isinstance(starts_on, dt.date):
        errors["starts_on"] = "a start date is required (YYYY-MM-DD)"
    elif starts_on < EARLIEST_DATE:
        errors["starts_on"] = f"start must not be before {EARLIEST_DATE.isoformat()}"
    elif starts_on > progress.add_months(today, 12):
        errors["starts_on"] = "start must be within a year from today"
    note = (note or "").strip()
    if len(note) > MAX_NOTE_LENGTH:
        errors["note"] = f"note must be at most {MAX_NOTE_LENGTH} characters"
    if junior is not None and senior is not None:
        if junior.id == senior.id:
            errors["senior"] = "the junior and the senior must be two different people"
        else:
            for name, who in (("junior", junior), ("senior", senior)):
                if not who.active:
                    errors[name] = f"{who.name} is deactivated"
            if "senior" not in errors and senior.level <= junior.level:
                errors["senior"] = (
                    f"the senior's level must be above the junior's "
                    f"({senior.name} is level {senior.level}, {junior.name} level {junior.level})"
                )
    if errors:
        raise ValidationError(errors)
    assert junior is not None and senior is not None and starts_on is not None
    ends_on = progress.add_months(starts_on, months)  # type: ignore[arg-type]
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
                "starts_on": f"{junior.name} is already apprenticed to {overlapping.senior.name} "
                f"from {overlapping.starts_on.isoformat()} to {overlapping.ends_on.isoformat()}"
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
    at_start: progress.PathProgress | None
    at_date: progress.PathProgress | None

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

    @property
    def gained_percent(self) -> float:
        if self.at_start is None or self.at_date is None:
            return 0.0
        return self.at_date.percent - self.at_start.percent


def apprenticeship_view(
    session: Session, apprenticeship: Apprenticeship, on: dt.date, levels: dict[int, Level]
) -> ApprenticeshipView:
    """Judge an apprenticeship on `on`: progress from its start to `on` (or its end), cost."""
    a = apprenticeship
    months = progress.whole_months_between(a.starts_on, a.ends_on)
    until = min(on, a.ends_on)
    elapsed = progress.whole_months_between(a.starts_on, until) if until >= a.starts_on else 0
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
        at_start = progress.path_progress(a.path, logged_until(session, a.junior_id, before))
        at_date = progress.path_progress(a.path, logged_until(session, a.junior_id, until))
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


# --- certification bonuses ------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Quarter:
    """A calendar quarter, written YYYY-Qn."""

    year: int
    number: int

    @property
    def starts_on(self) -> dt.date:
        return dt.date(self.year, 3 * self.number - 2, 1)

    @property
    def ends_on(self) -> dt.date:
        return progress.add_months(self.starts_on, 3) - dt.timedelta(days=1)

    def __str__(self) -> str:
        return f"{self.year}-Q{self.number}"

    @classmethod
    def of(cls, day: dt.date) -> Quarter:
        return cls(day.year, (day.month - 1) // 3 + 1)

    @classmethod
    def parse(cls, text: str) -> Quarter:
        """Read YYYY-Qn (n 1-4); a ValidationError on "quarter" otherwise."""
        match = _QUARTER.fullmatch(text.strip()) if isinstance(text, str) else None
        if match is None or not 1970 <= int(match.group(1)) <= 2999:
            raise ValidationError(
                {"quarter": "must be a quarter written YYYY-Qn, Q1 to Q4 (e.g. 2026-Q4)"}
            )
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def previous(self) -> Quarter:
        if self.number == 1:
            return Quarter(self.year - 1, 4)
        return Quarter(self.year, self.number - 1)

    @property
    def next(self) -> Quarter:
        if self.number == 4:
            return Quarter(self.year + 1, 1)
        return Quarter(self.year, self.number + 1)


def bonus_credential(session: Session, code: str) -> Credential:
    """Return the credential a bonus may be set on (not a group), or a ValidationError."""
    credential = session.scalars(
        select(Credential).where(func.upper(Credential.code) == (code or "").strip().upper())
    ).one_or_none()
    if credential is None:
        raise ValidationError({"credential": f"unknown credential code {code!r}"})
    if credential.kind == "group":
        members = ", ".join(m.code for m in credential.members)
        raise ValidationError(
            {
                "credential": f"{credential.code} is a group and is never earned itself; "
                f"set the bonus on its members ({members})"
            }
        )
    return credential


def set_bonus(
    session: Session,
    credential: Credential,
    amount: Decimal | int,
    renewals_earn: bool | None = None,
    *,
    effective_on: dt.date,
    today: dt.date,
) -> CertificationBonus:
    """Set what the organisation pays for earning `credential` on or after `effective_on`.

    Certifications passed before `effective_on` keep the amount in effect
    when they were passed, so a ledger already paid never changes; setting
    the same credential and date again corrects that amount. `effective_on`
    may be in the past (a correction, or a programme announced late), never
    after `today`. `renewals_earn` None keeps the choice in effect on that
    date (no when there is none).
    """
    errors: dict[str, str] = {}
    if credential.kind == "group":
        errors["credential"] = f"{credential.code} is a group; set the bonus on its members"
    if isinstance(amount, bool) or not isinstance(amount, int | Decimal):
        errors["amount"] = "amount must be a number"
    else:
        amount = Decimal(amount)
        if not amount.is_finite() or not 0 <= amount <= MAX_BONUS:
            errors["amount"] = f"amount must be from 0 to {MAX_BONUS:,}"
        elif amount != amount.quantize(Decimal("0.01")):
            errors["amount"] = "amount must have at most 2 decimals"
    if not isinstance(effective_on, dt.date) or isinstance(effective_on, dt.datetime):
        errors["effective_on"] = "effective from must be a date (YYYY-MM-DD)"
    elif effective_on > today:
        errors["effective_on"] = f"effective from must not be after today ({today.isoformat()})"
    elif effective_on < EARLIEST_DATE:
        errors["effective_on"] = f"effective from must be {EARLIEST_DATE.isoformat()} or later"
    if errors:
        raise ValidationError(errors)
    in_effect = bonus_on(session, credential, effective_on)
    if in_effect is not None and in_effect.effective_on == effective_on:
        bonus = in_effect
        bonus.amount = amount  # type: ignore[assignment]
        if renewals_earn is not None:
            bonus.renewals_earn = renewals_earn
        bonus.set_at = utcnow()
    else:
        if renewals_earn is None:
            renewals_earn = in_effect.renewals_earn if in_effect is not None else False
        bonus = CertificationBonus(
            credential_id=credential.id,
            credential=credential,
            effective_on=effective_on,
            amount=amount,
            renewals_earn=renewals_earn,
        )
        session.add(bonus)
    session.flush()
    return bonus


def since(bonus: CertificationBonus) -> str:
    """Say from when a bonus applies: "from YYYY-MM-DD", or "from the start"."""
    if bonus.effective_on <= EARLIEST_DATE:
        return "from the start"
    return f"from {bonus.effective_on.isoformat()}"


def bonus_on(session: Session, credential: Credential, day: dt.date) -> CertificationBonus | None:
    """Return the bonus in effect for a certification of `credential` passed on `day`."""
    return session.scalars(
        select(CertificationBonus)
        .where(
            CertificationBonus.credential_id == credential.id,
            CertificationBonus.effective_on <= day,
        )
        .order_by(CertificationBonus.effective_on.desc())
        .limit(1)
    ).one_or_none()


def bonuses(session: Session, history: bool = False) -> list[CertificationBonus]:
    """Return each credential's current bonus (the latest set), by credential code.

    With `history`, every amount ever set instead: by code, the latest first.
    """
    query = (
        select(CertificationBonus)
        .join(CertificationBonus.credential)
        .options(selectinload(CertificationBonus.credential))
        .order_by(Credential.code, CertificationBonus.effective_on.desc())
    )
    if not history:
        later = aliased(CertificationBonus)
        query = query.where(
            ~exists().where(
                later.credential_id == CertificationBonus.credential_id,
                later.effective_on > CertificationBonus.effective_on,
            )
        )
    return list(session.scalars(query))


def bonus_credentials(session: Session) -> list[Credential]:
    """Return the credentials a bonus can be set on (exams and external ones), by code."""
    return list(
        session.scalars(
            select(Credential).where(Credential.kind != "group").order_by(Credential.code)
        )
    )


@dataclass(frozen=True)
class BonusRow:
    """One bonus earned: who, which certification, when it was passed, how much."""

    certification: Certification
    amount: Decimal
    renewal: bool

    @property
    def engineer(self) -> Engineer:
        return self.certification.engineer

    @property
    def credential(self) -> Credential:
        return self.certification.credential

    @property
    def passed_on(self) -> dt.date:
        return self.certification.earned_on


def ledger(
    session: Session, quarter: Quarter, engineer_ids: Iterable[int] | None = None
) -> list[BonusRow]:
    """Return the bonuses earned in `quarter`: certifications earned in it that carry a bonus.

    Each earns the bonus in effect on the day it was passed. A renewal (a
    certification renewing an earlier one of the same credential) earns only
    when that bonus says renewals earn. Bonuses of 0 are left out.
    `engineer_ids` limits the rows to those people (None: everyone).
    """
    # The bonus in effect on the day each certification was passed.
    in_effect = (
        select(func.max(CertificationBonus.effective_on))
        .where(
            CertificationBonus.credential_id == Certification.credential_id,
            CertificationBonus.effective_on <= Certification.earned_on,
        )
        .correlate(Certification)
        .scalar_subquery()
    )
    query = (
        select(Certification, CertificationBonus)
        .join(
            CertificationBonus,
            and_(
                CertificationBonus.credential_id == Certification.credential_id,
                CertificationBonus.effective_on == in_effect,
            ),
        )
        .where(
            Certification.earned_on >= quarter.starts_on,
            Certification.earned_on <= quarter.ends_on,
            CertificationBonus.amount > 0,
        )
        .options(selectinload(Certification.engineer), selectinload(Certification.credential))
    )
    if engineer_ids is not None:
        query = query.where(Certification.engineer_id.in_(list(engineer_ids)))
    rows = []
    for cert, bonus in session.execute(query).tuples():
        renewal = cert.renews_id is not None
        if renewal and not bonus.renewals_earn:
            continue
        rows.append(BonusRow(cert, bonus.amount, renewal))
    return sorted(
        rows,
        key=lambda r: (r.passed_on, r.engineer.name.lower(), r.credential.code, r.certification.id),
    )


# --- rotation ------------------------------------------------------------------------


@dataclass(frozen=True)
class Rotation:
    """An engineer's job roles over time."""

    engineer: Engineer
    assignments: list[JobRoleAssignment]

    @property
    def roles(self) -> list[JobRole]:
        """Return the distinct job roles held, in the order first taken."""
        seen: list[JobRole] = []
        for a in self.assignments:
            if a.job_role not in seen:
                seen.append(a.job_role)
        return seen

    @property
    def across_domains(self) -> bool:
        """Return whether the engineer has worked in two or more job roles."""
        return len(self.roles) >= 2


def rotation(engineer: Engineer, on: dt.date | None = None) -> Rotation:
    """Return the job-role history of `engineer` (up to `on` when given), oldest first."""
    assignments = sorted(
        (a for a in engineer.role_assignments if on is None or a.started_on <= on),
        key=lambda a: (a.started_on, a.id or 0),
    )
    return Rotation(engineer, assignments)
