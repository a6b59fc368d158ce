"""weekly digest opt out: a person's choice, the digest's unsubscribe link, its trail

Revision ID: 89d8f53a0dd9
Revises: 6376d150a2eb
Create Date: 2026-12-05 15:00:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '89d8f53a0dd9'
down_revision = '6376d150a2eb'
branch_labels = None
depends_on = None

CHECK = 'ck_account_events_account_event_method_known'
METHODS = ('password', 'totp', 'recovery', 'oidc', 'scim', 'web', 'api', 'cli', 'import')
NEW = 'unsubscribe'


def _known(methods: tuple[str, ...]) -> str:
    return 'method IS NULL OR method IN (' + ', '.join(f"'{m}'" for m in methods) + ')'


def _methods(methods: tuple[str, ...]) -> None:
    with op.batch_alter_table('account_events', schema=None) as batch_op:
        batch_op.drop_constraint(op.f(CHECK), type_='check')
        batch_op.create_check_constraint(op.f(CHECK), _known(methods))


# Everyone keeps getting the digest until they turn it off.
def upgrade() -> None:
    with op.batch_alter_table('engineers', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('weekly_digest', sa.Boolean(), server_default='1', nullable=False)
        )
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.add_column(sa.Column('unsubscribe_url', sa.Text(), nullable=True))
    _methods((*METHODS, NEW))


def downgrade() -> None:
    # The trail's changes made through an unsubscribe link have no method to be kept
    # under before this revision: they stay, their method forgotten.
    op.execute(f"UPDATE account_events SET method = NULL WHERE method = '{NEW}'")
    _methods(METHODS)
    with op.batch_alter_table('notifications', schema=None) as batch_op:
        batch_op.drop_column('unsubscribe_url')
    with op.batch_alter_table('engineers', schema=None) as batch_op:
        batch_op.drop_column('weekly_digest')
