"""notices in their readers' language

Revision ID: 8b2f4c6d1e07
Revises: 3c1f0a7d9e52
Create Date: 2026-12-02 09:00:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = '8b2f4c6d1e07'
down_revision = '3c1f0a7d9e52'
branch_labels = None
depends_on = None


OLD_KINDS = "kind IN ('reminder', 'expired', 'escalation', 'digest')"
NEW_KINDS = "kind IN ('reminder', 'expired', 'escalation', 'digest', 'copy')"


def _replace_kind_check(batch_op, condition: str) -> None:
    batch_op.drop_constraint(op.f('ck_notifications_kind_known'), type_='check')
    batch_op.create_check_constraint(op.f('ck_notifications_kind_known'), condition)


def upgrade() -> None:
    # Every notice queued so far was written in English.
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('locale', sa.String(length=8), server_default='en', nullable=False)
        )
        batch_op.create_check_constraint(
            op.f('ck_notifications_locale_known'), "locale IN ('en', 'es')"
        )
        _replace_kind_check(batch_op, NEW_KINDS)


def downgrade() -> None:
    # The copies in other languages go; their recipients had no copy before.
    op.execute("DELETE FROM notifications WHERE kind = 'copy'")
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        _replace_kind_check(batch_op, OLD_KINDS)
        batch_op.drop_constraint(op.f('ck_notifications_locale_known'), type_='check')
        batch_op.drop_column('locale')
