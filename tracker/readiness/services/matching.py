"""Match members to a template's seats: bands, seats, what a member lacks, max matching."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, Generic, TypeVar, overload

from tracker.catalog.models.team_templates import TeamTemplate, TemplateSlot
from tracker.catalog.services.snapshot import SlotInfo, TemplateInfo
from tracker.i18n import Message, day, msg, named
from tracker.readiness.services.members import Member

# Readiness reads the mapped catalog or the snapshot's plain copy of it, alike.
Template = TeamTemplate | TemplateInfo
Slot = TemplateSlot | SlotInfo
TemplateT = TypeVar("TemplateT", TeamTemplate, TemplateInfo)
SlotT = TypeVar("SlotT", TemplateSlot, SlotInfo)


def choose_template(templates: Sequence[TemplateT], gpus: int) -> TemplateT:
    """Pick the template whose band holds `gpus`; below the smallest band, the smallest.

    Bands are inclusive on both ends in the catalog (small 10-99, medium
    100-999, large 1000 and up), which is the domain's half-open [10, 100) etc.
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
class Seat(Generic[SlotT]):
    """One seat of a slot (a slot of count 2 has seats 1 and 2)."""

    slot: SlotT
    index: int

    @property
    def key(self) -> str:
        return f"{self.slot.position}.{self.index}"


@overload
def seats_of(template: TeamTemplate) -> list[Seat[TemplateSlot]]: ...
@overload
def seats_of(template: TemplateInfo) -> list[Seat[SlotInfo]]: ...
def seats_of(template: Template) -> list[Seat[Any]]:
    """Return the template's seats, slot by slot."""
    return [Seat(slot, i) for slot in template.slots for i in range(1, slot.count + 1)]


def lacks(member: Member, slot: Slot, on: dt.date) -> list[str]:
    """Return what keeps a member from the slot on `on`: job role, level, certifications."""
    missing: list[str] = []
    if slot.job_role.code not in member.role_codes:
        missing.append(msg("job role %(role)s", role=named(slot.job_role)))
    if member.level < slot.min_level:
        missing.append(
            msg("level %(level)s (is %(current)s)", level=slot.min_level, current=member.level)
        )
    elif member.level > slot.max_level:
        missing.append(
            msg(
                "level at most %(level)s (is %(current)s)",
                level=slot.max_level,
                current=member.level,
            )
        )
    valid = member.valid_on(on)
    for credential in slot.credentials:
        wanted = credential.satisfying_ids()
        if wanted.isdisjoint(valid):  # holding(...) is None, without scanning the list
            last = member.latest(wanted, on)
            if last is not None and last.expires_on is not None and last.expires_on < on:
                # Name what lapsed (NCA-AIIO), not the group the seat asks for.
                lapsed = last.credential.code
                missing.append(
                    msg(
                        "valid %(code)s (it was valid through %(date)s)",
                        code=lapsed,
                        date=day(last.expires_on),
                    )
                )
            else:
                missing.append(certification_lacked(credential.code))
    return missing


def certification_lacked(code: str) -> Message:
    """Return the words for a certification nobody or a candidate holds: "certification CKA"."""
    return msg("certification %(code)s", code=code)


@dataclass(frozen=True)
class SlotNeeds:
    """What a slot asks, as plain values: job role, level range, credentials (satisfying ids)."""

    role: str
    min_level: int
    max_level: int
    credentials: tuple[frozenset[int], ...]

    @classmethod
    def of(cls, slot: Slot) -> SlotNeeds:
        if isinstance(slot, SlotInfo):
            return _needs_of_info(slot)
        return cls._of(slot)

    @classmethod
    def _of(cls, slot: Slot) -> SlotNeeds:
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


def fits(member: Member, slot: Slot, on: dt.date) -> bool:
    """Return whether a member can take the slot on `on` (what `lacks` checks, without words)."""
    return SlotNeeds.of(slot).met_by(member, on)


def max_matching(
    seats: Sequence[Seat],
    engineers: Sequence[Member],
    fit: dict[tuple[int, int], bool],
    start: dict[int, int] | None = None,
    preference: Callable[[int, int], Any] | None = None,
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
            fitting.sort(key=partial(preference, s))
        candidates.append(fitting)
    return kuhn(candidates, start)


def kuhn(
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


def template_seats(template: Template) -> list[Seat[Any]]:
    """Return the template's seats, made once for a snapshot's template."""
    if isinstance(template, TemplateInfo):
        return _seats_of_info(template)
    return seats_of(template)


@lru_cache(maxsize=256)
def _seats_of_info(template: TemplateInfo) -> list[Seat[SlotInfo]]:
    """A snapshot's template never changes: its seats are made once (callers only read them)."""
    return seats_of(template)


# A member as matching reads it: (index, member, job roles, level, credential
# ids held valid on the day).
Judged = tuple[int, Member, frozenset[str], int, frozenset[int]]


def judge(members: Sequence[Member], on: dt.date) -> list[Judged]:
    """Return each member as matching reads it on `on`."""
    return [(e, m, m.role_codes, m.level, m.valid_on(on)) for e, m in enumerate(members)]


def seat_candidates(
    template: Template, seats: Sequence[Seat[Any]], people: Sequence[Judged]
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


def lacking_counts(slot: Slot, free: Iterable[Judged]) -> list[tuple[int, str, int, int]]:
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


def filled_percent(filled: int, total: int) -> float:
    """Return the share of seats filled, in percent to one decimal (100 for no seats)."""
    return round(filled / total * 100, 1) if total else 100.0
