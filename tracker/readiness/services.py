"""Team readiness for a GPU fleet (DOMAIN.md section 4): templates, matching, gaps, forecast."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from tracker.catalog.models import Credential, TeamTemplate, TemplateSlot
from tracker.errors import ValidationError
from tracker.people.models import Engineer, JobRoleAssignment, Team
from tracker.progress.models import Certification
from tracker.progress.services import Status, add_months, days_left, holding, latest_for, status_on

NEAREST_CANDIDATES = 3


# --- loading the snapshot ---------------------------------------------------


def load_templates(session: Session) -> list[TeamTemplate]:
    """Return every template with its slots, roles and credentials, smallest band first."""
    return list(
        session.scalars(
            select(TeamTemplate)
            .options(
                selectinload(TeamTemplate.slots).selectinload(TemplateSlot.job_role),
                selectinload(TeamTemplate.slots)
                .selectinload(TemplateSlot.credentials)
                .selectinload(Credential.members),
                selectinload(TeamTemplate.team_credentials).selectinload(Credential.members),
            )
            .order_by(TeamTemplate.min_gpus)
        )
    )


@dataclass(frozen=True)
class Member:
    """An engineer with what readiness reads: job roles, level and certifications."""

    engineer: Engineer
    certifications: tuple[Certification, ...]

    @property
    def id(self) -> int:
        return self.engineer.id

    @property
    def name(self) -> str:
        return self.engineer.name

    @property
    def level(self) -> int:
        return self.engineer.level

    @property
    def role_codes(self) -> frozenset[str]:
        return self.engineer.job_role_codes


def load_members(session: Session, team_ids: Iterable[int]) -> dict[int, list[Member]]:
    """Return the active members of teams with job roles and certifications (few queries)."""
    engineers = session.scalars(
        select(Engineer)
        .where(Engineer.team_id.in_(list(team_ids)), Engineer.active.is_(True))
        .options(
            selectinload(Engineer.role_assignments).selectinload(JobRoleAssignment.job_role),
        )
        .order_by(Engineer.name, Engineer.id)
    ).all()
    certs = (
        session.scalars(
            select(Certification)
            .where(Certification.engineer_id.in_([e.id for e in engineers]))
            .options(selectinload(Certification.credential))
        ).all()
        if engineers
        else []
    )
    by_engineer: dict[int, list[Certification]] = {}
    for cert in certs:
        by_engineer.setdefault(cert.engineer_id, []).append(cert)
    members: dict[int, list[Member]] = {}
    for engineer in engineers:
        member = Member(engineer, tuple(by_engineer.get(engineer.id, ())))
        members.setdefault(engineer.team_id, []).append(member)
    return members


# --- the rules --------------------------------------------------------------


def choose_template(templates: Sequence[TeamTemplate], gpus: int) -> TeamTemplate:
    """Pick the template whose band holds `gpus`; below the smallest band, the smallest.

    Bands are inclusive on both ends in the catalog (small 10-99, medium
    100-999, large 1000 and up), which is DOMAIN.md's half-open [10, 100) etc.
    """
    if not templates:
        raise LookupError("the catalog has no team templates; run `tracker init`")
    ordered = sorted(templates, key=lambda t: t.min_gpus)
    for template in ordered:
        if template.min_gpus <= gpus and (template.max_gpus is None or gpus <= template.max_gpus):
            return template
    if gpus < ordered[0].min_gpus:
        return ordered[0]
    # A gap between bands: the largest template whose band starts below.
    return max((t for t in ordered if t.min_gpus <= gpus), key=lambda t: t.min_gpus)


@dataclass(frozen=True)
class Seat:
    """One seat of a slot (a slot of count 2 has seats 1 and 2)."""

    slot: TemplateSlot
    index: int

    @property
    def key(self) -> str:
        return f"{self.slot.position}.{self.index}"


def seats_of(template: TeamTemplate) -> list[Seat]:
    return [Seat(slot, i) for slot in template.slots for i in range(1, slot.count + 1)]


def lacks(member: Member, slot: TemplateSlot, on: dt.date) -> list[str]:
    """Return what keeps a member from the slot on `on`: job role, level, certifications."""
    missing = []
    if slot.job_role.code not in member.role_codes:
        missing.append(f"job role {slot.job_role.code}")
    if member.level < slot.min_level:
        missing.append(f"level {slot.min_level} (is {member.level})")
    elif member.level > slot.max_level:
        missing.append(f"level at most {slot.max_level} (is {member.level})")
    certs = member.certifications
    for credential in slot.credentials:
        if holding(certs, credential, on) is None:
            last = latest_for((c for c in certs if c.earned_on <= on), credential)
            if last is not None and last.expires_on is not None and last.expires_on < on:
                missing.append(f"valid {credential.code} (expired {last.expires_on.isoformat()})")
            else:
                missing.append(f"certification {credential.code}")
    return missing


def fits(member: Member, slot: TemplateSlot, on: dt.date) -> bool:
    return not lacks(member, slot, on)


def max_matching(
    seats: Sequence[Seat], engineers: Sequence[Member], fit: dict[tuple[int, int], bool]
) -> dict[int, int]:
    """Return seat index -> engineer index of a maximum matching (augmenting paths).

    Kuhn's algorithm: each seat tries every fitting engineer, displacing one
    already placed when that engineer can move to another seat. A greedy fill
    would leave seats empty that a rearrangement fills.
    """
    engineer_of: dict[int, int] = {}  # engineer index -> seat index
    candidates = [
        [e for e in range(len(engineers)) if fit.get((s, e), False)] for s in range(len(seats))
    ]

    def place(seat: int, visited: set[int]) -> bool:
        for e in candidates[seat]:
            if e in visited:
                continue
            visited.add(e)
            if e not in engineer_of or place(engineer_of[e], visited):
                engineer_of[e] = seat
                return True
        return False

    for seat in range(len(seats)):
        place(seat, set())
    return {seat: e for e, seat in engineer_of.items()}


@dataclass(frozen=True)
class Candidate:
    member: Member
    lacks: list[str]


@dataclass(frozen=True)
class SeatResult:
    seat: Seat
    member: Member | None
    candidates: list[Candidate] = field(default_factory=list)


@dataclass(frozen=True)
class TeamCredentialResult:
    credential: Credential
    holders: list[Member]

    @property
    def met(self) -> bool:
        return bool(self.holders)


@dataclass(frozen=True)
class TeamReadiness:
    """A team's readiness for a fleet on a date."""

    team: Team
    gpus: int
    on: dt.date
    template: TeamTemplate
    seats: list[SeatResult]
    team_credentials: list[TeamCredentialResult]

    @property
    def filled(self) -> int:
        return sum(1 for s in self.seats if s.member is not None)

    @property
    def total(self) -> int:
        return len(self.seats)

    @property
    def percent(self) -> float:
        return round(self.filled / self.total * 100, 1) if self.total else 100.0

    @property
    def gaps(self) -> list[SeatResult]:
        return [s for s in self.seats if s.member is None]


def readiness(
    team: Team,
    members: Sequence[Member],
    templates: Sequence[TeamTemplate],
    on: dt.date,
    gpus: int | None = None,
) -> TeamReadiness:
    """Fill the template's seats with a maximum matching and report the gaps on `on`."""
    gpus = team.gpus if gpus is None else gpus
    template = choose_template(templates, gpus)
    seats = seats_of(template)
    fit = {
        (s, e): fits(member, seat.slot, on)
        for s, seat in enumerate(seats)
        for e, member in enumerate(members)
    }
    matching = max_matching(seats, members, fit)
    assigned = set(matching.values())
    free = [e for i, e in enumerate(members) if i not in assigned]
    results = []
    for s, seat in enumerate(seats):
        if s in matching:
            results.append(SeatResult(seat, members[matching[s]]))
            continue
        ranked = sorted(
            (Candidate(e, lacks(e, seat.slot, on)) for e in free),
            key=lambda c: (len(c.lacks), c.member.name, c.member.id),
        )
        results.append(SeatResult(seat, None, ranked[:NEAREST_CANDIDATES]))
    team_credentials = [
        TeamCredentialResult(
            credential,
            [m for m in members if holding(m.certifications, credential, on) is not None],
        )
        for credential in template.team_credentials
    ]
    return TeamReadiness(team, gpus, on, template, results, team_credentials)


@dataclass(frozen=True)
class ForecastPoint:
    on: dt.date
    filled: int
    total: int
    percent: float


def forecast(
    team: Team,
    members: Sequence[Member],
    templates: Sequence[TeamTemplate],
    today: dt.date,
    gpus: int | None = None,
    months: int = 12,
) -> list[ForecastPoint]:
    """Return readiness on the first day of each of the next `months` months, without renewals."""
    first = dt.date(today.year, today.month, 1)
    points = []
    for n in range(1, months + 1):
        on = add_months(first, n)
        result = readiness(team, members, templates, on, gpus)
        points.append(ForecastPoint(on, result.filled, result.total, result.percent))
    return points


def team_readiness(
    session: Session, team: Team, on: dt.date, gpus: int | None = None
) -> TeamReadiness:
    """Load a team's snapshot and judge its readiness on `on` (a bounded number of queries)."""
    members = load_members(session, [team.id]).get(team.id, [])
    return readiness(team, members, load_templates(session), on, gpus)


# --- heat map ---------------------------------------------------------------


@dataclass(frozen=True)
class HeatCell:
    status: Status
    certification: Certification | None
    days_left: int | None = None


def heat_cell(member: Member, credential: Credential, on: dt.date) -> HeatCell:
    """Return the state of one credential (or group) for one member on `on`."""
    held = holding(member.certifications, credential, on)
    if held is not None:
        return HeatCell(status_on(held, on), held, days_left(held, on))
    last = latest_for((c for c in member.certifications if c.earned_on <= on), credential)
    if last is not None:
        return HeatCell(Status.EXPIRED, last, days_left(last, on))
    return HeatCell(Status.MISSING, None)


def heat_columns(
    template: TeamTemplate, path_credentials: Sequence[Credential]
) -> list[Credential]:
    """Return the credentials a team's heat map shows: the paths' exams, then the template's."""
    columns: list[Credential] = []
    for credential in [
        *path_credentials,
        *(c for slot in template.slots for c in slot.credentials),
        *template.team_credentials,
    ]:
        if credential not in columns:
            columns.append(credential)
    return columns


# --- return on investment (DOMAIN.md section 6) -----------------------------


@dataclass(frozen=True)
class Roi:
    investment_total: int
    returns_total: int

    @property
    def first_year_roi_percent(self) -> int:
        """(returns - investment) / investment, in whole percent (rounded down)."""
        return (self.returns_total - self.investment_total) * 100 // self.investment_total

    @property
    def ongoing_roi_percent(self) -> int:
        """Later years, with no new investment: returns / first-year investment."""
        return self.returns_total * 100 // self.investment_total


def roi(investment: dict[str, int], returns: dict[str, int]) -> Roi:
    """Return the ROI of named investment and return lines (currency units)."""
    errors = {}
    for kind, lines in (("investment", investment), ("returns", returns)):
        for name, amount in lines.items():
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                errors[f"{kind}.{name}"] = "must be a whole amount of 0 or more"
    total = sum(investment.values()) if not errors else 0
    if not errors and total <= 0:
        errors["investment"] = "the investment must be more than 0"
    if errors:
        raise ValidationError(errors)
    return Roi(total, sum(returns.values()))
