"""The database's own part in the stale check: the triggers marking a team's new revision.

A team's readiness revision moves in many writers (every ORM flush that
touches its inputs, tracker.readiness.models). The database marks each new
revision, and each new team, in `readiness_marks` in the writer's own
transaction, whichever statement moved it: a mark is never missing for a
committed revision. A refresh deletes the marks its stored row covers. So
"is some team's revision not stored" reads one small table (the marks
outstanding), not every team against its stored row.

SQLite drops a table's triggers with the table: a batch migration that
recreates `teams` must create SQLITE_TRIGGERS again.
"""

from __future__ import annotations

_MARK = (
    "INSERT INTO readiness_marks (team_id, revision) "
    "VALUES (NEW.id, NEW.readiness_revision) ON CONFLICT DO NOTHING;"
)

POSTGRESQL_TRIGGER = f"""
CREATE FUNCTION teams_mark_readiness() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_MARK}
    RETURN NULL;
END
$$;
CREATE TRIGGER teams_mark_readiness_insert AFTER INSERT ON teams
FOR EACH ROW EXECUTE FUNCTION teams_mark_readiness();
CREATE TRIGGER teams_mark_readiness_update AFTER UPDATE OF readiness_revision ON teams
FOR EACH ROW WHEN (NEW.readiness_revision IS DISTINCT FROM OLD.readiness_revision)
EXECUTE FUNCTION teams_mark_readiness();
"""
POSTGRESQL_DROP_TRIGGER = (
    "DROP TRIGGER teams_mark_readiness_update ON teams",
    "DROP TRIGGER teams_mark_readiness_insert ON teams",
    "DROP FUNCTION teams_mark_readiness()",
)
SQLITE_TRIGGERS = (
    f"CREATE TRIGGER teams_mark_readiness_insert AFTER INSERT ON teams BEGIN {_MARK} END",
    "CREATE TRIGGER teams_mark_readiness_update AFTER UPDATE OF readiness_revision ON teams "
    f"WHEN NEW.readiness_revision IS NOT OLD.readiness_revision BEGIN {_MARK} END",
)
SQLITE_DROP_TRIGGERS = tuple(
    f"DROP TRIGGER teams_mark_readiness_{kind}" for kind in ("insert", "update")
)
# The marks a migration adds for the teams already there: those without a stored
# row, or whose row is of an older revision.
FILL_MARKS = (
    "INSERT INTO readiness_marks (team_id, revision) "
    "SELECT t.id, t.readiness_revision FROM teams t "
    "LEFT JOIN team_readiness r ON r.team_id = t.id "
    "WHERE r.team_id IS NULL OR r.revision <> t.readiness_revision"
)
