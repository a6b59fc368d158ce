"""certifications expiry order index: the lists by expiry read a page off it (PostgreSQL)

Revision ID: c4e1a9d2b7f3
Revises: e63fecb66a85
Create Date: 2026-12-01 17:55:00.000000+00:00
"""

from alembic import op

from tracker.progress.ddl import EXPIRY_ORDER_INDEX, EXPIRY_ORDER_SQL

revision = 'c4e1a9d2b7f3'
down_revision = 'e63fecb66a85'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # SQLite cannot reflect an index on an expression: there the list sorts.
    if op.get_bind().dialect.name == 'postgresql':
        op.create_index(EXPIRY_ORDER_INDEX, 'certifications', [EXPIRY_ORDER_SQL, 'id'])


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.drop_index(EXPIRY_ORDER_INDEX, table_name='certifications')
