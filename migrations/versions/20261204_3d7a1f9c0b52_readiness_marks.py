"""readiness marks: the teams whose revision is not stored yet, kept by the database

Revision ID: 3d7a1f9c0b52
Revises: 8c3f2a6d4e10
Create Date: 2026-12-04 10:00:00.000000+00:00
"""

import sqlalchemy as sa
from alembic import op

from tracker.readiness.ddl import (
    FILL_MARKS,
    POSTGRESQL_DROP_TRIGGER,
    POSTGRESQL_TRIGGER,
    SQLITE_DROP_TRIGGERS,
    SQLITE_TRIGGERS,
)
from tracker.readiness.models import STAMP_INDEX

revision = "3d7a1f9c0b52"
down_revision = "8c3f2a6d4e10"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "readiness_marks",
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["team_id"],
            ["teams.id"],
            name=op.f("fk_readiness_marks_team_id_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("team_id", "revision", name=op.f("pk_readiness_marks")),
    )
    op.create_index(STAMP_INDEX, "team_readiness", ["computed_on", "catalog_stamp"])
    op.execute(FILL_MARKS)
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRESQL_TRIGGER)
    else:
        for trigger in SQLITE_TRIGGERS:
            op.execute(trigger)


def downgrade() -> None:
    drops = (
        POSTGRESQL_DROP_TRIGGER
        if op.get_bind().dialect.name == "postgresql"
        else SQLITE_DROP_TRIGGERS
    )
    for statement in drops:
        op.execute(statement)
    op.drop_index(STAMP_INDEX, table_name="team_readiness")
    op.drop_table("readiness_marks")
