"""Write planned rows in bulk: COPY on PostgreSQL, executemany elsewhere."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ForeignKeyConstraint,
    Integer,
    Table,
    TableClause,
    column,
    func,
    insert,
    select,
    text,
)
from sqlalchemy import table as lightweight
from sqlalchemy.orm import Session
from sqlalchemy.schema import AddConstraint, DropConstraint

from tracker.db import Base, Fixed


class BulkWriter:
    """Buffer rows per table, with identifiers assigned here, and write them in batches.

    Identifiers come from the writer, so planned rows can point at each other
    without reading anything back.
    """

    BATCH = 20_000

    def __init__(self, session: Session) -> None:
        self.session = session
        self.postgres = session.get_bind().dialect.name == "postgresql"
        self.buffers: dict[str, list[tuple[Any, ...]]] = {}
        self.columns: dict[str, tuple[str, ...]] = {}
        self.tables: dict[str, TableClause] = {}
        self.rows: dict[str, int] = {}
        self.next_ids: dict[str, int] = {}
        self.dropped_keys: list[ForeignKeyConstraint] = []

    def table(
        self, model: type[Base], columns: tuple[str, ...], *, keys_after: bool = False
    ) -> None:
        """Declare a model's table and the columns its rows give, in order.

        `keys_after` (PostgreSQL): drop the table's foreign keys until `finish`,
        which adds them again, checking every row in one pass. Checked per
        row, they were most of the copy's time for millions of rows; the
        table's lock, held to the commit, keeps out every other writer.
        """
        real = model.__table__
        assert isinstance(real, Table)
        name = real.name
        if keys_after and self.postgres:
            for key in sorted(real.foreign_key_constraints, key=lambda k: str(k.name)):
                self.session.execute(DropConstraint(key))
                self.dropped_keys.append(key)
        self.columns[name] = columns
        # Fixed columns take the stored integer (hundredths) as it is.
        self.tables[name] = lightweight(
            name,
            *(
                column(c, Integer() if isinstance(real.c[c].type, Fixed) else real.c[c].type)
                for c in columns
            ),
        )
        self.buffers[name] = []
        self.rows[name] = 0
        if "id" in real.c:
            self.next_ids[name] = (self.session.scalar(select(func.max(real.c.id))) or 0) + 1

    def new_id(self, name: str) -> int:
        """Return the next identifier of the table `name`."""
        value = self.next_ids[name]
        self.next_ids[name] = value + 1
        return value

    def add(self, name: str, row: tuple[Any, ...]) -> None:
        """Buffer a row of the table `name`, writing a full batch."""
        buffer = self.buffers[name]
        buffer.append(row)
        if len(buffer) >= self.BATCH:
            # Rows point at rows of the tables declared before (engineers before
            # their hour logs, attempts before certifications): those go first.
            for table in self.buffers:
                self.flush(table)
                if table == name:
                    break

    def flush(self, name: str | None = None) -> None:
        """Write the buffered rows of the table `name`, or of every table."""
        for table in [name] if name else list(self.buffers):
            rows = self.buffers[table]
            if not rows:
                continue
            self.buffers[table] = []
            self.rows[table] += len(rows)
            columns = self.columns[table]
            if self.postgres:
                raw = self.session.connection().connection.driver_connection
                assert raw is not None
                with (
                    raw.cursor() as cursor,
                    cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
                ):
                    for row in rows:
                        copy.write_row(row)
            else:
                self.session.execute(
                    insert(self.tables[table]), [dict(zip(columns, r, strict=True)) for r in rows]
                )

    def finish(self) -> None:
        """Write what is left, add the dropped foreign keys again, move the sequences on."""
        self.flush()
        for key in self.dropped_keys:
            self.session.execute(AddConstraint(key))
        self.dropped_keys = []
        if self.postgres:
            for name in self.next_ids:
                self.session.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                        f"(SELECT max(id) FROM {name}))"
                    )
                )
