"""catalog version

Revision ID: 4df78bb3f179
Revises: 5545477d647a
Create Date: 2026-11-30 09:24:49.926600+00:00
"""

import secrets

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = '4df78bb3f179'
down_revision = '5545477d647a'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # One row whose stamp every catalog write changes (tracker.catalog.services.snapshot
    # keeps a copy of the catalog per process and compares stamps per request).
    table = op.create_table('catalog_version',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('stamp', sa.String(length=32), nullable=False),
    sa.CheckConstraint('id = 1', name=op.f('ck_catalog_version_single_row')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_catalog_version'))
    )
    op.bulk_insert(table, [{"id": 1, "stamp": secrets.token_hex(16)}])


def downgrade() -> None:
    op.drop_table('catalog_version')
