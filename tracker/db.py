"""Declarative base, engine and session setup."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar

from sqlalchemy import (
    ColumnElement,
    Integer,
    MetaData,
    Select,
    String,
    create_engine,
    event,
    inspect,
    literal_column,
    text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.types import TypeDecorator

from tracker.config import PROJECT_ROOT

# Indico's convention: every constraint has a predictable name, so that
# migrations can drop and alter them on every dialect (SQLite batch mode too).
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Ids are INTEGER columns, 32 bits on PostgreSQL: a larger number names no row.
MAX_ID = 2**31 - 1


class Base(DeclarativeBase):
    """Base class of every model."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def sql_literal(value: str | int) -> ColumnElement[Any]:
    """Return a constant of the code's written into a statement's SQL, not bound.

    For statements built once and run on a hot path: every bound parameter
    costs each execution its processing and its transfer, and a constant
    never changes. Only for the code's own constants (names, codes), never
    for what a request sends.
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"not a text or whole-number constant: {value!r}")
    if isinstance(value, int):
        return literal_column(str(value), Integer)
    return literal_column("'" + value.replace("'", "''") + "'", String)


class Fixed(TypeDecorator[Decimal]):
    """A decimal stored exactly as an integer count of 1/10**scale units.

    SQLite has no exact decimal type, and floats would make hour totals drift;
    an integer column is exact on every dialect. Check constraints on such a
    column compare the stored integer (hours 24 is 2400 at scale 2).
    """

    impl = Integer
    cache_ok = True

    def __init__(self, scale: int = 2) -> None:
        super().__init__()
        self.scale = scale
        self.factor = 10**scale

    def process_bind_param(self, value: Decimal | int | None, dialect: object) -> int | None:
        if value is None:
            return None
        scaled = Decimal(value) * self.factor
        if scaled != scaled.to_integral_value():
            raise ValueError(f"{value} has more than {self.scale} decimals")
        return int(scaled)

    def process_result_value(self, value: int | None, dialect: object) -> Decimal | None:
        if value is None:
            return None
        # Exact: the stored integer's digits with the scale's places (150 → 1.50).
        return Decimal(value).scaleb(-self.scale)


# Whether the unit of work running now means to write. On SQLite its transaction
# then takes the write lock at BEGIN (BEGIN IMMEDIATE), so a read-then-write
# waits its turn (busy timeout) instead of failing with "database is locked"
# when it tries to upgrade a read snapshot that another writer has moved past.
WRITE_INTENT: contextvars.ContextVar[bool] = contextvars.ContextVar("write_intent", default=False)


@contextmanager
def writing() -> Iterator[None]:
    """Mark the transactions begun inside the block as writers."""
    token = WRITE_INTENT.set(True)
    try:
        yield
    finally:
        WRITE_INTENT.reset(token)


# The lock an UPDATE of a row's own columns takes (FOR NO KEY UPDATE). A request
# that reads a record to change it holds the record until it commits, so the
# version it checked (If-Match, an edit page's) is still the one it replaces:
# a second writer waits, then reads what the first wrote. Rows that only point
# at the record (an hour entry at its engineer) are written meanwhile. SQLite
# has no row locks; its writers take turns (BEGIN IMMEDIATE, above).
FOR_CHANGE: dict[str, Any] = {"key_share": True}

M = TypeVar("M")


def get_for_change(session: Session, model: type[M], ident: int) -> M | None:
    """Return the row of `model` with the id, read afresh and held until the transaction ends."""
    return session.get(model, ident, with_for_update=FOR_CHANGE, populate_existing=True)


def held_for_change(query: Select[Any], of: Any) -> Select[Any]:
    """Return `query` reading the rows of `of` afresh, held until the transaction ends."""
    return query.with_for_update(**FOR_CHANGE, of=of).execution_options(populate_existing=True)


DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 15000
# Connections a pool keeps: one for each thread of a `tracker serve` worker (8 by
# default). A request that finds none idle opens one, and past the pool's size that
# connection is closed when it is returned: on a busy server, a connection (a
# PostgreSQL backend to start, its statements to prepare again) per request or so.
DEFAULT_POOL_SIZE = 8


# PostgreSQL plans without parallel workers. The tracker's reads are many small
# ones, and a parallel plan's workers cost more to start than they save: a team's
# hours at 50,000 engineers took 13 ms with one (a parallel scan of the people),
# 0.7 ms without, until a prepared statement's generic plan took over after ten
# runs on that connection. An URL that sets `options` itself is left as it is.
SERIAL_PLANS = "-c max_parallel_workers_per_gather=0"


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    """Turn on foreign keys, WAL and a busy timeout, and let SQLAlchemy own BEGIN."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, connection_record):
        # pysqlite's own transaction handling breaks savepoints and
        # transactional DDL; SQLAlchemy emits BEGIN itself instead.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE" if WRITE_INTENT.get() else "BEGIN")


def make_engine(
    url: str,
    *,
    sqlite_busy_timeout_ms: int = DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
    pool_size: int = DEFAULT_POOL_SIZE,
    **kwargs: object,
) -> Engine:
    """Create an engine with the per-dialect settings the tracker relies on.

    On SQLite a writer waits up to `sqlite_busy_timeout_ms` for the write lock
    before failing with "database is locked" (answered 503 by the web layer).
    The pool keeps up to `pool_size` connections open (at least the threads
    that share it). PostgreSQL plans without parallel workers (SERIAL_PLANS).
    """
    if url.startswith("postgresql") and "options=" not in url:
        given: dict[str, object] = kwargs.pop("connect_args", None) or {}  # type: ignore[assignment]
        connect_args = {**given}
        connect_args.setdefault("options", SERIAL_PLANS)
        kwargs["connect_args"] = connect_args
    engine = create_engine(url, pool_size=pool_size, **kwargs)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine, sqlite_busy_timeout_ms)
    return engine


def make_session_factory(engine_or_connection) -> sessionmaker[Session]:
    """Return a session factory bound to an engine (or a test's connection)."""
    return sessionmaker(bind=engine_or_connection, expire_on_commit=False)


def autocommit_engine(engine: Engine, pool_size: int = DEFAULT_POOL_SIZE) -> Engine | None:
    """Return an engine on which every statement commits on its own; None on SQLite.

    For a unit of work that is one statement on PostgreSQL: it needs no BEGIN
    and no COMMIT, two round trips of three. It has a pool of its own, whose
    connections stay in autocommit (switching a pooled connection's mode at
    checkout and back at return costs more than the round trips saved), and
    it is disposed with `engine`; it keeps up to `pool_size` connections, as
    make_engine's pool does. SQLite's writers must begin with BEGIN IMMEDIATE,
    so it has none.
    """
    if engine.dialect.name != "postgresql":
        return None
    # A connection that commits each statement holds nothing to roll back when returned.
    autocommit = create_engine(
        engine.url, isolation_level="AUTOCOMMIT", pool_size=pool_size, pool_reset_on_return=None
    )
    event.listen(engine, "engine_disposed", lambda _: autocommit.dispose())
    return autocommit


def release(session: Session) -> None:
    """End the session's transaction before the unit of work reaches outside the database.

    What the transaction holds (rows read for change, SQLite's write lock) would
    make every other writer wait on the network meanwhile. Only before the unit
    of work writes: what it did so far (its reads, an API token's use) commits,
    and the next statement begins a new transaction, a writer's again.
    """
    if session.new or session.dirty or session.deleted:
        raise RuntimeError("a session holding unwritten changes cannot be released")
    session.commit()


@contextmanager
def connected(bind: Engine | Connection) -> Iterator[Connection]:
    """Yield a connection of an engine, returned afterwards, or the connection given."""
    if isinstance(bind, Connection):
        yield bind
        return
    with bind.connect() as connection:
        yield connection


def plain_rows(session: Session) -> Connection:
    """Return the session's connection, flushed first, for reads of plain rows (no entities).

    What `session.execute` does before a read, without the ORM's work per statement:
    a page reading hundreds of rows through it pays that work for each. The pages'
    statements read this way are kept ("kept statements"), built once with their
    values bound at each call: a new statement object has SQLAlchemy work out its
    cache key again on every page. Their results are fetched at once (`.all()`):
    iterating one fetches its rows one by one.
    """
    if session.autoflush:
        session.flush()
    return session.connection()


@contextmanager
def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """Run a unit of work that writes: commit when the block succeeds, roll back when it raises."""
    with writing():
        session = factory()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()


def _alembic_config(url: str = "") -> Any:
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig(str(PROJECT_ROOT / "alembic.ini"))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    cfg.attributes["configure_logger"] = False
    return cfg


@cache
def head_revision() -> str:
    """Return the migration the code expects the database at (the head revision)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config()).get_current_head() or ""


def database_revision(connection: Connection) -> str | None:
    """Return the migration the database is at, or None before the first."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def run_migrations(url: str) -> str:
    """Upgrade the database at `url` to the head revision; return the head."""
    from alembic import command

    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(_alembic_config(url), "head")
    return head_revision()


Row = TypeVar("Row")


def page_count(total: int, per_page: int) -> int:
    """Return how many pages `total` rows fill, `per_page` a page (one when there are none)."""
    return max(1, -(-total // per_page))


def within_pages(page: int, total: int, per_page: int) -> int:
    """Return `page` held to the pages `total` rows fill: a page past the end is the last."""
    return min(max(page, 1), page_count(total, per_page))


class Paging:
    """Where one page of rows sits among the pages: a mixin of the paged reads' results."""

    page: int
    per_page: int

    def _count(self) -> int:
        """Return how many rows there are across every page."""
        raise NotImplementedError

    @property
    def pages(self) -> int:
        return page_count(self._count(), self.per_page)

    @property
    def has_prev(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages


@dataclass(frozen=True)
class CountedPage(Paging, Generic[Row]):
    """One page of rows, with how many rows there are across every page."""

    rows: list[Row]
    total: int
    page: int
    per_page: int

    def _count(self) -> int:
        return self.total
