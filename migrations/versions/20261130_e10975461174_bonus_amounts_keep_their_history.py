"""bonus amounts keep their history

Revision ID: e10975461174
Revises: eedbb879b520
Create Date: 2026-11-30 14:41:16.915456+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = 'e10975461174'
down_revision = 'eedbb879b520'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A credential's bonuses become its history, each effective from a date; the
    # amounts set so far apply from the start, so no ledger changes.
    with op.batch_alter_table('certification_bonuses', schema=None) as batch_op:
        batch_op.add_column(sa.Column('effective_on', sa.Date(), server_default='1970-01-01', nullable=False))
        batch_op.add_column(sa.Column('set_at', sa.DateTime(), nullable=True))
        batch_op.drop_constraint(batch_op.f('uq_certification_bonuses_credential_id'), type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_certification_bonuses_credential_id_effective_on'), ['credential_id', 'effective_on'])



def downgrade() -> None:
    # One bonus per credential again: the latest of each history stays.
    op.execute(
        "DELETE FROM certification_bonuses WHERE EXISTS (SELECT 1 FROM certification_bonuses AS later"
        " WHERE later.credential_id = certification_bonuses.credential_id"
        " AND later.effective_on > certification_bonuses.effective_on)"
    )
    with op.batch_alter_table('certification_bonuses', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_certification_bonuses_credential_id_effective_on'), type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_certification_bonuses_credential_id'), ['credential_id'])
        batch_op.drop_column('set_at')
        batch_op.drop_column('effective_on')
