"""drop the hour logs day index: hour_days answers a day's total

Revision ID: 6ee06ba1c28f
Revises: 75820e850122
Create Date: 2026-11-30 12:35:56.901818+00:00
"""

from alembic import op


revision = '6ee06ba1c28f'
down_revision = '75820e850122'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Not in batch mode: a batch that recreated hour_logs on SQLite would drop
    # the triggers that keep hour_days.
    op.drop_index('ix_hour_logs_engineer_day', table_name='hour_logs')


def downgrade() -> None:
    op.create_index('ix_hour_logs_engineer_day', 'hour_logs', ['engineer_id', 'logged_on'])
