"""Outbox marks: each sent row's outcome, committed before the next message's DATA."""

from __future__ import annotations

import datetime as dt
import select
import smtplib
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Row, Table, bindparam, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import Update

from tracker.db import writing
from tracker.reminders.models import Notification

if TYPE_CHECKING:
    import psycopg

_OUTBOX = cast(Table, Notification.__table__)


class Marks:
    """Where a batch records each row's outcome as it goes: one commit per row.

    A row's mark commits before the next message's DATA, so a sender that dies
    sends at most one message again (the one it was sending, with its
    Message-ID). `submit` starts a mark and returns; `wait` returns once it
    has committed, or raises its error; the SMTP connection waits before each
    DATA (`delivery._Smtp.before_data`). So the mark's round trip to the database runs
    while the next message is built and its MAIL and RCPT are answered,
    instead of adding to every message's time.

    Marks run on a connection of their own, taken out of the pool (its
    settings die with it), which commits without waiting for the disk. On
    PostgreSQL it is in libpq's pipeline mode (`_Pipeline`): `submit` sends the
    mark's UPDATE with its Sync and returns, the server runs it meanwhile, and
    `wait` reads its result, there by then (commit included: one autocommit
    statement, `synchronous_commit` off).
    On a SQLite file, marks run one at a time in a thread of their own, in
    WAL mode with `synchronous = NORMAL` (a writer's transaction,
    `writing()`). Such a commit is seen by every other sender at once and
    survives the sender's crash; only a crash of the database server or its
    machine can forget marks, and only the latest: the next durable commit
    (each claim is one) makes every earlier mark durable too, and
    PostgreSQL's WAL writer does within a second. A forgotten mark's row
    stays claimed and is sent again, with the same Message-ID, after the
    lease. Bound to a caller's connection (the tests'), marks run in line, a
    session committing after each.
    """

    def __init__(self, factory: sessionmaker[Session]) -> None:
        bind = factory.kw.get("bind")
        self.factory = factory
        self.engine: Engine | None = None
        self.connection: Connection | None = None  # opened at the first mark
        self.pipeline: _Pipeline | None = None  # PostgreSQL's, entered at the first mark
        self.pending: _Pipeline | Future[None] | None = None
        self.marked = False  # the thread starts at the first mark
        self.thread: ThreadPoolExecutor | None = None
        if isinstance(bind, Engine) and bind.dialect.name == "postgresql":
            self.engine = bind
        # Not an in-memory SQLite database: another thread would get another one.
        elif isinstance(bind, Engine) and bind.url.database not in (None, "", ":memory:"):
            self.engine = bind
            self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="outbox-marks")

    def submit(self, statement: Update, params: dict[str, Any]) -> None:
        self.wait()
        if self.engine is None:
            with writing(), self.factory() as session:
                session.connection().execute(statement, params)
                session.commit()
        elif self.thread is None:
            if self.pipeline is None:
                self.connection = self._connect()
                self.pipeline = _Pipeline(_driver(self.connection))
            # The driver's own connection, with the statement compiled once: a
            # mark is one small UPDATE, and SQLAlchemy's execution machinery
            # (and psycopg's, in its pipeline mode) cost more than the database's work.
            sql, compiled = _numbered_marks(statement)
            values = compiled.construct_params(params)
            self.pipeline.send(sql, [values[name] for name in compiled.positiontup or ()])
            self.pending = self.pipeline
        else:
            self.pending = self.thread.submit(self._mark, statement, params)
            self.marked = True

    def wait(self) -> None:
        pending, self.pending = self.pending, None
        if pending is None:
            return
        try:
            if isinstance(pending, Future):
                pending.result()
            else:
                pending.sync()
        except (OSError, smtplib.SMTPException) as exc:
            # Never to be taken for an SMTP failure by the sending code.
            raise RuntimeError(f"marking an outbox row failed: {exc}") from exc

    def _mark(self, statement: Update, params: dict[str, Any]) -> None:
        # In the marks' thread: the connection is only ever used there.
        connection = self.connection
        if connection is None:
            connection = self.connection = self._connect()
        with writing(), connection.begin():
            connection.execute(statement, params)

    def _connect(self) -> Connection:
        engine = self.engine
        if engine is None:
            raise RuntimeError("marks bound to a caller's connection open none of their own")
        connection = engine.connect()
        try:
            if engine.dialect.name == "postgresql":
                connection = connection.execution_options(isolation_level="AUTOCOMMIT")
                connection.detach()
                connection.exec_driver_sql("SET synchronous_commit TO OFF")
            elif engine.dialect.name == "sqlite":
                connection.detach()
                # Outside any transaction (SQLite refuses the setting inside one).
                raw = _driver(connection)
                if raw.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                    raw.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            connection.close()
            raise
        return connection

    def _disconnect(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def close(self) -> None:
        """Wait for the last mark (raising its error); then let the thread and connection go."""
        try:
            self.wait()
        finally:
            if self.thread is not None:
                if self.marked:
                    self.thread.submit(self._disconnect)
                self.thread.shutdown(wait=True)
            elif self.connection is not None:
                try:
                    if self.pipeline is not None:
                        self.pipeline.close()
                finally:
                    self._disconnect()


# One mark statement per set of columns an outcome writes, built once: building
# and keying a new statement for every message cost more than running it.
_MARK_STATEMENTS: dict[tuple[str, ...], Update] = {}


def _mark_statement(columns: tuple[str, ...]) -> Update:
    statement = _MARK_STATEMENTS.get(columns)
    if statement is None:
        statement = (
            update(_OUTBOX)
            .where(
                _OUTBOX.c.id == bindparam("row_id"),
                _OUTBOX.c.claimed_by == bindparam("worker"),
                _OUTBOX.c.status == "sending",
            )
            .values(
                claimed_by=None,
                **{c: bindparam(f"new_{c}", type_=_OUTBOX.c[c].type) for c in columns},
            )
        )
        _MARK_STATEMENTS[columns] = statement
    return statement


_NUMBERED_MARKS: dict[Update, tuple[bytes, SQLCompiler]] = {}


def _numbered_marks(statement: Update) -> tuple[bytes, SQLCompiler]:
    """Return a mark statement's SQL for libpq ($1, $2, ...) and its compiled form (its binds)."""
    found = _NUMBERED_MARKS.get(statement)
    if found is None:
        numbered = postgresql.psycopg.dialect(paramstyle="numeric_dollar")
        compiled = statement.compile(dialect=numbered)
        found = _NUMBERED_MARKS[statement] = (compiled.string.encode(), compiled)
    return found


class _Pipeline:
    """The marks' PostgreSQL connection in libpq's pipeline mode, driven directly.

    Each mark goes out with its Sync, so the server answers it as soon as it has
    run it; `sync` then only reads what is there (psycopg's own pipeline asks
    for the answer when it is wanted: a round trip before every message).
    """

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        from psycopg.adapt import Transformer

        self.pgconn = connection.pgconn
        self.transformer = Transformer(connection)
        self.pgconn.enter_pipeline_mode()
        self.unanswered = 0

    def send(self, sql: bytes, params: Sequence[Any]) -> None:
        from psycopg.adapt import PyFormat

        dumped = self.transformer.dump_sequence(params, [PyFormat.TEXT] * len(params))
        self.pgconn.send_query_params(sql, dumped)
        self.pgconn.pipeline_sync()
        self.unanswered += 1
        while self.pgconn.flush():
            select.select([], [self.pgconn.socket], [])

    def sync(self) -> None:
        """Read every answer still to come; raise the first error among them."""
        from psycopg import errors, pq

        failed = None
        while self.unanswered:
            self.pgconn.consume_input()
            while self.unanswered and not self.pgconn.is_busy():
                result = self.pgconn.get_result()
                if result is None:
                    continue  # the end of one statement's results
                if result.status == pq.ExecStatus.PIPELINE_SYNC:
                    self.unanswered -= 1
                elif result.status == pq.ExecStatus.FATAL_ERROR and failed is None:
                    failed = result
            if self.unanswered:
                select.select([self.pgconn.socket], [], [])
        if failed is not None:
            state = (failed.error_field(pq.DiagnosticField.SQLSTATE) or b"").decode()
            message = (failed.error_message or b"").decode(errors="replace").strip()
            try:
                error = errors.lookup(state)
            except KeyError:
                error = errors.DatabaseError
            raise error(message)

    def close(self) -> None:
        try:
            self.sync()
        finally:
            self.pgconn.exit_pipeline_mode()


def finish(marks: Marks, row: Row[Any], worker: str, now: dt.datetime, **values: Any) -> None:
    """Record a row's outcome if this worker still holds it; it commits before the next DATA."""
    params = {f"new_{column}": value for column, value in values.items()}
    params.update(row_id=row.id, worker=worker)
    marks.submit(_mark_statement(tuple(values)), params)


def _driver(connection: Connection) -> Any:
    """Return the driver's own connection under `connection` (psycopg's or sqlite3's)."""
    return connection.connection.dbapi_connection
