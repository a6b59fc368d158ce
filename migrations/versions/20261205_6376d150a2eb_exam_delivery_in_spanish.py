"""exam delivery in spanish

Revision ID: 6376d150a2eb
Revises: 6a2d9e4b1c37
Create Date: 2026-12-05 10:30:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '6376d150a2eb'
down_revision = '6a2d9e4b1c37'
branch_labels = None
depends_on = None


# The Spanish of how an exam is taken ("online, remotely proctored"): empty until
# the next `tracker init` loads the seed's, the English showing meanwhile.
def upgrade() -> None:
    with op.batch_alter_table('exams', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('delivery_es', sa.String(length=120), server_default='', nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table('exams', schema=None) as batch_op:
        batch_op.drop_column('delivery_es')
