"""The database's own rules on hours: hour_days' check and the triggers keeping it."""

from __future__ import annotations

from sqlalchemy import TextClause, text

from tracker.progress.rules import STORED_HOURS_PER_DAY

# The names are the database's: they stay when the limit changes.
DAY_CHECK_NAME = "at_most_24_hours"
# hour_days' check, as the naming convention of tracker.db names it in the database.
DAY_CHECK = f"ck_hour_days_{DAY_CHECK_NAME}"
DAY_CHECK_SQL = f"hours >= 0 AND hours <= {STORED_HOURS_PER_DAY}"
ENTRY_CHECK_NAME = "hours_0_to_24"
ENTRY_CHECK_SQL = f"hours > 0 AND hours <= {STORED_HOURS_PER_DAY}"

# SQLite drops a table's triggers with the table: a batch migration that
# recreates hour_logs must create SQLITE_TRIGGERS again.
#
# The day's row is updated before the new total is checked: an entry moved or
# changed is taken off its old day first, so a day never counts it twice.
POSTGRESQL_TRIGGER = """
CREATE FUNCTION hour_logs_keep_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE hour_days SET hours = hours - OLD.hours
        WHERE engineer_id = OLD.engineer_id AND logged_on = OLD.logged_on;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO hour_days (engineer_id, logged_on, hours)
        VALUES (NEW.engineer_id, NEW.logged_on, NEW.hours)
        ON CONFLICT (engineer_id, logged_on)
        DO UPDATE SET hours = hour_days.hours + EXCLUDED.hours;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER hour_logs_keep_days
AFTER INSERT OR DELETE OR UPDATE OF engineer_id, logged_on, hours ON hour_logs
FOR EACH ROW EXECUTE FUNCTION hour_logs_keep_days();
"""
POSTGRESQL_DROP_TRIGGER = (
    "DROP TRIGGER hour_logs_keep_days ON hour_logs",
    "DROP FUNCTION hour_logs_keep_days()",
)
_SQLITE_ADD = """
    INSERT INTO hour_days (engineer_id, logged_on, hours)
    VALUES (NEW.engineer_id, NEW.logged_on, NEW.hours)
    ON CONFLICT (engineer_id, logged_on) DO UPDATE SET hours = hours + excluded.hours;
"""
_SQLITE_TAKE = """
    UPDATE hour_days SET hours = hours - OLD.hours
    WHERE engineer_id = OLD.engineer_id AND logged_on = OLD.logged_on;
"""
SQLITE_TRIGGERS = (
    f"CREATE TRIGGER hour_logs_keep_days_insert AFTER INSERT ON hour_logs BEGIN {_SQLITE_ADD} END",
    f"CREATE TRIGGER hour_logs_keep_days_delete AFTER DELETE ON hour_logs BEGIN {_SQLITE_TAKE} END",
    "CREATE TRIGGER hour_logs_keep_days_update "
    "AFTER UPDATE OF engineer_id, logged_on, hours ON hour_logs "
    f"BEGIN {_SQLITE_TAKE} {_SQLITE_ADD} END",
)
SQLITE_DROP_TRIGGERS = tuple(
    f"DROP TRIGGER hour_logs_keep_days_{kind}" for kind in ("insert", "delete", "update")
)
# A bulk load of entries planned within the day's limit (tracker demo's generator) turns
# the row trigger off while it copies them in, with their days' totals beside them: the
# trigger, firing per row, took most of the load's time (ten million entries at 100,000
# engineers). The table's lock, held to the load's commit, keeps out every other writer.
POSTGRESQL_TRIGGER_NAME = "hour_logs_keep_days"
# Fills hour_days from the entries already logged.
FILL_HOUR_DAYS = (
    "INSERT INTO hour_days (engineer_id, logged_on, hours) "
    "SELECT engineer_id, logged_on, sum(hours) FROM hour_logs GROUP BY engineer_id, logged_on"
)

# A certification's place in the lists by expiry (GET /api/v1/certifications): its
# expiry, those that never expire last, as the latest date. The expression of an index
# on PostgreSQL, which the list's order reads a page at a time off (SQLite, which
# cannot reflect such an index, sorts).
NEVER_EXPIRES_SORTS_AS = "9999-12-31"
EXPIRY_ORDER_INDEX = "ix_certifications_expiry_order"
EXPIRY_ORDER_SQL: TextClause = text(f"coalesce(expires_on, '{NEVER_EXPIRES_SORTS_AS}')")
