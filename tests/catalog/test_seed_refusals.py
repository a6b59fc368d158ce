"""The seed files refused before any write: broken, missing, cyclic, or taking a tracker's code."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from tests.catalog.helpers import edit, row_counts, seed_text, write
from tests.factories import SEED
from tracker.catalog.models.credentials import Course
from tracker.catalog.services.reads import catalog_dict
from tracker.catalog.services.seed_loading import load_seed
from tracker.catalog.services.seed_reading import SeedError, read_seed
from tracker.db import make_engine, run_migrations, session_scope

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
