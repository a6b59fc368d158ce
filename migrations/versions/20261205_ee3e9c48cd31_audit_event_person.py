"""audit event person: whom each audit event is about, indexed, and who made it, indexed

Revision ID: ee3e9c48cd31
Revises: cfabb011a97b
Create Date: 2026-12-05 17:30:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa

from tracker.audit.ddl import FILL_ENGINEER_IDS


revision = 'ee3e9c48cd31'
down_revision = 'cfabb011a97b'
branch_labels = None
depends_on = None


# A person's data export finds their events by these two columns, not in every
# event's snapshots; the events already written are given their person here.
def upgrade() -> None:
    with op.batch_alter_table('audit_events', schema=None) as batch_op:
        batch_op.add_column(sa.Column('engineer_id', sa.Integer(), nullable=True))
    op.execute(FILL_ENGINEER_IDS[op.get_bind().dialect.name])
    with op.batch_alter_table('audit_events', schema=None) as batch_op:
        batch_op.create_index('ix_audit_events_engineer', ['engineer_id'], unique=False)
        batch_op.create_index('ix_audit_events_actor', ['actor_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('audit_events', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_events_actor')
        batch_op.drop_index('ix_audit_events_engineer')
        batch_op.drop_column('engineer_id')
