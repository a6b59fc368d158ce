"""Outbox marks: each sent row's outcome, committed before the next message's DATA."""

from __future__ import annotations

import contextlib
import datetime as dt
import smtplib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Connection, Row, Table, bindparam, update
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.compiler import Compiled
from sqlalchemy.sql.dml import Update

from tracker.db import writing
from tracker.reminders.models import Notification

if TYPE_CHECKING:
    from psycopg import Pipeline

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
    PostgreSQL it is in pipeline mode: `submit` sends the mark's UPDATE and
    returns, the server runs it meanwhile, and `wait` collects its result
    (commit included: one autocommit statement, `synchronous_commit` off).
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
        self.pipeline: Pipeline | None = None  # PostgreSQL's, entered at the first mark
        self.in_pipeline = contextlib.ExitStack()
        self.pending: Pipeline | Future[None] | None = None
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
            if self.connection is None:
                self.connection = self._connect()
                self.pipeline = self.in_pipeline.enter_context(_driver(self.connection).pipeline())
            # The driver's own connection, with the statement compiled once: a
            # mark is one small UPDATE, and SQLAlchemy's execution machinery
            # cost more than the database's work.
            sql, compiled = _compiled_marks(statement, self.engine.dialect)
            _driver(self.connection).execute(sql, compiled.construct_params(params))
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
                    self.in_pipeline.close()
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


_COMPILED_MARKS: dict[Update, tuple[str, Compiled]] = {}


def _compiled_marks(statement: Update, dialect: Dialect) -> tuple[str, Compiled]:
    """Return a mark statement's SQL for the driver, and its compiled form (for its binds)."""
    found = _COMPILED_MARKS.get(statement)
    if found is None:
        compiled = statement.compile(dialect=dialect)
        found = _COMPILED_MARKS[statement] = (compiled.string, compiled)
    return found


def finish(marks: Marks, row: Row[Any], worker: str, now: dt.datetime, **values: Any) -> None:
    """Record a row's outcome if this worker still holds it; it commits before the next DATA."""
    params = {f"new_{column}": value for column, value in values.items()}
    params.update(row_id=row.id, worker=worker)
    marks.submit(_mark_statement(tuple(values)), params)


def _driver(connection: Connection) -> Any:
    """Return the driver's own connection under `connection` (psycopg's or sqlite3's)."""
    return connection.connection.dbapi_connection
