"""`tracker init` loads the catalog; `tracker catalog --json` prints it.

Each test runs a Flask app of its own on an empty SQLite file (fresh_url).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import func, select

import tracker.models  # noqa: F401  (fills the metadata with every table)
from tests.factories import SEED
from tests.helpers import catalog_model_values
from tracker import create_app
from tracker.catalog.models.version import CatalogVersion
from tracker.db import Base, make_engine

# The catalog's content: not the one bookkeeping row of its version stamp.
CATALOG_TABLES = sorted(
    {
        obj.__table__.name
        for obj in catalog_model_values()
        if isinstance(obj, type) and issubclass(obj, Base) and obj not in (Base, CatalogVersion)
    }
)


def make_app(url: str, seed: Path) -> Flask:
    return create_app({"DATABASE_URL": url, "SECRET_KEY": "x", "SEED_PATH": str(seed)})


@pytest.fixture
def app_for(fresh_url: str) -> Iterator:
    """Return a maker of apps on this test's fresh database; dispose their engines."""
    apps: list[Flask] = []

    def make(seed: Path = SEED) -> Flask:
        app = make_app(fresh_url, seed)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["tracker.engine"].dispose()


def catalog_counts(url: str) -> dict[str, int]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return {
                name: conn.scalar(select(func.count()).select_from(Base.metadata.tables[name]))
                for name in CATALOG_TABLES
            }
    finally:
        engine.dispose()


def broken_seed(tmp_path: Path) -> Path:
    """The seed with one slot naming a job role that does not exist."""
    text = SEED.read_text(encoding="utf-8")
    assert text.count('role = "lead"') == 1
    path = tmp_path / "broken.toml"
    path.write_text(text.replace('role = "lead"', 'role = "leader"'), encoding="utf-8")
    return path


def test_init_loads_the_catalog_and_a_second_init_reports_it_unchanged(app_for, fresh_url):
    """seed/catalog.toml: "`tracker init` loads this file. Loading is idempotent:
    a second run changes nothing"."""
    runner = app_for().test_cli_runner()

    first = runner.invoke(args=["init"])
    assert first.exit_code == 0, first.output
    assert "catalog: " in first.output
    assert "7 courses created" in first.output
    assert "2 learning_paths created" in first.output
    counts = catalog_counts(fresh_url)
    assert counts["courses"] == 7 and counts["levels"] == 5

    second = runner.invoke(args=["init"])
    assert second.exit_code == 0, second.output
    assert "catalog unchanged" in second.output
    assert catalog_counts(fresh_url) == counts


def test_catalog_json_has_the_documented_shape(app_for):
    """`tracker catalog --json` prints one JSON object: levels, paths, exams,
    credentials and templates with the keys named in the issue."""
    runner = app_for().test_cli_runner()
    assert runner.invoke(args=["init"]).exit_code == 0

    result = runner.invoke(args=["catalog", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)

    assert {"levels", "paths", "exams", "credentials", "templates"} <= set(data)

    assert [lv["number"] for lv in data["levels"]] == [1, 2, 3, 4, 5]
    for level in data["levels"]:
        assert {"number", "name", "salary_min", "salary_max"} <= set(level)
        assert isinstance(level["name"], str)
        assert isinstance(level["salary_min"], int) and isinstance(level["salary_max"], int)
        assert level["salary_min"] <= level["salary_max"]

    assert [p["code"] for p in data["paths"]] == ["FOUNDATIONS", "PROFESSIONAL"]
    for path in data["paths"]:
        assert {"code", "name", "target_months", "exam", "courses"} <= set(path)
        for course in path["courses"]:
            assert {"code", "title", "hours"} <= set(course)
            assert isinstance(course["hours"], int | float)
    foundations = data["paths"][0]
    assert (foundations["target_months"], foundations["exam"]) == (3, "NCA-AIIO")
    assert [c["hours"] for c in foundations["courses"]] == [8, 16, 24]
    assert sum(c["hours"] for c in data["paths"][1]["courses"]) == 136

    exam_keys = {
        "code",
        "name",
        "questions",
        "minutes",
        "validity_months",
        "prerequisites",
        "experience_months",
        "retake_wait_days",
    }
    for exam in data["exams"]:
        assert exam_keys <= set(exam)
        assert isinstance(exam["prerequisites"], list)
    exams = {e["code"]: e for e in data["exams"]}
    assert (exams["NCA-AIIO"]["questions"], exams["NCA-AIIO"]["minutes"]) == (50, 60)
    assert exams["NCP-AII"]["prerequisites"] == ["NCA-AIIO"]
    assert exams["NCP-AII"]["experience_months"] == 12
    assert exams["NCP-AIO"]["questions"] is None

    for credential in data["credentials"]:
        assert {"code", "name", "issuer"} <= set(credential)
    assert {"CKA", "RHCE", "VCP-DCV", "CISSP", "CCSP", "COMPTIA-LINUX-PLUS"} <= {
        c["code"] for c in data["credentials"]
    }

    assert [t["code"] for t in data["templates"]] == ["small", "medium", "large"]
    for template in data["templates"]:
        assert {"code", "min_gpus", "max_gpus", "slots"} <= set(template)
        for slot in template["slots"]:
            assert {"count", "role", "min_level", "max_level", "certifications"} <= set(slot)
            assert isinstance(slot["certifications"], list)
    assert [sum(s["count"] for s in t["slots"]) for t in data["templates"]] == [4, 10, 22]
    assert data["templates"][2]["max_gpus"] is None


def test_catalog_text_lists_paths_exams_and_templates(app_for):
    runner = app_for().test_cli_runner()
    assert runner.invoke(args=["init"]).exit_code == 0
    result = runner.invoke(args=["catalog"])
    assert result.exit_code == 0, result.output
    assert "Foundations (48 h, exam NCA-AIIO)" in result.output
    assert "Professional (136 h, exam NCP-AII)" in result.output
    assert "NCP-AII: valid 24 months; requires NCA-AIIO" in result.output
    assert "template large: 22 slots from 1000 GPUs" in result.output


def test_init_with_a_broken_seed_fails_and_loads_nothing(app_for, fresh_url, tmp_path):
    """A broken SEED_PATH: init exits non-zero with the SeedError message (file
    and entry) and the catalog stays empty."""
    path = broken_seed(tmp_path)
    runner = app_for(path).test_cli_runner()

    result = runner.invoke(args=["init"])

    assert result.exit_code != 0
    assert f"{path}: templates #1 (small): slots #1 (Infrastructure Lead)" in result.output
    assert "unknown job role 'leader'" in result.output
    assert "Traceback" not in result.output
    assert set(catalog_counts(fresh_url).values()) == {0}


def test_init_seed_option_overrides_the_configured_seed(app_for, fresh_url, tmp_path):
    """`tracker init --seed FILE` loads FILE instead of SEED_PATH."""
    path = broken_seed(tmp_path)
    runner = app_for().test_cli_runner()

    result = runner.invoke(args=["init", "--seed", str(path)])
    assert result.exit_code != 0
    assert "unknown job role 'leader'" in result.output
    assert set(catalog_counts(fresh_url).values()) == {0}

    fixed = runner.invoke(args=["init"])
    assert fixed.exit_code == 0, fixed.output
    assert catalog_counts(fresh_url)["team_templates"] == 3
