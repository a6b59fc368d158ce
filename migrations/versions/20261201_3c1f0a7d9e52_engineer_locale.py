"""engineer locale

Revision ID: 3c1f0a7d9e52
Revises: 131c0f9a6878
Create Date: 2026-12-01 09:40:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = '3c1f0a7d9e52'
down_revision = '131c0f9a6878'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Everyone starts on the browser's choice (''): the interface they had, for
    # an English browser, until they pick a language on their profile.
    with op.batch_alter_table('engineers', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('locale', sa.String(length=8), server_default='', nullable=False)
        )
        batch_op.create_check_constraint(
            op.f('ck_engineers_locale_known'), "locale IN ('', 'en', 'es')"
        )


def downgrade() -> None:
    with op.batch_alter_table('engineers', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_engineers_locale_known'), type_='check')
        batch_op.drop_column('locale')
