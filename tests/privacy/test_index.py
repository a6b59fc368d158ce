"""A person's data export finds their audit events by index, not in every event's snapshots."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, text
from sqlalchemy.orm import Session

from tests.privacy.conftest import Scene
from tracker.privacy.services.events import audit_events


def _export_query(db: Session, scene: Scene) -> tuple[str, Any]:
    """Return the statement the export reads the person's audit events with, and its binds."""
    engine = db.get_bind()
    seen: list[tuple[str, Any]] = []

    def see(_conn, _cursor, statement, parameters, _context, _many) -> None:
        if "FROM audit_events" in statement:
            seen.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", see)
    try:
        assert audit_events(db, scene.person)
    finally:
        event.remove(engine, "before_cursor_execute", see)
    (query,) = seen
    return query


def test_the_export_reads_a_persons_audit_events_by_their_indexes(db: Session, scene: Scene):
    statement, parameters = _export_query(db, scene)
    connection = db.connection()
    if connection.dialect.name == "postgresql":
        # The scene's few rows are read faster whole: the planner is asked to use what
        # it can, as it does on a table of millions.
        connection.execute(text("SET LOCAL enable_seqscan = off"))
        explain = "EXPLAIN "
    else:
        explain = "EXPLAIN QUERY PLAN "
    rows = connection.exec_driver_sql(explain + statement, parameters).all()
    plan = "\n".join(str(row[-1]) for row in rows)
    assert "ix_audit_events_engineer" in plan, plan
    assert "ix_audit_events_actor" in plan, plan
