"""allow skipped notifications

Revision ID: 5545477d647a
Revises: 9e454021f545
Create Date: 2026-11-29 15:37:26.993231+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = '5545477d647a'
down_revision = '9e454021f545'
branch_labels = None
depends_on = None


OLD = "status IN ('pending', 'sending', 'sent', 'failed')"
NEW = "status IN ('pending', 'sending', 'sent', 'failed', 'skipped')"


def _replace_status_check(condition: str) -> None:
    with op.batch_alter_table("notifications", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_notifications_status_known"), type_="check")
        batch_op.create_check_constraint(op.f("ck_notifications_status_known"), condition)


def upgrade() -> None:
    _replace_status_check(NEW)


def downgrade() -> None:
    # Rows skipped under the new rule were never sent; they become failed ones.
    op.execute("UPDATE notifications SET status = 'failed' WHERE status = 'skipped'")
    _replace_status_check(OLD)
