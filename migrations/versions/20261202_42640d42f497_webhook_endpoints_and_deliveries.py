"""webhook endpoints and their deliveries, the webhooks' outbox

Revision ID: 42640d42f497
Revises: 8b2f4c6d1e07
Create Date: 2026-12-02 10:00:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = '42640d42f497'
down_revision = '8b2f4c6d1e07'
branch_labels = None
depends_on = None


TO_SEND = sa.text("status IN ('pending', 'sending')")


def upgrade() -> None:
    op.create_table('webhook_endpoints',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('url', sa.String(length=2000), nullable=False),
    sa.Column('events', sa.String(length=500), nullable=False),
    sa.Column('format', sa.String(length=16), server_default='generic', nullable=False),
    sa.Column('secret', sa.String(length=100), nullable=False),
    sa.Column('previous_secret', sa.String(length=100), nullable=True),
    sa.Column('previous_until', sa.DateTime(), nullable=True),
    sa.Column('active', sa.Boolean(), server_default=sa.text('(true)'), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint("format IN ('generic', 'slack', 'teams')", name=op.f('ck_webhook_endpoints_format_known')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_endpoints'))
    )
    op.create_table('webhook_deliveries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('endpoint_id', sa.Integer(), nullable=False),
    sa.Column('event', sa.String(length=40), nullable=False),
    sa.Column('webhook_id', sa.String(length=80), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), server_default='pending', nullable=False),
    sa.Column('attempts', sa.Integer(), server_default='0', nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(), nullable=False),
    sa.Column('claimed_by', sa.String(length=120), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('sent_at', sa.DateTime(), nullable=True),
    sa.CheckConstraint("status IN ('pending', 'sending', 'delivered', 'failed')", name=op.f('ck_webhook_deliveries_status_known')),
    sa.CheckConstraint('attempts >= 0', name=op.f('ck_webhook_deliveries_attempts_not_negative')),
    sa.ForeignKeyConstraint(['endpoint_id'], ['webhook_endpoints.id'], name=op.f('fk_webhook_deliveries_endpoint_id_webhook_endpoints'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_deliveries')),
    sa.UniqueConstraint('webhook_id', name=op.f('uq_webhook_deliveries_webhook_id'))
    )
    with op.batch_alter_table('webhook_deliveries', schema=None) as batch_op:
        # The queue, as the mail's: only the rows still to send, in the order a sender claims them.
        batch_op.create_index('ix_webhook_deliveries_due', ['next_attempt_at', 'id'], unique=False, postgresql_where=TO_SEND, sqlite_where=TO_SEND)
        batch_op.create_index(batch_op.f('ix_webhook_deliveries_endpoint_id'), ['endpoint_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('webhook_deliveries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_deliveries_endpoint_id'))
        batch_op.drop_index('ix_webhook_deliveries_due', postgresql_where=TO_SEND, sqlite_where=TO_SEND)

    op.drop_table('webhook_deliveries')
    op.drop_table('webhook_endpoints')
