"""hour days: each engineer's total per day, kept by triggers, at most 24 hours

Revision ID: 75820e850122
Revises: 68a6a0f09c34
Create Date: 2026-11-30 12:12:23.499299+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = "75820e850122"
down_revision = "68a6a0f09c34"
branch_labels = None
depends_on = None

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


def upgrade() -> None:
    op.create_table(
        "hour_days",
        sa.Column("engineer_id", sa.Integer(), nullable=False),
        sa.Column("logged_on", sa.Date(), nullable=False),
        sa.Column("hours", tracker.db.Fixed(), nullable=False),
        sa.CheckConstraint(
            "hours >= 0 AND hours <= 2400", name=op.f("ck_hour_days_at_most_24_hours")
        ),
        sa.ForeignKeyConstraint(
            ["engineer_id"],
            ["engineers.id"],
            name=op.f("fk_hour_days_engineer_id_engineers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("engineer_id", "logged_on", name=op.f("pk_hour_days")),
    )
    op.execute(
        "INSERT INTO hour_days (engineer_id, logged_on, hours) "
        "SELECT engineer_id, logged_on, sum(hours) FROM hour_logs GROUP BY engineer_id, logged_on"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRESQL_TRIGGER)
    else:
        for trigger in SQLITE_TRIGGERS:
            op.execute(trigger)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER hour_logs_keep_days ON hour_logs")
        op.execute("DROP FUNCTION hour_logs_keep_days()")
    else:
        for kind in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER hour_logs_keep_days_{kind}")
    op.drop_table("hour_days")
