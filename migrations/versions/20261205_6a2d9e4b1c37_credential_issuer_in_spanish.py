"""credential issuer in spanish

Revision ID: 6a2d9e4b1c37
Revises: 3d7a1f9c0b52
Create Date: 2026-12-05 09:45:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '6a2d9e4b1c37'
down_revision = '3d7a1f9c0b52'
branch_labels = None
depends_on = None


# The Spanish of an issuer the tracker words itself ("various", "hardware vendor"):
# empty until the next `tracker init` loads the seed's, the English showing meanwhile.
def upgrade() -> None:
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('issuer_es', sa.String(length=120), server_default='', nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.drop_column('issuer_es')
