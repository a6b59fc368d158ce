"""Team readiness (docs/domain.md section 4) in tracker.readiness.services.

Every date is fixed; TODAY (2026-11-29) is the date the services are told it is.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import count_statements
from tests.readiness.helpers import (
    FAR,
    TODAY,
    D,
    candidate_lacks,
    gap,
    members,
    person,
    seat_names,
)
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.catalog.models.version import CATALOG_STAMP_KEY
from tracker.catalog.services.snapshot import forget_snapshots
from tracker.people.models import Team
from tracker.people.services.persons import set_active
from tracker.progress.services.validity import Status
from tracker.readiness.rules import NEAREST_CANDIDATES
from tracker.readiness.services.forecast import forecast
from tracker.readiness.services.heatmap import heat_cell, heat_columns
from tracker.readiness.services.matching import choose_template, fits, lacks, max_matching, seats_of
from tracker.readiness.services.members import load_templates
from tracker.readiness.services.team import readiness, team_readiness


def template(db: Session, code: str) -> TeamTemplate:
    return next(t for t in load_templates(db) if t.code == code)


def slot(db: Session, code: str, role: str):
    return next(s for s in template(db, code).slots if s.job_role.code == role)


# --- 1. templates by fleet size ---------------------------------------------


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


# --- 2. matching --------------------------------------------------------------


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


# --- 3. readiness on a date, gaps and what candidates lack -------------------


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


def test_readiness_changes_the_day_after_an_expiry(db: Session) -> None:
    """DOMAIN 3: "It is valid on its expiry date and expired the day after."

    DOMAIN 4: a slot needs "slot certifications ... valid on the date asked".
    """
    crew = factories.team(db, gpus=50)
    expiry = D(2027, 3, 10)
    person(db, "Net", crew, roles=("network",), level=3, certs={"NVIDIA-NETWORKING": expiry})

    on_expiry = team_readiness(db, crew, expiry)
    day_after = team_readiness(db, crew, expiry + dt.timedelta(days=1))

    assert seat_names(on_expiry)["network"] == ["Net"]
    assert (on_expiry.filled, day_after.filled) == (1, 0)
    assert candidate_lacks(gap(day_after, "network")) == {
        "Net": ["valid NVIDIA-NETWORKING (it was valid through 2027-03-10)"]
    }


def test_operations_seat_lost_the_day_after_nca_aiio_expires(db: Session) -> None:
    """An operations seat is held through the NCA-AIIO's expiry date and lost the day after."""
    crew = factories.team(db, gpus=50)
    expiry = D(2027, 3, 10)
    person(db, "Op", crew, certs={"NCA-AIIO": expiry})
    assert team_readiness(db, crew, expiry).filled == 1
    day_after = team_readiness(db, crew, expiry + dt.timedelta(days=1))
    assert day_after.filled == 0
    (lacked,) = candidate_lacks(gap(day_after, "operations"))["Op"]
    assert lacked.startswith("valid ")
    assert lacked.endswith("(it was valid through 2027-03-10)")


def test_expired_group_member_is_named_in_what_is_lacking(db: Session) -> None:
    """Each candidate with "exactly what each lacks"; the operations
    seat needs NVIDIA-ASSOCIATE+ (a group), and what expired is the NCA-AIIO."""
    crew = factories.team(db, gpus=50)
    expiry = D(2027, 3, 10)
    person(db, "Op", crew, certs={"NCA-AIIO": expiry})
    day_after = team_readiness(db, crew, expiry + dt.timedelta(days=1))
    assert candidate_lacks(gap(day_after, "operations")) == {
        "Op": ["valid NCA-AIIO (it was valid through 2027-03-10)"]
    }


def test_a_renewal_keeps_the_seat_filled(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    who = person(db, "Renewed", crew, certs={"NCA-AIIO": D(2027, 3, 10)})
    factories.certification(db, who, "NCA-AIIO", D(2027, 3, 1), D(2029, 3, 1))
    assert team_readiness(db, crew, D(2027, 3, 11)).filled == 1


def test_any_member_of_a_group_fills_the_seat(db: Session) -> None:
    """Catalog: NVIDIA-ASSOCIATE+ = NCA-AIIO | NCP-AII | NCP-AIO."""
    crew = factories.team(db, gpus=50)
    person(db, "Pro", crew, level=3, certs={"NCP-AIO": FAR})
    assert seat_names(team_readiness(db, crew, TODAY))["operations"].count("Pro") == 1


def test_candidates_ranked_by_fewest_lacks_at_most_three(db: Session) -> None:
    """DOMAIN 4: "each unfilled slot with the nearest candidates and what each lacks"."""
    crew = factories.team(db, gpus=50)
    person(db, "Dee", crew, roles=("network",), level=3, certs={"NVIDIA-NETWORKING": D(2026, 6, 1)})
    person(db, "Eve", crew, roles=("network",), level=2)
    person(db, "Fay", crew, roles=("storage",), level=3, certs={"NVIDIA-NETWORKING": FAR})
    person(db, "Gus", crew, roles=("storage",), level=1)
    person(db, "Hal", crew, roles=("storage",), level=3)

    network_gap = gap(team_readiness(db, crew, TODAY), "network")

    assert len(network_gap.candidates) == NEAREST_CANDIDATES == 3
    assert candidate_lacks(network_gap) == {
        "Dee": ["valid NVIDIA-NETWORKING (it was valid through 2026-06-01)"],
        "Fay": ["job role Network Specialist"],
        "Eve": ["level 3 (is 2)", "certification NVIDIA-NETWORKING"],
    }
    assert [c.member.name for c in network_gap.candidates] == ["Dee", "Fay", "Eve"]
    sizes = [len(c.lacks) for c in network_gap.candidates]
    assert sizes == sorted(sizes)


def test_placed_engineers_are_not_offered_as_candidates(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    person(db, "Placed", crew, certs={"NCA-AIIO": FAR})
    person(db, "Free", crew, level=1)
    result = team_readiness(db, crew, TODAY)
    assert seat_names(result)["operations"] == ["Placed", None]
    for seat in result.gaps:
        assert "Placed" not in candidate_lacks(seat)
    assert candidate_lacks(gap(result, "operations")) == {
        "Free": ["level 2 (is 1)", "certification NVIDIA-ASSOCIATE+"]
    }


def test_an_empty_team_has_gaps_without_candidates(db: Session) -> None:
    """An unfilled slot shows the nearest candidates or "hire"."""
    crew = factories.team(db, gpus=50)
    result = team_readiness(db, crew, TODAY)
    assert (result.filled, result.total, result.percent) == (0, 4, 0.0)
    assert len(result.gaps) == 4
    assert all(g.candidates == [] for g in result.gaps)
    assert result.team_credentials == []


def test_readiness_on_member_snapshots_matches_team_readiness(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    person(db, "Op", crew, certs={"NCA-AIIO": FAR})
    direct = readiness(crew, members(db, crew), load_templates(db), TODAY)
    loaded = team_readiness(db, crew, TODAY)
    assert (direct.filled, direct.total, direct.template.code) == (1, 4, "small")
    assert [s.seat.key for s in direct.seats] == [s.seat.key for s in loaded.seats]


def test_team_wide_credentials_met_by_any_member(db: Session) -> None:
    """DOMAIN 4: "Where a template lists certifications for the team as a whole
    ("additionally ..."), the team meets each when at least one member holds it
    validly." Medium: CKA, RHCE, VCP-DCV."""
    crew = factories.team(db, gpus=500)
    person(db, "Kube", crew, roles=("storage",), level=1, certs={"CKA": FAR})
    person(db, "Hat", crew, level=2, certs={"RHCE": None})
    person(db, "Vm", crew, level=2, certs={"VCP-DCV": D(2027, 2, 1)})

    on_expiry = team_readiness(db, crew, D(2027, 2, 1))
    day_after = team_readiness(db, crew, D(2027, 2, 2))

    def summary(result):
        return {
            t.credential.code: (t.met, [m.name for m in t.holders]) for t in result.team_credentials
        }

    assert summary(on_expiry) == {
        "CKA": (True, ["Kube"]),
        "RHCE": (True, ["Hat"]),
        "VCP-DCV": (True, ["Vm"]),
    }
    assert summary(day_after) == {
        "CKA": (True, ["Kube"]),
        "RHCE": (True, ["Hat"]),
        "VCP-DCV": (False, []),
    }
    # Team-wide credentials are reported beside the seats, not counted as seats.
    assert day_after.total == 10


def test_large_template_team_wide_groups(db: Session) -> None:
    """Large: "additionally cloud architect (AWS/Azure/GCP) ... Six Sigma"."""
    crew = factories.team(db, gpus=2000)
    person(db, "Cloud", crew, certs={"GCP-ARCHITECT": FAR})
    result = team_readiness(db, crew, TODAY)
    met = {t.credential.code: t.met for t in result.team_credentials}
    assert met == {
        "CKA": False,
        "CLOUD-ARCHITECT": True,
        "RHCE": False,
        "SIX-SIGMA": False,
        "VCP-DCV": False,
    }


# --- 4. forecast ------------------------------------------------------------


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


# --- heat map -----------------------------------------------------------------


def test_heat_cell_states(db: Session) -> None:
    """Valid, expiring within 90 days, expired, missing."""
    crew = factories.team(db, gpus=50)
    expiry = D(2027, 6, 30)
    person(db, "Op", crew, certs={"NCA-AIIO": expiry})
    (member,) = members(db, crew)
    nca = factories.credential(db, "NCA-AIIO")

    def cell(on: dt.date):
        c = heat_cell(member, nca, on)
        return c.status, c.days_left

    assert cell(expiry - dt.timedelta(days=91)) == (Status.VALID, 91)
    assert cell(expiry - dt.timedelta(days=90)) == (Status.EXPIRING, 90)
    assert cell(expiry) == (Status.EXPIRING, 0)
    assert cell(expiry + dt.timedelta(days=1)) == (Status.EXPIRED, -1)
    assert cell(D(2025, 12, 31)) == (Status.MISSING, None)  # before it was earned
    missing = heat_cell(member, factories.credential(db, "CKA"), TODAY)
    assert (missing.status, missing.certification, missing.days_left) == (
        Status.MISSING,
        None,
        None,
    )


def test_heat_cell_without_expiry_is_valid(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    person(db, "Hat", crew, certs={"RHCE": None})
    (member,) = members(db, crew)
    cell = heat_cell(member, factories.credential(db, "RHCE"), TODAY)
    assert (cell.status, cell.days_left) == (Status.VALID, None)


def test_heat_cell_group_satisfied_by_any_member(db: Session) -> None:
    """Catalog groups: holding any member satisfies the group."""
    crew = factories.team(db, gpus=50)
    person(db, "Pro", crew, certs={"NCP-AIO": FAR})
    person(db, "Both", crew, certs={"NCA-AIIO": D(2026, 12, 20), "NCP-AII": FAR})
    person(db, "Assoc", crew, certs={"NCA-AIIO": FAR})
    by_name = {m.name: m for m in members(db, crew)}
    associate = factories.credential(db, "NVIDIA-ASSOCIATE+")
    professional = factories.credential(db, "NVIDIA-PROFESSIONAL")

    pro = heat_cell(by_name["Pro"], associate, TODAY)
    assert (pro.status, pro.certification.credential.code) == (Status.VALID, "NCP-AIO")
    # Of several, the one valid longest counts: not "expiring" because the NCA-AIIO is.
    both = heat_cell(by_name["Both"], associate, TODAY)
    assert (both.status, both.certification.credential.code) == (Status.VALID, "NCP-AII")
    assert heat_cell(by_name["Assoc"], professional, TODAY).status is Status.MISSING
    expired = heat_cell(by_name["Both"], associate, D(2029, 2, 1))
    assert expired.status is Status.EXPIRED


def test_heat_columns_paths_then_template_without_duplicates(db: Session) -> None:
    small = template(db, "small")
    paths = [factories.credential(db, "NCA-AIIO"), factories.credential(db, "NCP-AII")]
    assert [c.code for c in heat_columns(small, paths)] == [
        "NCA-AIIO",
        "NCP-AII",
        "NVIDIA-PROFESSIONAL",
        "VENDOR-EXPERT",
        "NVIDIA-ASSOCIATE+",
        "NVIDIA-NETWORKING",
    ]
    medium_codes = [c.code for c in heat_columns(template(db, "medium"), paths)]
    assert medium_codes[-3:] == ["CKA", "RHCE", "VCP-DCV"]
    assert len(medium_codes) == len(set(medium_codes))


# --- 8. a bounded number of queries -------------------------------------------


def _build_team(db: Session, size: int, gpus: int) -> int:
    crew = factories.team(db, gpus=gpus)
    for i in range(size):
        roles = ("operations", "network") if i % 3 == 0 else ("operations",)
        who = person(db, f"Q{size:02d}-{i:02d}", crew, roles=roles, level=2 + i % 3)
        factories.certification(db, who, "NCA-AIIO", D(2025, 1, 1), D(2027, 1, 1))
        factories.certification(db, who, "NCA-AIIO", D(2026, 12, 1), D(2028, 12, 1))
        if i % 2:
            factories.certification(db, who, "NVIDIA-NETWORKING", D(2025, 1, 1), None)
        if i % 5 == 0:
            factories.certification(db, who, "CKA", D(2025, 1, 1), D(2026, 1, 1))
    return crew.id


def _statements(db: Session, team_id: int) -> tuple[int, int]:
    """Count the statements of a cold team_readiness call and of reading its result.

    Cold: nothing in the session, no copy of the catalog in the process, no stamp read yet.
    """
    db.expunge_all()
    forget_snapshots()
    db.info.pop(CATALOG_STAMP_KEY, None)
    crew = db.get(Team, team_id)
    assert crew is not None

    def read() -> int:
        result = team_readiness(db, crew, TODAY)
        for seat in result.seats:
            _ = seat.seat.slot.title, seat.seat.slot.job_role.name
            if seat.member is not None:
                _ = seat.member.name, seat.member.level, seat.member.engineer.email
            for c in seat.candidates:
                _ = c.member.name, c.lacks
        for t in result.team_credentials:
            _ = t.credential.name, [m.name for m in t.holders]
        return result.filled

    return count_statements(db, read)


def test_team_readiness_issues_the_same_queries_for_3_and_30_engineers(db: Session) -> None:
    """The readiness call issue[s] a bounded number of SQL queries,
    independent of the number of engineers and records."""
    small_id = _build_team(db, 3, gpus=500)
    large_id = _build_team(db, 30, gpus=500)

    few, few_filled = _statements(db, small_id)
    many, many_filled = _statements(db, large_id)

    assert few_filled > 0 and many_filled > few_filled  # the scenes do something
    assert few == many
    assert few <= 15
