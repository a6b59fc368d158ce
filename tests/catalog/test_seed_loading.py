"""Loading the seed catalog (tracker.catalog.services.seed_loading): idempotent, edits by code."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import Table, event, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

import tracker.models  # noqa: F401  (fills the metadata with every table)
from tests import factories
from tests.catalog.helpers import by_code, edit, row_counts, seed_text, write
from tests.factories import SEED
from tests.helpers import catalog_model_values
from tracker.catalog.models.credentials import Course, LearningPath
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.catalog.services.reads import catalog_dict
from tracker.catalog.services.seed_loading import load_seed
from tracker.db import Base
from tracker.progress.services.hours import log_hours
from tracker.progress.services.paths import logged_hours, path_progress

TODAY = dt.date(2026, 11, 29)


CATALOG_TABLES = {
    obj.__table__.name
    for obj in catalog_model_values()
    if isinstance(obj, type) and issubclass(obj, Base) and obj is not Base
} | {obj.name for obj in catalog_model_values() if isinstance(obj, Table)}


ENGINEER_TABLES = [t for t in Base.metadata.sorted_tables if t.name not in CATALOG_TABLES]


def engineer_rows(session: Session) -> dict[str, list[tuple[Any, ...]]]:
    """Return every row of every table that is not the catalog's (engineers' records)."""
    return {
        table.name: sorted((tuple(row) for row in session.execute(select(table))), key=repr)
        for table in ENGINEER_TABLES
    }


class StatementLog:
    """Record the SQL statements a connection runs."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.statements: list[str] = []

    def __call__(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self.statements.append(statement)

    @property
    def writes(self) -> list[str]:
        return [
            s for s in self.statements if re.match(r"\s*(INSERT|UPDATE|DELETE)\b", s, re.IGNORECASE)
        ]


@pytest.fixture
def statements(db: Session) -> Iterator[StatementLog]:
    log = StatementLog(db.connection())
    event.listen(log.connection, "before_cursor_execute", log)
    try:
        yield log
    finally:
        event.remove(log.connection, "before_cursor_execute", log)


# --- idempotence ----------------------------------------------------------------------


def test_loading_the_same_file_again_changes_nothing(db, statements):
    """seed/catalog.toml: "Loading is idempotent: a second run changes nothing"."""
    counts = row_counts(db)
    before = catalog_dict(db)
    statements.statements.clear()

    report = load_seed(db, SEED)

    assert report.changed is False
    assert report.created == {} and report.updated == {}
    assert report.summary() == "catalog unchanged"
    assert statements.statements, "the listener saw no statement at all"
    assert statements.writes == []
    assert row_counts(db) == counts
    assert catalog_dict(db) == before


def test_loading_an_edited_file_twice_changes_nothing_the_second_time(db, tmp_path, statements):
    """An edit is applied once; loading the same edited file again writes nothing."""
    text = edit(
        seed_text(),
        'hours = 24\nprovider = "NVIDIA"\n\n[[courses]]\ncode = "MULTI-GPU"',
        'hours = 20\nprovider = "NVIDIA"\n\n[[courses]]\ncode = "MULTI-GPU"',
    )
    path = write(tmp_path, text)
    assert load_seed(db, path).changed is True
    assert any(s.lstrip().upper().startswith("UPDATE COURSES") for s in statements.writes)
    counts = row_counts(db)
    statements.statements.clear()

    report = load_seed(db, path)

    assert report.changed is False
    assert statements.writes == []
    assert row_counts(db) == counts


# --- editing --------------------------------------------------------------------------


def _edited_seed() -> str:
    text = seed_text()
    # A course's hours: GPU Architecture Essentials 24 -> 30.
    text = edit(
        text,
        'title = "GPU Architecture Essentials"\nhours = 24',
        'title = "GPU Architecture Essentials"\nhours = 30',
    )
    # A path's course list: reordered, AI-STORAGE removed.
    text = edit(
        text,
        'courses = ["MULTI-GPU", "IB-NET", "AI-STORAGE", "CLUSTER-MGMT"]',
        'courses = ["IB-NET", "MULTI-GPU", "CLUSTER-MGMT"]',
    )
    # An exam's experience threshold ("configurable in the catalog").
    text = edit(
        text,
        'prerequisites = ["NCA-AIIO"]\nexperience_months = 12',
        'prerequisites = ["NCA-AIIO"]\nexperience_months = 18',
    )
    # A template slot count: small's operations engineers 2 -> 3.
    text = edit(
        text,
        'title_es = "Ingeniero de Operaciones", count = 2, role = "operations", min_level = 2, '
        'max_level = 3, certifications = ["NVIDIA-ASSOCIATE+"] },\n'
        '  { title = "Network Specialist", title_es = "Especialista en Redes", count = 1,',
        'title_es = "Ingeniero de Operaciones", count = 3, role = "operations", min_level = 2, '
        'max_level = 3, certifications = ["NVIDIA-ASSOCIATE+"] },\n'
        '  { title = "Network Specialist", title_es = "Especialista en Redes", count = 1,',
    )
    # A new course, appended to the Foundations path.
    text = edit(
        text,
        'courses = ["FDL", "INTRO-AI-INFRA", "GPU-ARCH"]',
        'courses = ["FDL", "INTRO-AI-INFRA", "GPU-ARCH", "DGX-OPS"]',
    )
    text = edit(
        text,
        '[[paths]]\ncode = "FOUNDATIONS"',
        '[[courses]]\ncode = "DGX-OPS"\ntitle = "DGX Operations"\nhours = 12.5\n'
        'provider = "NVIDIA"\n\n[[paths]]\ncode = "FOUNDATIONS"',
    )
    return text


def test_an_edited_file_updates_the_catalog_by_code(db, tmp_path):
    """seed/catalog.toml: "an edited file updates the catalog (by code)"; the
    report counts what was created and updated, per table."""
    report = load_seed(db, write(tmp_path, _edited_seed()))

    assert report.created == {"courses": 1}
    assert report.updated == {
        "courses": 1,
        "exams": 1,
        "learning_paths": 2,
        "team_templates": 1,
    }
    assert report.changed is True
    assert report.summary() == (
        "catalog: 1 courses created, 1 courses updated, 1 exams updated, "
        "2 learning_paths updated, 1 team_templates updated"
    )

    catalog = catalog_dict(db)
    paths = by_code(catalog["paths"])
    assert [(c["code"], c["hours"]) for c in paths["FOUNDATIONS"]["courses"]] == [
        ("FDL", 8),
        ("INTRO-AI-INFRA", 16),
        ("GPU-ARCH", 30),
        ("DGX-OPS", 12.5),
    ]
    assert paths["FOUNDATIONS"]["total_hours"] == 66.5
    assert [c["code"] for c in paths["PROFESSIONAL"]["courses"]] == [
        "IB-NET",
        "MULTI-GPU",
        "CLUSTER-MGMT",
    ]
    assert paths["PROFESSIONAL"]["total_hours"] == 112
    assert by_code(catalog["exams"])["NCP-AII"]["experience_months"] == 18
    small = catalog["templates"][0]
    assert [s["count"] for s in small["slots"]] == [1, 3, 1]
    assert small["slot_total"] == 5
    # "Entries removed from this file stay in the database."
    assert db.scalars(select(Course).where(Course.code == "AI-STORAGE")).one().hours == 24


def test_editing_the_catalog_leaves_engineers_records_untouched(db, tmp_path):
    """seed/catalog.toml: an edited file updates the catalog "without touching any
    engineer's records"; progress is then measured against the new hours."""
    who = factories.engineer(db)
    for course, day, hours in (
        ("GPU-ARCH", dt.date(2026, 11, 2), "24"),
        ("AI-STORAGE", dt.date(2026, 11, 3), "10"),
        ("MULTI-GPU", dt.date(2026, 11, 4), "7.5"),
    ):
        log_hours(db, who, factories.course(db, course), day, Decimal(hours), TODAY)
    db.flush()
    foundations = by_code(catalog_dict(db)["paths"])["FOUNDATIONS"]
    assert foundations["courses"][2]["hours"] == 24
    records = engineer_rows(db)
    assert records["engineers"] and len(records["hour_logs"]) == 3

    load_seed(db, write(tmp_path, _edited_seed()))
    db.expire_all()

    assert engineer_rows(db) == records
    logged = logged_hours(db, who.id)
    assert logged[factories.course(db, "AI-STORAGE").id] == Decimal("10")
    # The 24 hours logged on GPU-ARCH no longer complete it (now 30 h).
    path = db.scalars(select(LearningPath).where(LearningPath.code == "FOUNDATIONS")).one()
    progress = path_progress(path, logged)
    gpu = next(c for c in progress.courses if c.course.code == "GPU-ARCH")
    assert (gpu.logged, gpu.required, gpu.complete) == (Decimal("24"), Decimal("30"), False)


def test_loading_the_original_again_restores_the_catalog(db, tmp_path):
    """Edits are reversible by loading the original file (new entries stay)."""
    before = catalog_dict(db)
    load_seed(db, write(tmp_path, _edited_seed()))

    report = load_seed(db, SEED)

    assert report.updated == {
        "courses": 1,
        "exams": 1,
        "learning_paths": 2,
        "team_templates": 1,
    }
    after = catalog_dict(db)
    assert after["paths"] == before["paths"]
    assert after["exams"] == before["exams"]
    assert after["templates"] == before["templates"]
    assert db.scalars(select(Course).where(Course.code == "DGX-OPS")).one().hours == Decimal("12.5")


def _slots(db: Session, code: str) -> list[tuple[int, int, str, str, int]]:
    template = db.scalars(select(TeamTemplate).where(TeamTemplate.code == code)).one()
    db.refresh(template)
    return [(s.id, s.position, s.title, s.title_es, s.count) for s in template.slots]


def test_slots_are_edited_in_place_keeping_their_rows(db, tmp_path):
    """A new count or title keeps each slot's row; a removed slot goes, an added one comes."""
    before = _slots(db, "small")
    lead = (
        '  { title = "Infrastructure Lead", title_es = "Líder de Infraestructura", count = 1, '
        'role = "lead", min_level = 4, max_level = 4, '
        'certifications = ["NVIDIA-PROFESSIONAL", "VENDOR-EXPERT"] },\n'
    )
    text = edit(seed_text(), lead, lead.replace('"Líder de Infraestructura"', '"Jefe de equipo"'))
    load_seed(db, write(tmp_path, text))
    renamed = _slots(db, "small")
    assert [s[0] for s in renamed] == [s[0] for s in before]
    assert renamed[0][2:] == ("Infrastructure Lead", "Jefe de equipo", 1)

    load_seed(db, write(tmp_path, edit(seed_text(), lead, "")))
    shorter = _slots(db, "small")
    assert [(s[1], s[2]) for s in shorter] == [
        (1, "Operations Engineer"),
        (2, "Network Specialist"),
    ]

    load_seed(db, SEED)
    assert [s[1:] for s in _slots(db, "small")] == [s[1:] for s in before]


def test_a_row_with_several_edits_is_counted_once(db, tmp_path):
    """The report counts updated rows: one path whose name and courses both
    changed, and one template whose name and slots both changed, are one update
    each."""
    text = edit(
        seed_text(),
        'name = "Foundations"\nname_es = "Fundamentos"\ntarget_months = 3',
        'name = "Foundations (2027)"\nname_es = "Fundamentos (2027)"\ntarget_months = 3',
    )
    text = edit(
        text,
        'courses = ["FDL", "INTRO-AI-INFRA", "GPU-ARCH"]',
        'courses = ["GPU-ARCH", "FDL", "INTRO-AI-INFRA"]',
    )
    text = edit(text, 'name = "Small (10-100 GPUs)"', 'name = "Small fleet"')
    text = edit(
        text,
        'role = "network", min_level = 3, max_level = 3, '
        'certifications = ["NVIDIA-NETWORKING"] },\n]',
        'role = "network", min_level = 3, max_level = 4, '
        'certifications = ["NVIDIA-NETWORKING"] },\n]',
    )
    report = load_seed(db, write(tmp_path, text))
    assert report.updated == {"learning_paths": 1, "team_templates": 1}
