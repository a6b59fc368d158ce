"""engineer erased at: when a departed person's personal data was erased, and its event

Revision ID: f4a7c2e9b130
Revises: ee3e9c48cd31
Create Date: 2026-12-05 18:30:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa


revision = "f4a7c2e9b130"
down_revision = "ee3e9c48cd31"
branch_labels = None
depends_on = None

CHECK = "ck_account_events_account_event_kind_known"
KINDS = (
    "sign_in",
    "sign_in_failed",
    "sign_out",
    "totp_enrolled",
    "totp_reset",
    "provisioned",
    "updated",
    "deactivated",
    "reactivated",
    "role_changed",
    "level_changed",
    "identity_unlinked",
    "data_exported",
)
NEW = "erased"


def _known(kinds: tuple[str, ...]) -> str:
    return "kind IN (" + ", ".join(f"'{k}'" for k in kinds) + ")"


def _replace(kinds: tuple[str, ...]) -> None:
    with op.batch_alter_table("account_events", schema=None) as batch_op:
        batch_op.drop_constraint(op.f(CHECK), type_="check")
        batch_op.create_check_constraint(op.f(CHECK), _known(kinds))


def upgrade() -> None:
    with op.batch_alter_table("engineers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("erased_at", sa.DateTime(), nullable=True))
    _replace((*KINDS, NEW))


def downgrade() -> None:
    # An erasure has no kind to be kept under before this revision; the data stays erased.
    op.execute(f"DELETE FROM account_events WHERE kind = '{NEW}'")
    _replace(KINDS)
    with op.batch_alter_table("engineers", schema=None) as batch_op:
        batch_op.drop_column("erased_at")
