"""The heat map's cells and columns (tracker.readiness.services.heatmap)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tests.readiness.helpers import FAR, TODAY, D, members, person, template
from tracker.progress.services.validity import Status
from tracker.readiness.services.heatmap import heat_cell, heat_columns


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
