"""Templates by fleet size and members matched to seats (tracker.readiness.services.matching)."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.readiness.helpers import (
    FAR,
    TODAY,
    D,
    candidate_lacks,
    gap,
    members,
    person,
    seat_names,
    template,
)
from tracker.people.services.persons import set_active
from tracker.readiness.services.matching import choose_template, fits, lacks, max_matching, seats_of
from tracker.readiness.services.members import load_templates
from tracker.readiness.services.team import team_readiness


def slot(db: Session, code: str, role: str):
    return next(s for s in template(db, code).slots if s.job_role.code == role)


# --- templates by fleet size ----------------------------------------------------------


@pytest.mark.parametrize(
    ("gpus", "expected"),
    [
        (0, "small"),
        (1, "small"),
        (9, "small"),
        (10, "small"),
        (99, "small"),
        (100, "medium"),
        (999, "medium"),
        (1000, "large"),
        (100000, "large"),
    ],
)
def test_band_edges(db: Session, gpus: int, expected: str) -> None:
    """DOMAIN 4: "Fleet-size bands are half-open: small [10, 100) GPUs, medium
    [100, 1000), large 1000 and above; below 10 GPUs the small template applies."
    """
    assert choose_template(load_templates(db), gpus).code == expected


def test_band_choice_does_not_depend_on_the_order_templates_come_in(db: Session) -> None:
    templates = list(reversed(load_templates(db)))
    assert [choose_template(templates, n).code for n in (5, 99, 100, 999, 1000)] == [
        "small",
        "small",
        "medium",
        "medium",
        "large",
    ]


def test_no_templates_is_an_error_not_a_guess() -> None:
    with pytest.raises(LookupError, match="no team templates"):
        choose_template([], 50)


@pytest.mark.parametrize(("code", "total"), [("small", 4), ("medium", 10), ("large", 22)])
def test_seat_totals(db: Session, code: str, total: int) -> None:
    """DOMAIN 4: small 1+2+1 seats; medium 1+2+4+2+1; large 2+4+8+3+2+2+1."""
    chosen = template(db, code)
    seats = seats_of(chosen)
    assert len(seats) == total == chosen.slot_total
    assert len({s.key for s in seats}) == total  # every seat has its own key


def test_small_template_seats_in_order(db: Session) -> None:
    seats = seats_of(template(db, "small"))
    assert [(s.slot.job_role.code, s.slot.min_level, s.slot.max_level) for s in seats] == [
        ("lead", 4, 4),
        ("operations", 2, 3),
        ("operations", 2, 3),
        ("network", 3, 3),
    ]
    assert [c.code for c in seats[0].slot.credentials] == ["NVIDIA-PROFESSIONAL", "VENDOR-EXPERT"]
    assert [c.code for c in seats[1].slot.credentials] == ["NVIDIA-ASSOCIATE+"]
    assert [c.code for c in seats[3].slot.credentials] == ["NVIDIA-NETWORKING"]


def test_readiness_uses_the_teams_fleet_unless_told_another(db: Session) -> None:
    """A fleet size N (default the team's own)."""
    crew = factories.team(db, gpus=64)
    assert team_readiness(db, crew, TODAY).template.code == "small"
    assert team_readiness(db, crew, TODAY).gpus == 64
    large = team_readiness(db, crew, TODAY, gpus=1000)
    assert (large.template.code, large.total, large.gpus) == ("large", 22, 1000)


# --- matching -------------------------------------------------------------------------


def greedy_fill(result_seats, team_members, on: dt.date) -> int:
    """A first-come fill: each seat in turn takes the first free member who fits."""
    taken: set[int] = set()
    filled = 0
    for seat in result_seats:
        for m in team_members:
            if m.id not in taken and fits(m, seat.slot, on):
                taken.add(m.id)
                filled += 1
                break
    return filled


def test_matching_fills_every_seat_a_greedy_fill_leaves_empty(db: Session) -> None:
    """DOMAIN 4: "a network-capable operations engineer may fill either kind of
    slot ... Assignment maximises filled slots (a bipartite matching, not
    first-come greedy)."

    Ada (operations and network, level 3) comes first by name; a greedy fill puts
    her in the first operations seat, Ben in the second, and nobody is left for
    the network seat. The matching puts Ada in network and Ben and Cy in operations.
    """
    crew = factories.team(db, gpus=50)
    person(
        db,
        "Ada",
        crew,
        roles=("operations", "network"),
        level=3,
        certs={"NCA-AIIO": FAR, "NVIDIA-NETWORKING": None},
    )
    person(db, "Ben", crew, certs={"NCA-AIIO": FAR})
    person(db, "Cy", crew, certs={"NCA-AIIO": FAR})
    team_members = members(db, crew)
    seats = seats_of(template(db, "small"))
    assert greedy_fill(seats, team_members, TODAY) == 2  # the scene defeats greedy

    result = team_readiness(db, crew, TODAY)

    assert (result.filled, result.total, result.percent) == (3, 4, 75.0)
    names = seat_names(result)
    assert names["network"] == ["Ada"]
    assert sorted(names["operations"]) == ["Ben", "Cy"]
    assert names["lead"] == [None]
    assert [g.seat.slot.job_role.code for g in result.gaps] == ["lead"]


def test_max_matching_follows_an_augmenting_path() -> None:
    """Seat 0 fits engineers 0 and 1, seat 1 only engineer 0: a first-come fill
    gives engineer 0 to seat 0 and strands seat 1; the matching moves seat 0 to
    engineer 1."""
    fit = {(0, 0): True, (0, 1): True, (1, 0): True}
    assert max_matching([None, None], [None, None], fit) == {0: 1, 1: 0}


def test_max_matching_follows_a_long_augmenting_path() -> None:
    """A chain: seat k fits engineers k and k+1, the last seat only engineer 0.

    Placing the last seat displaces every earlier one by one step.
    """
    n = 5
    fit = {(s, s): True for s in range(n - 1)}
    fit.update({(s, s + 1): True for s in range(n - 1)})
    fit[(n - 1, 0)] = True
    matching = max_matching([None] * n, [None] * n, fit)
    assert len(matching) == n
    assert sorted(matching.values()) == list(range(n))
    assert all(fit.get((s, e)) for s, e in matching.items())


def test_max_matching_ignores_false_edges_and_empty_inputs() -> None:
    assert max_matching([None, None], [None], {(0, 0): False, (1, 0): False}) == {}
    assert max_matching([], [None], {}) == {}
    assert max_matching([None], [], {}) == {}


def test_one_engineer_fills_at_most_one_seat_in_max_matching() -> None:
    fit = {(s, 0): True for s in range(4)}
    matching = max_matching([None] * 4, [None], fit)
    assert list(matching.values()) == [0]


def test_one_engineer_fills_at_most_one_seat(db: Session) -> None:
    """DOMAIN 4: "One engineer fills at most one slot."

    Someone who fits every seat of the small template but the lead still fills one.
    """
    crew = factories.team(db, gpus=50)
    person(
        db,
        "Solo",
        crew,
        roles=("operations", "network"),
        level=3,
        certs={"NCA-AIIO": FAR, "NVIDIA-NETWORKING": FAR},
    )
    result = team_readiness(db, crew, TODAY)
    assert result.filled == 1
    assert [s.member.name for s in result.seats if s.member] == ["Solo"]


def test_deactivated_engineers_are_not_counted(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    gone = person(db, "Gone", crew, certs={"NCA-AIIO": FAR})
    person(db, "Here", crew, certs={"NCA-AIIO": FAR})
    set_active(db, gone, False)

    result = team_readiness(db, crew, TODAY)

    assert result.filled == 1
    assert seat_names(result)["operations"].count("Here") == 1
    everyone = {s.member.name for s in result.seats if s.member} | {
        c.member.name for g in result.gaps for c in g.candidates
    }
    assert "Gone" not in everyone


def test_engineers_of_other_teams_are_not_counted(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    other = factories.team(db, gpus=50)
    person(db, "Elsewhere", other, certs={"NCA-AIIO": FAR})
    person(db, "Teamless", None, certs={"NCA-AIIO": FAR})
    result = team_readiness(db, crew, TODAY)
    assert result.filled == 0
    assert all(not g.candidates for g in result.gaps)


def test_a_member_without_the_job_role_is_not_placed(db: Session) -> None:
    """DOMAIN 4: "A slot is filled by one engineer one of whose roles matches"."""
    crew = factories.team(db, gpus=50)
    person(db, "Stor", crew, roles=("storage",), level=2, certs={"NCA-AIIO": FAR})
    result = team_readiness(db, crew, TODAY)
    assert result.filled == 0
    assert candidate_lacks(gap(result, "operations")) == {"Stor": ["job role Operations Engineer"]}


def test_an_ended_job_role_does_not_count(db: Session) -> None:
    """Job roles held now are the open assignments; a rotated-away role no longer fits."""
    crew = factories.team(db, gpus=50)
    who = person(db, "Rotated", crew, certs={"NCA-AIIO": FAR})
    who.role_assignments[0].ended_on = D(2026, 6, 1)
    db.flush()
    result = team_readiness(db, crew, TODAY)
    assert result.filled == 0
    assert candidate_lacks(gap(result, "operations")) == {
        "Rotated": ["job role Operations Engineer"]
    }


# --- what a member lacks for a seat ---------------------------------------------------


def test_lacks_wording(db: Session) -> None:
    """Exactly what each lacks (a certification, a level, a job role)."""
    crew = factories.team(db, gpus=50)
    person(db, "A-low", crew, level=1, certs={"NCA-AIIO": FAR})
    person(db, "B-high", crew, level=4, certs={"NCA-AIIO": FAR})
    person(db, "C-nocert", crew, level=2)
    person(db, "D-norole", crew, roles=("storage",), level=1)
    ops = slot(db, "small", "operations")
    by_name = {m.name: m for m in members(db, crew)}

    assert lacks(by_name["A-low"], ops, TODAY) == ["level 2 (is 1)"]
    assert lacks(by_name["B-high"], ops, TODAY) == ["level at most 3 (is 4)"]
    assert lacks(by_name["C-nocert"], ops, TODAY) == ["certification NVIDIA-ASSOCIATE+"]
    assert lacks(by_name["D-norole"], ops, TODAY) == [
        "job role Operations Engineer",
        "level 2 (is 1)",
        "certification NVIDIA-ASSOCIATE+",
    ]
    lead = slot(db, "small", "lead")
    assert lacks(by_name["B-high"], lead, TODAY) == [
        "job role Infrastructure Lead",
        "certification NVIDIA-PROFESSIONAL",
        "certification VENDOR-EXPERT",
    ]
    assert not fits(by_name["A-low"], ops, TODAY)


def test_a_certification_earned_after_the_date_is_lacking_not_expired(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    who = person(db, "Soon", crew, roles=("network",), level=3)
    factories.certification(db, who, "NVIDIA-NETWORKING", D(2027, 2, 1), FAR)
    net = slot(db, "small", "network")
    (member,) = members(db, crew)
    assert lacks(member, net, D(2027, 1, 31)) == ["certification NVIDIA-NETWORKING"]
    assert lacks(member, net, D(2027, 2, 1)) == []
