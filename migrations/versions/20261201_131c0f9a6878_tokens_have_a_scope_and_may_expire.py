"""tokens have a scope and may expire

Revision ID: 131c0f9a6878
Revises: e10975461174
Create Date: 2026-12-01 09:34:27.282795+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = '131c0f9a6878'
down_revision = 'e10975461174'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The tokens issued so far keep doing what they did: write, and never expire.
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.add_column(sa.Column('scope', sa.String(length=5), server_default='write', nullable=False))
        batch_op.add_column(sa.Column('expires_on', sa.Date(), nullable=True))
        batch_op.create_check_constraint(op.f('ck_api_tokens_scope_known'), "scope IN ('read', 'write')")


def downgrade() -> None:
    # Without scopes every token could write again: read and expiring tokens are revoked.
    op.execute(
        "UPDATE api_tokens SET revoked_at = CURRENT_TIMESTAMP"
        " WHERE revoked_at IS NULL AND (scope <> 'write' OR expires_on IS NOT NULL)"
    )
    with op.batch_alter_table('api_tokens', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_api_tokens_scope_known'), type_='check')
        batch_op.drop_column('expires_on')
        batch_op.drop_column('scope')
