"""Team readiness for a GPU fleet (DOMAIN.md section 4): templates, matching, gaps, forecast."""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property, lru_cache
from typing import NamedTuple

from sqlalchemy import ColumnElement, Select, bindparam, func, select
from sqlalchemy.orm import Session, joinedload, selectinload

from tracker.catalog.models import (
    Credential,
    LearningPath,
    Level,
    TeamTemplate,
    TemplateSlot,
    TrainingStrategy,
)
from tracker.catalog.snapshot import CredentialInfo, SlotInfo, TemplateInfo, catalog_snapshot
from tracker.errors import ValidationError
from tracker.people.models import Engineer, JobRoleAssignment, Team
from tracker.progress.models import Certification
from tracker.progress.services.paths import PathProgress
from tracker.progress.services.validity import (
    Status,
    add_months,
    days_left,
    holding,
    latest_for,
    newest_per_credential,
    status_on,
)

NEAREST_CANDIDATES = 3


# --- loading the snapshot ---------------------------------------------------


def load_templates(session: Session) -> list[TeamTemplate]:
    """Return every template with its slots, roles and credentials, smallest band first."""
    return list(
        session.scalars(
            select(TeamTemplate)
            .options(
                # Many-to-one loads ride on their parent's query (joined).
                selectinload(TeamTemplate.slots).joinedload(TemplateSlot.job_role),
                selectinload(TeamTemplate.slots)
                .selectinload(TemplateSlot.credentials)
                .selectinload(Credential.members),
                selectinload(TeamTemplate.team_credentials).selectinload(Credential.members),
            )
            .order_by(TeamTemplate.min_gpus)
        )
    )


class Member:
    """An engineer with what readiness reads: job roles, level and certifications.

    Plain values read once: matching asks for every slot of every template and
    date, and plain values are many times cheaper to read than mapped
    attributes (or cached properties). Compares like the (engineer,
    certifications) pair it stands for.
    """

    __slots__ = (
        "_certifications",
        "_credentials",
        "_rows",
        "_valid",
        "engineer",
        "id",
        "level",
        "name",
        "role_codes",
    )

    engineer: Engineer | Person
    id: int
    name: str
    level: int
    role_codes: frozenset[str]

    def __init__(
        self,
        engineer: Engineer | Person,
        certifications: Iterable[Certification | HeldCertification],
    ) -> None:
        certs = tuple(certifications)
        self._set(
            engineer,
            [(c.id, c.engineer_id, c.credential_id, c.earned_on, c.expires_on) for c in certs],
        )
        self._certifications: tuple[Certification | HeldCertification, ...] | None = certs
        self._credentials: Mapping[int, Credential | CredentialInfo] | None = None

    @classmethod
    def _of_rows(
        cls,
        person: Person,
        rows: Sequence[tuple[int, int, int, dt.date, dt.date | None]],
        credentials: Mapping[int, Credential | CredentialInfo],
    ) -> Member:
        """A member from certification rows (id, engineer, credential, earned, expires).

        Matching reads the rows alone; the `HeldCertification`s, which name
        their credential, are made when first asked for (a page names few).
        """
        member = cls.__new__(cls)
        member._set(person, rows)
        member._certifications = None
        member._credentials = credentials
        return member

    def _set(self, engineer: Engineer | Person, rows: Sequence[tuple]) -> None:
        self.engineer = engineer
        self.id = engineer.id
        self.name = engineer.name
        self.level = engineer.level
        self.role_codes = engineer.job_role_codes
        self._rows = rows
        self._valid: dict[dt.date, frozenset[int]] = {}

    @property
    def certifications(self) -> tuple[Certification | HeldCertification, ...]:
        certs = self._certifications
        if certs is None:
            credentials = self._credentials
            assert credentials is not None
            certs = self._certifications = tuple(
                HeldCertification(*row, credentials[row[2]]) for row in self._rows
            )
        return certs

    @property
    def held(self) -> tuple[tuple[int, dt.date, dt.date | None], ...]:
        """Return (credential id, earned on, expires on) of every certification."""
        return tuple((c, earned, expires) for _, _, c, earned, expires in self._rows)

    def __repr__(self) -> str:
        return f"Member({self.engineer!r}, {self.certifications!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Member):
            return NotImplemented
        return (self.engineer, self.certifications) == (other.engineer, other.certifications)

    def __hash__(self) -> int:
        return hash((self.engineer, self.certifications))

    def valid_on(self, on: dt.date) -> frozenset[int]:
        """Return the ids of the credentials this member holds a valid certification of on `on`."""
        valid = self._valid.get(on)
        if valid is None:
            valid = frozenset(
                [
                    c
                    for _, _, c, earned, expires in self._rows
                    if earned <= on and (expires is None or on <= expires)
                ]
            )
            self._valid[on] = valid
        return valid

    def holds(self, wanted: frozenset[int], on: dt.date) -> bool:
        """Return whether a certification of one of `wanted` is valid on `on`."""
        return not wanted.isdisjoint(self.valid_on(on))

    def latest(
        self, wanted: frozenset[int], on: dt.date
    ) -> Certification | HeldCertification | None:
        """Return the newest certification of one of `wanted` earned by `on`, valid or not.

        What `latest_for` returns of the certifications earned by `on`.
        """
        best = None
        best_key = None
        for i, (cert_id, _, credential_id, earned, _) in enumerate(self._rows):
            if credential_id in wanted and earned <= on:
                key = (earned, cert_id or 0)
                if best_key is None or key > best_key:
                    best, best_key = i, key
        return None if best is None else self.certifications[best]


class Person(NamedTuple):
    """What readiness reads of an engineer, as plain values (the engineer's `Member.engineer`)."""

    id: int
    name: str
    email: str
    level: int
    team_id: int | None
    hired_on: dt.date | None
    experience_months: int
    job_role_codes: frozenset[str]


class HeldCertification(NamedTuple):
    """A certification as readiness reads it: plain values and the credential it is of."""

    id: int
    engineer_id: int
    credential_id: int
    earned_on: dt.date
    expires_on: dt.date | None
    credential: Credential


def load_members(
    session: Session,
    team_ids: Iterable[int] | None,
    credentials: Mapping[int, Credential | CredentialInfo] | None = None,
) -> dict[int, list[Member]]:
    """Return the active members of teams with job roles and certifications.

    Two queries however many people the teams hold (three without
    `credentials`), none per person, and plain rows rather than mapped
    entities: an organisation's page reads tens of thousands of
    certifications, and building an entity for each would cost many times the
    query. Members carry a `Person` and `HeldCertification`s, which read like
    the engineer and the certifications they stand for.

    `team_ids` None means every team. With `credentials` (id -> credential,
    e.g. a catalog snapshot's) the certifications point at those, and the
    query that loads the credentials held is not needed.
    """
    params: dict[str, object] = {}
    if team_ids is None:
        people, certs = _MEMBER_QUERIES["all"]
    else:
        ids = list(team_ids)
        if not ids:
            return {}
        if len(ids) == 1:
            people, certs = _MEMBER_QUERIES["one"]
            params = {"team_id": ids[0]}
        else:
            people, certs = _member_queries(Engineer.team_id.in_(ids))
    if session.autoflush:
        session.flush()
    # Plain rows (Core), not the ORM's: nothing here becomes an entity; and
    # fetched at once, not row by row.
    connection = session.connection()
    if credentials is None:
        held = certs.with_only_columns(Certification.credential_id).distinct()
        credentials = {
            c.id: c
            for c in session.scalars(
                select(Credential).where(Credential.id.in_(held.scalar_subquery())), params
            )
        }
    by_engineer: dict[int, list] = {}
    cert_rows = connection.execute(certs, params).all()
    for row in cert_rows:
        by_engineer.setdefault(row[1], []).append(row)
    missing = {row[2] for row in cert_rows}.difference(credentials)
    if missing:
        # Made after the snapshot was (an engineer's new credential, just now).
        credentials = {**credentials, **{c: _credential(session, c) for c in missing}}
    members: dict[int, list[Member]] = {}
    of_rows = Member._of_rows
    # One row per engineer and current job role (one without a role), by name.
    person = None
    for *row, code in connection.execute(people, params).all():
        if person is None or person.id != row[0]:
            person = Person(*row, job_role_codes=frozenset())
            members.setdefault(person.team_id, []).append(
                of_rows(person, by_engineer.get(person.id, ()), credentials)
            )
        if code is not None:
            member = members[person.team_id][-1]
            person = person._replace(job_role_codes=person.job_role_codes | {code})
            member.engineer, member.role_codes = person, person.job_role_codes
    return members


def _member_queries(team: ColumnElement[bool]) -> tuple[Select, Select]:
    """Return the queries of `load_members` for the active engineers of teams (`team`)."""
    from tracker.catalog.models import JobRole

    members_of = (team, Engineer.active.is_(True))
    people = (
        select(
            Engineer.id,
            Engineer.name,
            Engineer.email,
            Engineer.level,
            Engineer.team_id,
            Engineer.hired_on,
            Engineer.experience_months,
            JobRole.code,
        )
        .outerjoin(
            JobRoleAssignment,
            (JobRoleAssignment.engineer_id == Engineer.id) & JobRoleAssignment.ended_on.is_(None),
        )
        .outerjoin(JobRole, JobRole.id == JobRoleAssignment.job_role_id)
        .where(*members_of)
        .order_by(Engineer.name, Engineer.id)
    )
    certs = (
        select(
            Certification.id,
            Certification.engineer_id,
            Certification.credential_id,
            Certification.earned_on,
            Certification.expires_on,
        )
        .join(Engineer, Engineer.id == Certification.engineer_id)
        .where(*members_of)
    )
    return people, certs


# Built once: an organisation's teams, and one team (:team_id).
_MEMBER_QUERIES = {
    "all": _member_queries(Engineer.team_id.is_not(None)),
    "one": _member_queries(Engineer.team_id == bindparam("team_id")),
}


def _credential(session: Session, credential_id: int) -> Credential:
    """Load a credential a snapshot lacks (made after it: a race with an engineer's new one)."""
    credential = session.get(Credential, credential_id)
    assert credential is not None  # the certification's foreign key
    return credential


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
    valid = member.valid_on(on)
    for credential in slot.credentials:
        wanted = credential.satisfying_ids()
        if wanted.isdisjoint(valid):  # holding(...) is None, without scanning the list
            last = member.latest(wanted, on)
            if last is not None and last.expires_on is not None and last.expires_on < on:
                # Name what lapsed (NCA-AIIO), not the group the seat asks for.
                lapsed = last.credential.code
                missing.append(f"valid {lapsed} (expired {last.expires_on.isoformat()})")
            else:
                missing.append(f"certification {credential.code}")
    return missing


@dataclass(frozen=True)
class SlotNeeds:
    """What a slot asks, as plain values: job role, level range, credentials (satisfying ids)."""

    role: str
    min_level: int
    max_level: int
    credentials: tuple[frozenset[int], ...]

    @classmethod
    def of(cls, slot: TemplateSlot | SlotInfo) -> SlotNeeds:
        if isinstance(slot, SlotInfo):
            return _needs_of_info(slot)
        return cls._of(slot)

    @classmethod
    def _of(cls, slot: TemplateSlot | SlotInfo) -> SlotNeeds:
        return cls(
            slot.job_role.code,
            slot.min_level,
            slot.max_level,
            tuple(c.satisfying_ids() for c in slot.credentials),
        )

    def lacking(self, member: Member, on: dt.date) -> int:
        """Return how many things `lacks` names: job role, level, each credential not held."""
        missing = (self.role not in member.role_codes) + (
            not self.min_level <= member.level <= self.max_level
        )
        if self.credentials:
            valid = member.valid_on(on)
            for wanted in self.credentials:
                if wanted.isdisjoint(valid):
                    missing += 1
        return missing

    def met_by(self, member: Member, on: dt.date) -> bool:
        if self.role not in member.role_codes or not (
            self.min_level <= member.level <= self.max_level
        ):
            return False
        if self.credentials:
            valid = member.valid_on(on)
            for wanted in self.credentials:
                if wanted.isdisjoint(valid):
                    return False
        return True


@lru_cache(maxsize=1024)
def _needs_of_info(slot: SlotInfo) -> SlotNeeds:
    """A snapshot's slot never changes: work out what it asks once."""
    return SlotNeeds._of(slot)


def fits(member: Member, slot: TemplateSlot, on: dt.date) -> bool:
    """Return whether a member can take the slot on `on` (what `lacks` checks, without words)."""
    return SlotNeeds.of(slot).met_by(member, on)


def max_matching(
    seats: Sequence[Seat],
    engineers: Sequence[Member],
    fit: dict[tuple[int, int], bool],
    start: dict[int, int] | None = None,
    preference: Callable[[int, int], object] | None = None,
) -> dict[int, int]:
    """Return seat index -> engineer index of a maximum matching (augmenting paths).

    Kuhn's algorithm: each seat tries every fitting engineer, displacing one
    already placed when that engineer can move to another seat. A greedy fill
    would leave seats empty that a rearrangement fills. Starting from a
    matching (`start`) keeps its seats filled: augmenting paths only add.
    `preference(seat, engineer)` orders who a seat tries first.
    """
    candidates = []
    for s in range(len(seats)):
        fitting = [e for e in range(len(engineers)) if fit.get((s, e), False)]
        if preference is not None:
            fitting.sort(key=lambda e, s=s: preference(s, e))
        candidates.append(fitting)
    return _kuhn(candidates, start)


def _kuhn(
    candidates: Sequence[Sequence[int]], start: dict[int, int] | None = None
) -> dict[int, int]:
    """`max_matching` on each seat's fitting engineers, in the order each seat tries them."""
    engineer_of = {e: s for s, e in (start or {}).items()}  # engineer -> seat

    def place(seat: int, visited: set[int]) -> bool:
        for e in candidates[seat]:
            if e in visited:
                continue
            visited.add(e)
            if e not in engineer_of or place(engineer_of[e], visited):
                engineer_of[e] = seat
                return True
        return False

    matched = set(engineer_of.values())
    for seat in range(len(candidates)):
        if seat not in matched:
            place(seat, set())
    return {seat: e for e, seat in engineer_of.items()}


@dataclass(frozen=True)
class Candidate:
    member: Member
    lacks: list[str]

    @property
    def trainable(self) -> bool:
        """Whether certifications alone would seat them: they have the job role and level."""
        return not any(item.startswith(("job role ", "level ")) for item in self.lacks)


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

    # Counted once: the organisation page reads them for hundreds of teams.
    @cached_property
    def filled(self) -> int:
        return sum(1 for s in self.seats if s.member is not None)

    @property
    def total(self) -> int:
        return len(self.seats)

    @cached_property
    def percent(self) -> float:
        return _percent(self.filled, self.total)

    @cached_property
    def gaps(self) -> list[SeatResult]:
        return [s for s in self.seats if s.member is None]


def readiness(
    team: Team,
    members: Sequence[Member],
    templates: Sequence[TeamTemplate],
    on: dt.date,
    gpus: int | None = None,
    candidates: bool = True,
) -> TeamReadiness:
    """Fill the template's seats with a maximum matching and report the gaps on `on`.

    Without `candidates` the gaps name no nearest candidates (a forecast
    point needs the filled seats only).
    """
    gpus = team.gpus if gpus is None else gpus
    template = choose_template(templates, gpus)
    seats = _seats(template)
    people = _judged(members, on)
    matching = _kuhn(_seat_candidates(template, seats, people))
    assigned = set(matching.values())
    free = [p for p in people if p[0] not in assigned]
    results = []
    nearest: dict[int, list[Candidate]] = {}
    for s, seat in enumerate(seats):
        if s in matching:
            results.append(SeatResult(seat, members[matching[s]]))
            continue
        if not candidates:
            results.append(SeatResult(seat, None))
            continue
        if seat.slot.id not in nearest:
            # Rank by how many things each lacks (counted cheaply, as `lacks`
            # would list them), then word what the nearest few lack.
            ranked = heapq.nsmallest(NEAREST_CANDIDATES, _lacking(seat.slot, free))
            nearest[seat.slot.id] = [
                Candidate(members[e], lacks(members[e], seat.slot, on)) for *_, e in ranked
            ]
        results.append(SeatResult(seat, None, list(nearest[seat.slot.id])))
    team_credentials = [
        TeamCredentialResult(
            credential, [m for _, m, _, _, valid in people if not wanted.isdisjoint(valid)]
        )
        for credential in template.team_credentials
        for wanted in [credential.satisfying_ids()]
    ]
    return TeamReadiness(team, gpus, on, template, results, team_credentials)


def _seats(template: TeamTemplate | TemplateInfo) -> list[Seat]:
    if isinstance(template, TemplateInfo):
        return _seats_of_info(template)
    return seats_of(template)


@lru_cache(maxsize=256)
def _seats_of_info(template: TemplateInfo) -> list[Seat]:
    """A snapshot's template never changes: its seats are made once (callers only read them)."""
    return seats_of(template)


# A member as matching reads it: (index, member, job roles, level, credential
# ids held valid on the day).
Judged = tuple[int, Member, frozenset[str], int, frozenset[int]]


def _judged(members: Sequence[Member], on: dt.date) -> list[Judged]:
    return [(e, m, m.role_codes, m.level, m.valid_on(on)) for e, m in enumerate(members)]


def _seat_candidates(
    template: TeamTemplate | TemplateInfo, seats: Sequence[Seat], people: Sequence[Judged]
) -> list[list[int]]:
    """Return, for each seat, the members (indices, in order) who fit it.

    Seats of one slot ask the same: each member is judged once per slot.
    SlotNeeds.met_by, inlined: this runs for every member, slot and date.
    """
    fitting: dict[int, list[int]] = {}
    for slot in template.slots:
        needs = SlotNeeds.of(slot)
        role, low, high, wanted = needs.role, needs.min_level, needs.max_level, needs.credentials
        if not wanted:
            fitting[slot.id] = [
                e for e, _, roles, level, _ in people if role in roles and low <= level <= high
            ]
        elif len(wanted) == 1:
            only = wanted[0]
            fitting[slot.id] = [
                e
                for e, _, roles, level, valid in people
                if role in roles and low <= level <= high and not only.isdisjoint(valid)
            ]
        else:
            fitting[slot.id] = [
                e
                for e, _, roles, level, valid in people
                if role in roles
                and low <= level <= high
                and not any(w.isdisjoint(valid) for w in wanted)
            ]
    return [fitting[seat.slot.id] for seat in seats]


def _lacking(
    slot: TemplateSlot | SlotInfo, free: Iterable[Judged]
) -> list[tuple[int, str, int, int]]:
    """Return (how many things `lacks` names, name, id, index) of each free member for a slot.

    SlotNeeds.lacking, inlined: this runs for every free member and open slot.
    """
    needs = SlotNeeds.of(slot)
    role, low, high, wanted = needs.role, needs.min_level, needs.max_level, needs.credentials
    return [
        (
            (role not in roles)
            + (not low <= level <= high)
            + sum([w.isdisjoint(valid) for w in wanted]),
            m.name,
            m.id,
            e,
        )
        for e, m, roles, level, valid in free
    ]


def _percent(filled: int, total: int) -> float:
    return round(filled / total * 100, 1) if total else 100.0


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
    gpus = team.gpus if gpus is None else gpus
    points: list[ForecastPoint] = []
    if months < 1:
        return points
    template = choose_template(templates, gpus)
    seats = _seats(template)
    total = len(seats)
    # Months in which the same people fit the same seats fill as many: the
    # matching is only run for each new pattern of fits.
    filled_for: dict[tuple[tuple[int, ...], ...], int] = {}
    for n in range(1, months + 1):
        on = add_months(first, n)
        candidates = _seat_candidates(template, seats, _judged(members, on))
        pattern = tuple(map(tuple, candidates))
        filled = filled_for.get(pattern)
        if filled is None:
            filled = filled_for[pattern] = len(_kuhn(candidates))
        points.append(ForecastPoint(on, filled, total, _percent(filled, total)))
    return points


def team_readiness(
    session: Session, team: Team, on: dt.date, gpus: int | None = None
) -> TeamReadiness:
    """Load a team's snapshot and judge its readiness on `on` (a bounded number of queries)."""
    catalog = catalog_snapshot(session)
    members = load_members(session, [team.id], catalog.credentials).get(team.id, [])
    return readiness(team, members, catalog.templates, on, gpus)


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


# --- plan to a target (DOMAIN.md sections 4-5, 7) ---------------------------

SANE_WEEKLY_HOURS = Decimal(10)


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
    from tracker.progress.services.paths import paths_with_courses

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
    from tracker.progress.services.paths import path_progress
    from tracker.progress.services.validity import experience_months

    if slot.job_role.code not in member.role_codes or member.level > slot.max_level:
        return None
    needed: list[LearningPath] = []

    def need(credential: Credential) -> bool:
        """Add the path(s) earning `credential` by the target; False when no path can."""
        if holding(member.certifications, credential, target) is not None:
            return True
        path = catalog.path_for(credential)
        if path is None or path.exam is None:
            return False
        for prerequisite in path.exam.prerequisites:
            if not need(prerequisite):
                return False
        if experience_months(member.engineer, target) < path.exam.experience_months:
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
            if experience_months(member.engineer, target) < level.min_experience_months:
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
    from tracker.progress.services.paths import logged_hours

    errors = {}
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 0:
        errors["gpus"] = "fleet size must be a whole number of GPUs, 0 or more"
    if target <= today:
        errors["target"] = "the target date must be after today"
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
    seniors = [m for m in members if m.level >= 4]
    costs = _strategy_costs(catalog, len(trainees), seniors)
    bands = [p.salary_range for p in plan_seats]
    yearly = (sum(b[0] for b in bands), sum(b[1] for b in bands))
    return Plan(team, gpus, today, target, template, plan_seats, costs, yearly)


def _fewest_hours(trainings: dict[tuple[int, int], Training | None]):
    """Prefer, for a seat, whoever is ready or has the fewest training hours left."""

    def hours(seat: int, engineer: int) -> Decimal:
        training = trainings.get((seat, engineer))
        return Decimal(0) if training is None else training.remaining_hours

    return hours


def _strategy_costs(
    catalog: Catalog, participants: int, seniors: list[Member]
) -> list[StrategyCost]:
    costs = []
    bootcamp = catalog.strategies.get("bootcamp")
    for strategy in catalog.strategies.values():
        if participants == 0:
            costs.append(StrategyCost(strategy, 0, 0, "nobody needs training"))
        elif strategy.code == "bootcamp" and strategy.cost_min is not None:
            costs.append(
                StrategyCost(
                    strategy,
                    participants * strategy.cost_min,
                    participants * strategy.cost_max,
                    f"{participants} participants x {strategy.cost_min:,}-{strategy.cost_max:,}",
                )
            )
        elif strategy.discount_min_percent is not None and bootcamp and bootcamp.cost_min:
            low = participants * bootcamp.cost_min
            high = participants * bootcamp.cost_max
            if participants >= (strategy.min_group_size or 0):
                costs.append(
                    StrategyCost(
                        strategy,
                        low * (100 - strategy.discount_max_percent) // 100,
                        high * (100 - strategy.discount_min_percent) // 100,
                        f"{strategy.discount_min_percent}-{strategy.discount_max_percent} % off "
                        f"list price for {participants} participants",
                    )
                )
            else:
                costs.append(
                    StrategyCost(
                        strategy,
                        low,
                        high,
                        f"no discount: needs {strategy.min_group_size} or more participants, "
                        f"the plan has {participants}",
                    )
                )
        elif strategy.productivity_loss_percent is not None:
            if not seniors:
                costs.append(
                    StrategyCost(strategy, None, None, "needs a senior (level 4 or 5) to shadow")
                )
                continue
            senior = max(seniors, key=lambda m: m.level)
            level = catalog.levels[senior.level]
            yearly = level.salary_midpoint * strategy.productivity_loss_percent // 100
            low = participants * yearly * (strategy.min_weeks or 0) // 52
            high = participants * yearly * (strategy.max_weeks or 0) // 52
            costs.append(
                StrategyCost(
                    strategy,
                    low,
                    high,
                    f"{strategy.productivity_loss_percent} % of {senior.name}'s time "
                    f"(level {senior.level} midpoint {level.salary_midpoint:,}) for "
                    f"{strategy.min_weeks}-{strategy.max_weeks} weeks per apprentice",
                )
            )
        else:
            costs.append(StrategyCost(strategy, None, None, "the organisation's own cost"))
    return costs


# --- what the team and organisation pages show ------------------------------


def visible_teams(session: Session, actor: Engineer) -> list[Team]:
    """Return the teams whose readiness `actor` may see: their own as a manager, all as admin."""
    query = select(Team).options(selectinload(Team.manager)).order_by(Team.name)
    if actor.access_role != "admin":
        query = query.where(Team.manager_id == actor.id)
    return list(session.scalars(query))


def can_view_team(actor: Engineer, team: Team) -> bool:
    """Return whether `actor` may see a team's readiness (its manager, or an admin)."""
    return actor.active and (actor.access_role == "admin" or team.manager_id == actor.id)


@dataclass(frozen=True)
class HeatRow:
    member: Member
    cells: list[HeatCell]
    paths: list[PathProgress]


@dataclass(frozen=True)
class TeamPage:
    readiness: TeamReadiness
    columns: list[Credential]
    rows: list[HeatRow]
    expiring: list[tuple[Member, Certification, Status, int | None]]
    forecast: list[ForecastPoint]


def team_page(
    session: Session, team: Team, on: dt.date, gpus: int | None = None, months: int = 12
) -> TeamPage:
    """Gather a team page's readiness, heat map, progress and forecast in a fixed set of queries."""
    from tracker.progress.services.paths import path_progress

    catalog = catalog_snapshot(session)
    members = load_members(session, [team.id], catalog.credentials).get(team.id, [])
    templates = catalog.templates
    result = readiness(team, members, templates, on, gpus)
    paths = catalog.paths
    columns = heat_columns(result.template, [p.exam.credential for p in paths if p.exam])
    logged = _logged_hours_of_team(session, team.id)
    no_hours: dict[int, Decimal] = {}
    rows = [
        HeatRow(
            m,
            [heat_cell(m, c, on) for c in columns],
            [path_progress(p, logged.get(m.id, no_hours)) for p in paths],
        )
        for m in members
    ]
    current = [
        (m, c)
        for m in members
        for c in newest_per_credential(m.certifications).values()
        if c.expires_on is not None
    ]
    expiring = sorted(
        ((m, c, status_on(c, on), days_left(c, on)) for m, c in current),
        key=lambda row: (row[1].expires_on, row[0].name),
    )
    points = forecast(team, members, templates, on, gpus, months)
    return TeamPage(result, columns, rows, expiring, points)


def _logged_hours_of_team(session: Session, team_id: int) -> dict[int, dict[int, Decimal]]:
    """Return engineer id -> course id -> hours logged, for a team's active members (one query)."""
    from tracker.progress.models import HourLog

    result: dict[int, dict[int, Decimal]] = {}
    for engineer_id, course_id, total in session.execute(
        select(HourLog.engineer_id, HourLog.course_id, func.sum(HourLog.hours))
        .join(Engineer, Engineer.id == HourLog.engineer_id)
        .where(Engineer.team_id == team_id, Engineer.active.is_(True))
        .group_by(HourLog.engineer_id, HourLog.course_id)
    ):
        result.setdefault(engineer_id, {})[course_id] = total
    return result


def organisation(session: Session, on: dt.date) -> list[TeamReadiness]:
    """Return every team's readiness on `on` (the admins' organisation page)."""
    teams = list(
        session.scalars(select(Team).options(joinedload(Team.manager)).order_by(Team.name))
    )
    catalog = catalog_snapshot(session)
    members = load_members(session, None, catalog.credentials)
    return [readiness(t, members.get(t.id, []), catalog.templates, on) for t in teams]
