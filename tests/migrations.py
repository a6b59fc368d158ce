"""The migrations' Alembic configuration, for the tests that upgrade a database themselves."""

from __future__ import annotations

from alembic.config import Config as AlembicConfig

from tracker.config import PROJECT_ROOT


def alembic_config(url: str) -> AlembicConfig:
    """Return Alembic's configuration for the database at `url`, leaving logging alone."""
    cfg = AlembicConfig(str(PROJECT_ROOT / "alembic.ini"))
    cfg.set_main_option("sqlalchemy.url", url)
    cfg.attributes["configure_logger"] = False
    return cfg
