"""the outbox queue index holds only rows to send

Revision ID: eedbb879b520
Revises: 6ee06ba1c28f
Create Date: 2026-11-30 12:49:49.848710+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = 'eedbb879b520'
down_revision = '6ee06ba1c28f'
branch_labels = None
depends_on = None


TO_SEND = sa.text("status IN ('pending', 'sending')")


def upgrade() -> None:
    # Only the rows still to send, in the order a sender claims them: a claim
    # reads its batch off the front of the index (and sent rows leave it).
    op.drop_index('ix_notifications_due', table_name='notifications')
    op.create_index(
        'ix_notifications_due',
        'notifications',
        ['next_attempt_at', 'id'],
        postgresql_where=TO_SEND,
        sqlite_where=TO_SEND,
    )


def downgrade() -> None:
    op.drop_index('ix_notifications_due', table_name='notifications')
    op.create_index('ix_notifications_due', 'notifications', ['status', 'next_attempt_at'])
