"""Alembic environment: the tracker's metadata against TRACKER_DATABASE_URL."""

from __future__ import annotations

import warnings
from logging.config import fileConfig

from alembic import context

import tracker.models  # noqa: F401  (fills the metadata)
from tracker.config import database_url
from tracker.db import Base, make_engine
from tracker.progress.ddl import EXPIRY_ORDER_INDEX

# Indexes on an expression, made on PostgreSQL only: SQLite cannot reflect them.
POSTGRESQL_ONLY_INDEXES = {EXPIRY_ORDER_INDEX}

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _configure(connection=None, url=None) -> None:
    dialect = connection.dialect.name if connection is not None else url.split(":", 1)[0]
    if dialect.startswith("sqlite"):
        for name in POSTGRESQL_ONLY_INDEXES:
            # Made on PostgreSQL only (its migration says why): nothing to compare here.
            warnings.filterwarnings(
                "ignore",
                f"autogenerate skipping metadata-specified expression-based index '{name}'",
            )
    context.configure(
        connection=connection,
        url=url,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things; batch mode copies the table instead.
        render_as_batch=dialect.startswith("sqlite"),
        compare_type=True,
        compare_server_default=False,
        # SQLAlchemy emits BEGIN itself on SQLite (tracker.db), so DDL there is
        # transactional: a failed migration leaves the database as it was.
        transactional_ddl=True,
        literal_binds=connection is None,
    )


def run_migrations_offline() -> None:
    _configure(url=config.get_main_option("sqlalchemy.url") or database_url())
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    # Tests and `tracker init` hand over their own connection.
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or database_url())
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # Batch mode rebuilds tables; with foreign keys enforced, dropping
            # the old copy would cascade into (or refuse for) referencing rows.
            # The pragma only takes effect outside a transaction.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
        _configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
            if sqlite:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise RuntimeError(f"migration left dangling foreign keys: {broken[:5]}")
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
