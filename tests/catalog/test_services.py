"""The seed catalog: its content (docs/domain.md sections 1-6 and 10), idempotent
loading, editing by code, and refusal of broken files.

seed/catalog.toml: "Loading is idempotent: a second run changes nothing, and
an edited file updates the catalog (by code) without touching any engineer's
records. Entries removed from this file stay in the database, because
engineers' records may point at them."
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Table, event, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, sessionmaker

import tracker.models  # noqa: F401  (fills the metadata with every table)
from tests import factories
from tests.helpers import catalog_model_values
from tracker.catalog.models.credentials import Course, LearningPath
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.catalog.models.version import CatalogVersion
from tracker.catalog.services.internal_track import code_taken, create_internal_track
from tracker.catalog.services.reads import catalog_dict
from tracker.catalog.services.seed_loading import load_seed
from tracker.catalog.services.seed_reading import SeedError, read_seed
from tracker.config import PROJECT_ROOT
from tracker.db import Base, make_engine, run_migrations, session_scope
from tracker.errors import ValidationError
from tracker.i18n import translate, translate_errors
from tracker.progress.services.hours import log_hours
from tracker.progress.services.paths import logged_hours, path_progress

SEED = PROJECT_ROOT / "seed" / "catalog.toml"
TODAY = dt.date(2026, 11, 29)

CATALOG_TABLES = {
    obj.__table__.name
    for obj in catalog_model_values()
    if isinstance(obj, type) and issubclass(obj, Base) and obj is not Base
} | {obj.name for obj in catalog_model_values() if isinstance(obj, Table)}
ENGINEER_TABLES = [t for t in Base.metadata.sorted_tables if t.name not in CATALOG_TABLES]


# --- helpers -----------------------------------------------------------------


def seed_text() -> str:
    return SEED.read_text(encoding="utf-8")


def edit(text: str, old: str, new: str) -> str:
    """Replace `old`, which must occur exactly once, by `new`."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in the seed"
    return text.replace(old, new)


def write(tmp_path: Path, text: str, name: str = "catalog.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def row_counts(session: Session) -> dict[str, int]:
    """Return the row count of every table of the schema (but the catalog's version stamp)."""
    return {
        table.name: session.scalar(select(func.count()).select_from(table))
        for table in Base.metadata.sorted_tables
        if table is not CatalogVersion.__table__
    }


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


def by_code(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["code"]: item for item in items}


# --- 1. the catalog matches docs/domain.md ------------------------------------------


@pytest.fixture
def catalog(db: Session) -> dict[str, Any]:
    return catalog_dict(db)


def test_foundations_path(catalog):
    """docs/domain.md section 2: "Foundations path (target duration 3 months), ending in exam
    NCA-AIIO": Fundamentals of Deep Learning 8, Introduction to AI Infrastructure
    16, GPU Architecture Essentials 24; "Totals: Foundations 48 h"."""
    path = by_code(catalog["paths"])["FOUNDATIONS"]
    assert path["name"] == "Foundations"
    assert path["target_months"] == 3
    assert path["exam"] == "NCA-AIIO"
    assert [(c["title"], c["hours"]) for c in path["courses"]] == [
        ("Fundamentals of Deep Learning", 8),
        ("Introduction to AI Infrastructure", 16),
        ("GPU Architecture Essentials", 24),
    ]
    assert path["total_hours"] == 48 == sum(c["hours"] for c in path["courses"])


def test_professional_path(catalog):
    """docs/domain.md section 2: "Professional path (target duration 6 months), ending in exam
    NCP-AII": Multi-GPU Programming 40, InfiniBand Networking for AI 32, Storage
    Systems for AI 24, Cluster Management 40; "Professional 136 h"."""
    path = by_code(catalog["paths"])["PROFESSIONAL"]
    assert path["name"] == "Professional"
    assert path["target_months"] == 6
    assert path["exam"] == "NCP-AII"
    assert [(c["title"], c["hours"]) for c in path["courses"]] == [
        ("Multi-GPU Programming", 40),
        ("InfiniBand Networking for AI", 32),
        ("Storage Systems for AI", 24),
        ("Cluster Management", 40),
    ]
    assert path["total_hours"] == 136 == sum(c["hours"] for c in path["courses"])
    assert [p["code"] for p in catalog["paths"]] == ["FOUNDATIONS", "PROFESSIONAL"]


def test_exams(catalog):
    """docs/domain.md section 3: NCA-AIIO "online, remotely proctored, 50 questions, 60
    minutes", prerequisites none, validity 2 years; NCP-AII requires "a valid
    NCA-AIIO and documented experience" (rule: default 12 months); NCP-AIO
    validity "rule 2 years, like its siblings"."""
    exams = by_code(catalog["exams"])
    assert set(exams) == {"NCA-AIIO", "NCP-AII", "NCP-AIO"}

    nca = exams["NCA-AIIO"]
    assert nca["name"] == "NVIDIA Certified Associate - AI Infrastructure and Operations"
    assert (nca["questions"], nca["minutes"], nca["validity_months"]) == (50, 60, 24)
    assert nca["delivery"] == "online, remotely proctored"
    assert nca["prerequisites"] == []
    assert nca["experience_months"] == 0

    ncp = exams["NCP-AII"]
    assert ncp["name"] == "NVIDIA Certified Professional - AI Infrastructure"
    assert ncp["prerequisites"] == ["NCA-AIIO"]
    assert ncp["experience_months"] == 12
    assert ncp["validity_months"] == 24

    aio = exams["NCP-AIO"]
    assert aio["name"] == "NVIDIA Certified Professional - AI Operations"
    assert aio["validity_months"] == 24


def test_levels_and_salary_bands(catalog):
    """docs/domain.md section 1: levels 1 Foundations .. 5 Architect with their salary bands
    (75,000-95,000; 95,000-125,000; 125,000-175,000; 175,000-250,000;
    250,000-400,000)."""
    assert [
        (lv["number"], lv["name"], lv["salary_min"], lv["salary_max"]) for lv in catalog["levels"]
    ] == [
        (1, "Foundations", 75_000, 95_000),
        (2, "Operational", 95_000, 125_000),
        (3, "Professional", 125_000, 175_000),
        (4, "Expert", 175_000, 250_000),
        (5, "Architect", 250_000, 400_000),
    ]


def test_level_rules(catalog):
    """docs/domain.md section 1 rules: "Level 2: a valid NCA-AIIO and 6 months. Level 3: a
    valid NCP-AII, an NVIDIA networking certification and 12 months. Level 4: 24
    months and a vendor expert credential. Level 5: 48 months and recorded
    evidence"."""
    rules = {
        lv["number"]: (lv["min_experience_months"], lv["requires"], lv["requires_evidence"])
        for lv in catalog["levels"]
    }
    assert rules == {
        1: (0, [], False),
        2: (6, ["NCA-AIIO"], False),
        3: (12, ["NCP-AII", "NVIDIA-NETWORKING"], False),
        4: (24, ["VENDOR-EXPERT"], False),
        5: (48, [], True),
    }


def test_templates(catalog):
    """docs/domain.md section 4: "Fleet-size bands are half-open: small [10, 100) GPUs, medium
    [100, 1000), large 1000 and above"; small 1+2+1 = 4 slots, medium
    1+2+4+2+1 = 10, large 2+4+8+3+2+2+1 = 22; yearly team cost 450,000-550,000,
    1.2-1.6 M, 3.5-4.5 M."""
    templates = catalog["templates"]
    assert [
        (t["code"], t["min_gpus"], t["max_gpus"], t["slot_total"], t["cost_min"], t["cost_max"])
        for t in templates
    ] == [
        ("small", 10, 99, 4, 450_000, 550_000),
        ("medium", 100, 999, 10, 1_200_000, 1_600_000),
        ("large", 1000, None, 22, 3_500_000, 4_500_000),
    ]
    for t in templates:
        assert t["slot_total"] == sum(s["count"] for s in t["slots"])


def test_template_slots(catalog):
    """docs/domain.md section 4: the slots (count x role, levels) of each template."""
    slots = {
        t["code"]: [(s["count"], s["role"], s["min_level"], s["max_level"]) for s in t["slots"]]
        for t in catalog["templates"]
    }
    assert slots == {
        "small": [(1, "lead", 4, 4), (2, "operations", 2, 3), (1, "network", 3, 3)],
        "medium": [
            (1, "architect", 5, 5),
            (2, "senior", 4, 4),
            (4, "operations", 2, 3),
            (2, "network", 3, 4),
            (1, "storage", 3, 3),
        ],
        "large": [
            (2, "architect", 5, 5),
            (4, "senior", 4, 4),
            (8, "operations", 2, 3),
            (3, "network", 3, 4),
            (2, "storage", 3, 4),
            (2, "performance", 4, 4),
            (1, "security", 4, 4),
        ],
    }
    small = {s["role"]: s["certifications"] for s in catalog["templates"][0]["slots"]}
    # "Lead: NVIDIA Professional + vendor certs; Operations: NVIDIA Associate at
    # least; Network: NVIDIA networking cert".
    assert small == {
        "lead": ["NVIDIA-PROFESSIONAL", "VENDOR-EXPERT"],
        "operations": ["NVIDIA-ASSOCIATE+"],
        "network": ["NVIDIA-NETWORKING"],
    }
    large = catalog["templates"][2]
    assert {s["role"]: s["certifications"] for s in large["slots"]}["security"] == ["SECURITY-CERT"]
    groups = by_code(catalog["groups"])
    assert groups["SECURITY-CERT"]["members"] == ["CCSP", "CISSP"]
    assert groups["CLOUD-ARCHITECT"]["members"] == [
        "AWS-ARCHITECT",
        "AZURE-ARCHITECT",
        "GCP-ARCHITECT",
    ]


def test_team_wide_credentials(catalog):
    """docs/domain.md section 4: medium "additionally Kubernetes CKA, RHCE, VMware VCP-DCV";
    large additionally "cloud architect (AWS/Azure/GCP) ... Six Sigma"."""
    team = {t["code"]: set(t["credentials"]) for t in catalog["templates"]}
    assert team["small"] == set()
    assert team["medium"] == {"CKA", "RHCE", "VCP-DCV"}
    assert team["large"] >= {"CKA", "RHCE", "VCP-DCV", "CLOUD-ARCHITECT", "SIX-SIGMA"}


def test_training_strategies(catalog):
    """docs/domain.md section 5: bootcamp "2-4 weeks ... 15,000-25,000 per participant";
    apprenticeship "3-6 months ... about 20 % productivity loss"; vendor
    partnership "50-70 % off list price for groups of 10 or more"."""
    strategies = by_code(catalog["strategies"])
    assert set(strategies) == {"bootcamp", "apprenticeship", "vendor-partnership", "internal-track"}
    bootcamp = strategies["bootcamp"]
    assert (bootcamp["min_weeks"], bootcamp["max_weeks"]) == (2, 4)
    assert (bootcamp["cost_min"], bootcamp["cost_max"]) == (15_000, 25_000)
    vendor = strategies["vendor-partnership"]
    assert (vendor["discount_min_percent"], vendor["discount_max_percent"]) == (50, 70)
    assert vendor["min_group_size"] == 10
    apprenticeship = strategies["apprenticeship"]
    assert apprenticeship["productivity_loss_percent"] == 20
    assert (apprenticeship["min_weeks"], apprenticeship["max_weeks"]) == (13, 26)


def test_roi_lines(catalog):
    """docs/domain.md section 6: "Investment: 5 engineers x 15,000 training = 75,000; exams and
    materials 20,000; bootcamp and lab access 50,000; total 145,000. Yearly
    returns: less downtime 100,000; contractors avoided 200,000; efficiency (15 %
    energy) 75,000; faster deployment 300,000; total 675,000"; first-year ROI
    365 %, ongoing 465 %."""
    investment = [line["amount"] for line in catalog["roi"]["investment"]]
    returns = [line["amount"] for line in catalog["roi"]["return"]]
    assert investment == [75_000, 20_000, 50_000]
    assert returns == [100_000, 200_000, 75_000, 300_000]
    assert sum(investment) == 145_000
    assert sum(returns) == 675_000
    # 365.5 % and 465.5 %: the document's figures are the whole percent below.
    assert (sum(returns) - sum(investment)) * 100 // sum(investment) == 365
    assert sum(returns) * 100 // sum(investment) == 465


def test_specialities(catalog):
    """docs/domain.md section 10: nine specialities no certification covers, and four emerging."""
    specialities = {s["name"]: s["emerging"] for s in catalog["specialities"]}
    assert specialities == {
        "InfiniBand / RDMA": False,
        "Parallel file systems and GPU Direct Storage": False,
        "Liquid cooling": False,
        "NCCL collectives": False,
        "MIG partitioning": False,
        "Kubernetes orchestration": False,
        "Multi-cloud orchestration": False,
        "Security": False,
        "Sustainability metrics": False,
        "Quantum-classical integration": True,
        "Neuromorphic computing": True,
        "Optical interconnect": True,
        "Energy recovery": True,
    }


def test_external_credentials(catalog):
    """docs/domain.md section 3: "Other certifications the document names, tracked as external
    credentials": CompTIA Linux+, NVIDIA networking, CKA, RHCE, VCP-DCV, AWS /
    Azure / GCP cloud architect, CISSP, CCSP, Six Sigma, vendor expert."""
    codes = {c["code"] for c in catalog["credentials"]}
    assert codes >= {
        "COMPTIA-LINUX-PLUS",
        "NVIDIA-NETWORKING",
        "CKA",
        "RHCE",
        "CISSP",
        "CCSP",
        "VCP-DCV",
        "AWS-ARCHITECT",
        "AZURE-ARCHITECT",
        "GCP-ARCHITECT",
        "SIX-SIGMA",
        "VENDOR-EXPERT",
    }
    # Exams and groups are not external credentials.
    assert not codes & {"NCA-AIIO", "NCP-AII", "NCP-AIO", "CLOUD-ARCHITECT", "SECURITY-CERT"}
    assert by_code(catalog["credentials"])["CKA"]["issuer"] == "CNCF / Linux Foundation"


# --- 2. idempotence --------------------------------------------------------------


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


# --- 3. editing --------------------------------------------------------------------


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


# --- 4. broken files -----------------------------------------------------------------

BrokenCase = tuple[Callable[[str], str | bytes], list[str]]

GPU_ARCH = 'title = "GPU Architecture Essentials"\nhours = 24'


def _bad_toml(text: str) -> str:
    return edit(text, "hours = 16\n", "hours = 16 16\n")


def _bad_toml_line() -> str:
    lines = seed_text().splitlines()
    return f"line {lines.index('hours = 16') + 1}"


BROKEN: dict[str, BrokenCase] = {
    "bad-toml-syntax": (_bad_toml, ["bad TOML syntax", _bad_toml_line()]),
    "unknown-prerequisite": (
        lambda t: edit(
            t, 'prerequisites = ["NCA-AIIO"]', 'prerequisites = ["NCA-AIIO", "NCA-AIO0"]'
        ),
        ["exams #2 (NCP-AII)", "prerequisites", "'NCA-AIO0'"],
    ),
    "unknown-course-in-path": (
        lambda t: edit(t, '"INTRO-AI-INFRA", "GPU-ARCH"]', '"INTRO-AI-INFRA", "GPU-ARCHX"]'),
        ["paths #1 (FOUNDATIONS)", "course", "'GPU-ARCHX'"],
    ),
    "negative-hours": (
        lambda t: edit(t, GPU_ARCH, GPU_ARCH.replace("24", "-24")),
        ["courses #3 (GPU-ARCH)", "hours", "-24"],
    ),
    "zero-hours": (
        lambda t: edit(t, GPU_ARCH, GPU_ARCH.replace("24", "0")),
        ["courses #3 (GPU-ARCH)", "hours", "more than 0"],
    ),
    "duplicate-course-code": (
        lambda t: edit(t, 'code = "IB-NET"', 'code = "MULTI-GPU"'),
        ["courses #5 (MULTI-GPU)", "duplicate", "'MULTI-GPU'"],
    ),
    "duplicate-code-across-exams-and-credentials": (
        lambda t: edit(t, 'code = "CKA"', 'code = "NCP-AIO"'),
        ["exams #3 (NCP-AIO)", "duplicate", "'NCP-AIO'"],
    ),
    "unknown-field": (
        lambda t: edit(t, 'hours = 8\nprovider = "NVIDIA"', 'hours = 8\nprovdier = "NVIDIA"'),
        ["courses #1 (FDL)", "unknown field", "'provdier'"],
    ),
    "missing-required-field": (
        lambda t: edit(t, "target_months = 6\n", ""),
        ["paths #2 (PROFESSIONAL)", "missing field", "'target_months'"],
    ),
    "slot-min-level-above-max-level": (
        lambda t: edit(
            t,
            'count = 2, role = "network", min_level = 3, max_level = 4',
            'count = 2, role = "network", min_level = 4, max_level = 3',
        ),
        ["templates #2 (medium)", "slots #4 (Network Specialist)", "min_level"],
    ),
    "level-number-above-5": (
        lambda t: edit(t, "[[levels]]\nnumber = 5", "[[levels]]\nnumber = 6"),
        ["levels #5 (6)", "number", "at most 5"],
    ),
    "slot-level-above-5": (
        lambda t: edit(
            t,
            'role = "lead", min_level = 4, max_level = 4',
            'role = "lead", min_level = 4, max_level = 6',
        ),
        ["templates #1 (small)", "slots #1 (Infrastructure Lead)", "max_level", "at most 5"],
    ),
    "slot-level-below-1": (
        lambda t: edit(
            t,
            'count = 2, role = "operations", min_level = 2, max_level = 3, '
            'certifications = ["NVIDIA-ASSOCIATE+"] },\n  { title = "Network '
            'Specialist", title_es = "Especialista en Redes", count = 1',
            'count = 2, role = "operations", min_level = 0, max_level = 3, '
            'certifications = ["NVIDIA-ASSOCIATE+"] },\n  { title = "Network '
            'Specialist", title_es = "Especialista en Redes", count = 1',
        ),
        ["templates #1 (small)", "slots #2 (Operations Engineer)", "min_level", "at least 1"],
    ),
    "overlapping-gpu-bands": (
        lambda t: edit(t, "min_gpus = 100\n", "min_gpus = 90\n"),
        ["templates #2 (medium)", "overlaps", "'small'"],
    ),
    "unknown-job-role-in-slot": (
        lambda t: edit(t, 'role = "lead"', 'role = "leader"'),
        ["templates #1 (small)", "slots #1 (Infrastructure Lead)", "job role", "'leader'"],
    ),
    "unknown-group-member": (
        lambda t: edit(t, '"GCP-ARCHITECT"]', '"GCP-ARCHITECT", "OCI-ARCHITECT"]'),
        ["groups #3 (CLOUD-ARCHITECT)", "members", "'OCI-ARCHITECT'"],
    ),
    "not-utf-8": (
        lambda t: ("# Catálogo\n" + t).encode("latin-1"),
        ["not UTF-8"],
    ),
}


def _write_broken(tmp_path: Path, case: str) -> Path:
    mutate, _ = BROKEN[case]
    content = mutate(seed_text())
    path = tmp_path / "broken.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_file_is_refused_naming_file_and_entry(db, tmp_path, case):
    """load_seed: "Validation happens before any write, so a broken file changes
    nothing"; SeedError: "the message names the file and the entry"."""
    path = _write_broken(tmp_path, case)
    counts = row_counts(db)
    before = catalog_dict(db)

    with pytest.raises(SeedError) as raised:
        load_seed(db, path)

    message = str(raised.value)
    assert message.startswith(f"{path}: ")
    for fragment in BROKEN[case][1]:
        assert fragment in message
    assert row_counts(db) == counts
    assert catalog_dict(db) == before


def test_a_missing_file_is_refused(db, tmp_path):
    """A seed path that names no file raises SeedError naming the path."""
    path = tmp_path / "no-such-catalog.toml"
    counts = row_counts(db)
    with pytest.raises(SeedError, match=re.escape(f"{path}: no such file")):
        load_seed(db, path)
    assert row_counts(db) == counts


@pytest.fixture
def fresh_session(fresh_url: str) -> Iterator[Session]:
    """A session on a freshly migrated, empty database."""
    run_migrations(fresh_url)
    engine = make_engine(fresh_url)
    try:
        with sessionmaker(bind=engine)() as session:
            yield session
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "case",
    [
        "bad-toml-syntax",
        "unknown-prerequisite",
        "unknown-group-member",
        "overlapping-gpu-bands",
        "duplicate-code-across-exams-and-credentials",
        "not-utf-8",
    ],
)
def test_a_broken_file_loads_nothing_into_an_empty_database(fresh_session, tmp_path, case):
    """On a fresh database a broken file leaves every table empty: nothing at all
    is loaded, not even the sections before the broken entry."""
    path = _write_broken(tmp_path, case)
    with pytest.raises(SeedError, match=re.escape(str(path))):
        load_seed(fresh_session, path)
    fresh_session.rollback()
    assert set(row_counts(fresh_session).values()) == {0}


def test_a_broken_file_committed_through_session_scope_leaves_nothing(fresh_url, tmp_path):
    """As `tracker init` does it: the unit of work rolls back, nothing is stored."""
    run_migrations(fresh_url)
    engine = make_engine(fresh_url)
    try:
        factory = sessionmaker(bind=engine)
        with pytest.raises(SeedError), session_scope(factory) as session:
            load_seed(session, _write_broken(tmp_path, "unknown-job-role-in-slot"))
        with factory() as session:
            assert set(row_counts(session).values()) == {0}
        with session_scope(factory) as session:
            assert load_seed(session, SEED).created["courses"] == 7
    finally:
        engine.dispose()


def test_read_seed_validates_without_a_database(tmp_path):
    """read_seed parses and validates on its own; it accepts the shipped seed."""
    data = read_seed(SEED)
    assert [c.code for c in data.courses][:3] == ["FDL", "INTRO-AI-INFRA", "GPU-ARCH"]
    assert data.courses[0].hours == Decimal(8)
    with pytest.raises(SeedError, match="courses #3 \\(GPU-ARCH\\)"):
        read_seed(_write_broken(tmp_path, "zero-hours"))


def test_a_prerequisite_cycle_is_refused(tmp_path):
    """docs/domain.md section 3: "An exam attempt whose prerequisites are not met on the
    attempt date is refused" - with NCA-AIIO requiring NCP-AII and NCP-AII
    requiring NCA-AIIO, neither exam could ever be attempted."""
    text = edit(
        seed_text(),
        'minutes = 60\ndelivery = "online, remotely proctored"\n'
        'delivery_es = "en línea, con supervisión remota"\nvalidity_months = 24\n'
        "prerequisites = []",
        'minutes = 60\ndelivery = "online, remotely proctored"\n'
        'delivery_es = "en línea, con supervisión remota"\nvalidity_months = 24\n'
        'prerequisites = ["NCP-AII"]',
    )
    with pytest.raises(SeedError, match="NCA-AIIO"):
        read_seed(write(tmp_path, text))


def test_seed_does_not_take_over_a_code_the_organisation_created(db, tmp_path):
    """An internal course created from the web keeps its code; the seed load stops instead."""
    db.add(Course(code="OWN-101", title="Our runbook", hours=4, origin="internal"))
    db.flush()
    text = SEED.read_text() + '\n[[courses]]\ncode = "OWN-101"\ntitle = "Clash"\nhours = 2\n'
    path = tmp_path / "clash.toml"
    path.write_text(text)
    with pytest.raises(SeedError, match="already used by an entry created in the tracker"):
        load_seed(db, path)
    assert db.scalars(select(Course).where(Course.code == "OWN-101")).one().title == "Our runbook"


# --- the internal track's refusals, in the reader's language -------------------------------


def test_the_internal_tracks_refusals_read_in_english_and_in_spanish(db):
    with pytest.raises(ValidationError) as refused:
        create_internal_track(
            db,
            exam_code="ACME-OPS",
            exam_name="Acme operations",
            validity_months=0,
            courses="ACME-101 | Runbook\nGPU-ARCH | Ours | 1.125",
            path_code="ACME-PATH",
            path_name="Acme path",
            target_months=3,
        )
    errors = refused.value.errors
    assert errors["courses"] == (
        "line 1: write CODE | Title | hours; line 2: hours must have at most 2 decimals"
    )
    assert errors["validity_months"] == "validity must be a whole number of months from 1 to 120"
    spanish = translate_errors(errors, "es")
    assert spanish["courses"] == (
        "línea 1: escribir CÓDIGO | Título | horas; "
        "línea 2: las horas deben tener como máximo 2 decimales"
    )
    assert spanish["validity_months"] == (
        "la vigencia debe ser un número entero de meses entre 1 y 120"
    )
    assert translate(code_taken(db, "gpu-arch") or "", "es") == "GPU-ARCH ya lo usa un curso"
