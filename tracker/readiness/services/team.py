"""A team's readiness on a date: seats filled, gaps with nearest candidates, who may see it."""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, joinedload, selectinload

from tracker.catalog.services.snapshot import catalog_snapshot
from tracker.i18n import Joined, join
from tracker.people.models import Engineer, Team
from tracker.readiness.rules import NEAREST_CANDIDATES
from tracker.readiness.services.matching import (
    Seat,
    Template,
    TemplateT,
    choose_template,
    filled_percent,
    judge,
    kuhn,
    lacking_counts,
    lacks,
    seat_candidates,
    template_seats,
)
from tracker.readiness.services.members import AnyCredential, Member, load_members


@dataclass(frozen=True)
class Candidate:
    member: Member
    lacks: list[str]

    @property
    def trainable(self) -> bool:
        """Whether certifications alone would seat them: they have the job role and level."""
        return not any(item.startswith(("job role ", "level ")) for item in self.lacks)

    def lacking(self, separator: str = ", ") -> Joined:
        """Return what they lack as one message, each part in the language it is shown in."""
        # The page's sentence and the gaps CSV's cell both read this, so they never differ.
        return join(self.lacks, separator)


@dataclass(frozen=True)
class SeatResult:
    seat: Seat[Any]
    member: Member | None
    candidates: list[Candidate] = field(default_factory=list)


@dataclass(frozen=True)
class GapGroup:
    """A slot's open seats: they ask the same, so they share the nearest candidates."""

    seats: list[SeatResult]

    @property
    def slot(self) -> Any:
        return self.seats[0].seat.slot

    @property
    def count(self) -> int:
        return len(self.seats)

    @property
    def candidates(self) -> list[Candidate]:
        return self.seats[0].candidates

    @property
    def hire_too(self) -> bool:
        """Whether training alone cannot fill it: no candidate has the job role and level."""
        return not any(c.trainable for c in self.candidates)


@dataclass(frozen=True)
class TeamCredentialResult:
    credential: AnyCredential
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
    template: Template
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
        return filled_percent(self.filled, self.total)

    @cached_property
    def gaps(self) -> list[SeatResult]:
        return [s for s in self.seats if s.member is None]

    @cached_property
    def gap_groups(self) -> list[GapGroup]:
        """Return the open seats grouped by slot, in the template's order."""
        by_slot: dict[int, list[SeatResult]] = {}
        for gap in self.gaps:
            by_slot.setdefault(gap.seat.slot.id, []).append(gap)
        return [GapGroup(seats) for seats in by_slot.values()]


def readiness(
    team: Team,
    members: Sequence[Member],
    templates: Sequence[TemplateT],
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
    seats = template_seats(template)
    people = judge(members, on)
    matching = kuhn(seat_candidates(template, seats, people))
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
            ranked = heapq.nsmallest(NEAREST_CANDIDATES, lacking_counts(seat.slot, free))
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


def team_readiness(
    session: Session, team: Team, on: dt.date, gpus: int | None = None
) -> TeamReadiness:
    """Load a team's snapshot and judge its readiness on `on` (a bounded number of queries)."""
    catalog = catalog_snapshot(session)
    members = load_members(session, [team.id], catalog.credentials).get(team.id, [])
    return readiness(team, members, catalog.templates, on, gpus)


def visible_teams_query(actor: Engineer) -> Select[tuple[Team]]:
    """Return the query of the teams whose readiness `actor` may see, unordered."""
    query = select(Team).options(selectinload(Team.manager))
    if actor.access_role != "admin":
        query = query.where(Team.manager_id == actor.id)
    return query


def visible_teams(session: Session, actor: Engineer) -> list[Team]:
    """Return the teams whose readiness `actor` may see: their own as a manager, all as admin."""
    return list(session.scalars(visible_teams_query(actor).order_by(Team.name)))


def can_view_team(actor: Engineer, team: Team) -> bool:
    """Return whether `actor` may see a team's readiness (its manager, or an admin)."""
    return actor.active and (actor.access_role == "admin" or team.manager_id == actor.id)


def organisation(session: Session, on: dt.date) -> list[TeamReadiness]:
    """Return every team's readiness on `on` (the admins' organisation page)."""
    return [result for result, _ in organisation_with_members(session, on)]


def organisation_with_members(
    session: Session, on: dt.date
) -> list[tuple[TeamReadiness, list[Member]]]:
    """Return every team's readiness on `on` with the members it was judged on, by name."""
    teams = list(
        session.scalars(select(Team).options(joinedload(Team.manager)).order_by(Team.name))
    )
    catalog = catalog_snapshot(session)
    members = load_members(session, None, catalog.credentials)
    return [
        (readiness(t, team_members, catalog.templates, on), team_members)
        for t in teams
        for team_members in [members.get(t.id, [])]
    ]
