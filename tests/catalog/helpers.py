"""Shared helpers for the catalog tests: the shipped seed file, edited copies of it, row counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import tracker.models  # noqa: F401  (fills the metadata with every table)
from tests.factories import SEED
from tracker.catalog.models.version import CatalogVersion
from tracker.db import Base


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


def by_code(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["code"]: item for item in items}
