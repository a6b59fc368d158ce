"""account event data exported: a person's data downloaded, by themself or an admin

Revision ID: cfabb011a97b
Revises: 89d8f53a0dd9
Create Date: 2026-12-05 15:30:00.000000+00:00
"""

from alembic import op


revision = 'cfabb011a97b'
down_revision = '89d8f53a0dd9'
branch_labels = None
depends_on = None

CHECK = 'ck_account_events_account_event_kind_known'
KINDS = (
    'sign_in', 'sign_in_failed', 'sign_out', 'totp_enrolled', 'totp_reset', 'provisioned',
    'updated', 'deactivated', 'reactivated', 'role_changed', 'level_changed', 'identity_unlinked',
)
NEW = 'data_exported'


def _known(kinds: tuple[str, ...]) -> str:
    return 'kind IN (' + ', '.join(f"'{k}'" for k in kinds) + ')'


def _replace(kinds: tuple[str, ...]) -> None:
    with op.batch_alter_table('account_events', schema=None) as batch_op:
        batch_op.drop_constraint(op.f(CHECK), type_='check')
        batch_op.create_check_constraint(op.f(CHECK), _known(kinds))


def upgrade() -> None:
    _replace((*KINDS, NEW))


def downgrade() -> None:
    # The trail's downloads have no kind to be kept under before this revision.
    op.execute(f"DELETE FROM account_events WHERE kind = '{NEW}'")
    _replace(KINDS)
