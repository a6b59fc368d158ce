"""Statements compiled once and run on the database driver's own cursor.

For a hot path's one statement (POST /api/v1/hours for an engineer's own
hours): SQLAlchemy's execution of a statement with many binds (its cache
lookup, the parameters' processing, the result's metadata) cost more of the
server's time than the database's work. A DriverStatement compiles the
statement once per dialect and, at each call, only runs the binds' own type
processors before handing SQL and values to the driver. What watches
SQLAlchemy's statements still sees it: the connection's cursor events fire,
and the driver's errors come out as SQLAlchemy's (IntegrityError...), a lost
connection invalidated as SQLAlchemy does it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError, InvalidRequestError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter

_Processor = Callable[[Any], Any]


@dataclass(frozen=True)
class _Compiled:
    sql: str
    # Every bind's name, its processor (None when the driver takes the value
    # as it is) and the bind itself, whose own value stands in for one not given.
    binds: tuple[tuple[str, _Processor | None, BindParameter[Any]], ...]
    results: tuple[_Processor | None, ...]


class DriverStatement:
    """A Core statement run on the driver's cursor, with its SQL compiled once per dialect.

    PostgreSQL through psycopg only: the statement is prepared on the server
    (psycopg's `prepare`), once per connection. It binds named parameters
    only (no expanding IN lists, no literal-execute values) and runs on a
    connection that is in autocommit or in a transaction already: the
    driver's own transaction is SQLAlchemy's.
    """

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        # By dialect, not its name: each engine's dialect has its own settings
        # (a JSON serializer, say), which the binds' processors carry.
        self._compiled: dict[Dialect, _Compiled] = {}

    def _compile(self, dialect: Dialect) -> _Compiled:
        found = self._compiled.get(dialect)
        if found is not None:
            return found
        if dialect.driver != "psycopg":
            raise ValueError(f"a driver statement runs on psycopg, not {dialect.driver}")
        compiled = cast(SQLCompiler, self.statement.compile(dialect=dialect))
        if compiled.literal_execute_params or compiled.post_compile_params:
            raise ValueError("a driver statement binds plain values only")
        binds = tuple(
            (name, bind.type.dialect_impl(dialect).bind_processor(dialect), bind)
            for name, bind in compiled.binds.items()
        )
        columns = getattr(self.statement, "selected_columns", ())
        results = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
        )
        found = self._compiled[dialect] = _Compiled(compiled.string, binds, results)
        return found

    def first(self, connection: Connection, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """Run the statement with `params`; return its first row as a tuple, or None."""
        dialect = connection.dialect
        compiled = self._compile(dialect)
        values: dict[str, Any] = {}
        for name, process, bind in compiled.binds:
            if name in params:
                value = params[name]
            elif bind.required:
                raise InvalidRequestError(f"a value is required for bind parameter {name!r}")
            else:
                value = bind.effective_value
            values[name] = process(value) if process is not None else value
        sql = compiled.sql
        dispatch = connection.dispatch
        raw = connection.connection.driver_connection
        assert raw is not None
        cursor = raw.cursor()
        try:
            for before in dispatch.before_cursor_execute:
                sql, values = before(connection, cursor, sql, values, None, False)
            try:
                cursor.execute(sql, values, prepare=True)
                row = cursor.fetchone()
            except dialect.loaded_dbapi.Error as exc:
                if dialect.is_disconnect(exc, raw, cursor):
                    connection.invalidate(exc)
                raise DBAPIError.instance(
                    sql, values, exc, dialect.loaded_dbapi.Error, dialect=dialect
                ) from exc
            for after in dispatch.after_cursor_execute:
                after(connection, cursor, sql, values, None, False)
        finally:
            cursor.close()
        if row is None or not any(compiled.results):
            return row
        return tuple(
            process(value) if process is not None else value
            for process, value in zip(compiled.results, row, strict=True)
        )
