"""hour days: each engineer's total per day, kept by triggers, at most 24 hours

Revision ID: 75820e850122
Revises: 68a6a0f09c34
Create Date: 2026-11-30 12:12:23.499299+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db
from tracker.progress.ddl import (
    DAY_CHECK,
    DAY_CHECK_SQL,
    FILL_HOUR_DAYS,
    POSTGRESQL_DROP_TRIGGER,
    POSTGRESQL_TRIGGER,
    SQLITE_DROP_TRIGGERS,
    SQLITE_TRIGGERS,
)


revision = "75820e850122"
down_revision = "68a6a0f09c34"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hour_days",
        sa.Column("engineer_id", sa.Integer(), nullable=False),
        sa.Column("logged_on", sa.Date(), nullable=False),
        sa.Column("hours", tracker.db.Fixed(), nullable=False),
        sa.CheckConstraint(DAY_CHECK_SQL, name=op.f(DAY_CHECK)),
        sa.ForeignKeyConstraint(
            ["engineer_id"],
            ["engineers.id"],
            name=op.f("fk_hour_days_engineer_id_engineers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("engineer_id", "logged_on", name=op.f("pk_hour_days")),
    )
    op.execute(FILL_HOUR_DAYS)
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRESQL_TRIGGER)
    else:
        for trigger in SQLITE_TRIGGERS:
            op.execute(trigger)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in POSTGRESQL_DROP_TRIGGER:
            op.execute(statement)
    else:
        for statement in SQLITE_DROP_TRIGGERS:
            op.execute(statement)
    op.drop_table("hour_days")
