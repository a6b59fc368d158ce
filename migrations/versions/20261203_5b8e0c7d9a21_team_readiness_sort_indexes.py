"""team readiness sort indexes: the organisation table's first page read off an index

Revision ID: 5b8e0c7d9a21
Revises: 14dac304ec02
Create Date: 2026-12-03 11:00:00.000000+00:00
"""

from alembic import op

from tracker.readiness.models import SORT_INDEXES

revision = '5b8e0c7d9a21'
down_revision = '14dac304ec02'
branch_labels = None
depends_on = None


def upgrade() -> None:
    for name, columns in SORT_INDEXES.items():
        op.create_index(f'ix_team_readiness_{name}', 'team_readiness', list(columns))


def downgrade() -> None:
    for name in SORT_INDEXES:
        op.drop_index(f'ix_team_readiness_{name}', table_name='team_readiness')
