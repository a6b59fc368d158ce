"""A team's readiness on a date (tracker.readiness.services.team): seats, gaps, candidates."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import count_statements
from tests.readiness.helpers import FAR, TODAY, D, candidate_lacks, gap, members, person, seat_names
from tracker.catalog.models.version import CATALOG_STAMP_KEY
from tracker.catalog.services.snapshot import forget_snapshots
from tracker.people.models import Team
from tracker.readiness.rules import NEAREST_CANDIDATES
from tracker.readiness.services.members import load_templates
from tracker.readiness.services.team import readiness, team_readiness


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


# --- a bounded number of queries ------------------------------------------------------


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
