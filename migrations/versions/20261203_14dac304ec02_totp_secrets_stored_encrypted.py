"""totp secrets stored encrypted: the column holds a Fernet token

Revision ID: 14dac304ec02
Revises: c4e1a9d2b7f3
Create Date: 2026-12-03 10:00:00.000000+00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '14dac304ec02'
down_revision = 'c4e1a9d2b7f3'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Only wider: a migration does not know the secret key, so the plain secrets
    # stay as they are until their next sign-in or `tracker user encrypt-totp`.
    with op.batch_alter_table('engineers', schema=None) as batch_op:
        batch_op.alter_column(
            'totp_secret',
            existing_type=sa.String(length=32),
            type_=sa.String(length=160),
            existing_nullable=True,
        )


def downgrade() -> None:
    # An encrypted secret does not fit back, and a migration cannot decrypt it (it
    # does not know the secret key): refuse rather than make those people set up
    # their app again.
    encrypted = op.get_bind().execute(
        sa.text("SELECT count(*) FROM engineers WHERE length(totp_secret) > 32")
    ).scalar_one()
    if encrypted:
        raise RuntimeError(
            f"{encrypted} two-step sign-in secret(s) are stored encrypted, which this"
            " downgrade cannot keep: stop the servers and run `tracker user decrypt-totp`"
            " with the deployment's TRACKER_SECRET_KEY first"
        )
    with op.batch_alter_table('engineers', schema=None) as batch_op:
        batch_op.alter_column(
            'totp_secret',
            existing_type=sa.String(length=160),
            type_=sa.String(length=32),
            existing_nullable=True,
        )
