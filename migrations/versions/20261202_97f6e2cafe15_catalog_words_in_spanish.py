"""catalog words in spanish

Revision ID: 97f6e2cafe15
Revises: 42640d42f497
Create Date: 2026-12-02 10:35:40.600160+00:00
"""

from alembic import op
import sqlalchemy as sa
import tracker.db


revision = '97f6e2cafe15'
down_revision = '42640d42f497'
branch_labels = None
depends_on = None


# The Spanish of the catalog's own words, beside the English: empty until the next
# `tracker init` loads the seed's (or an admin gives one), the English showing meanwhile.
SPANISH = {
    'courses': [('title_es', sa.String(length=200))],
    'credentials': [('name_es', sa.String(length=200)), ('description_es', sa.Text())],
    'job_roles': [('name_es', sa.String(length=80))],
    'learning_paths': [('name_es', sa.String(length=200))],
    'levels': [
        ('name_es', sa.String(length=80)),
        ('experience_label_es', sa.String(length=80)),
        ('summary_es', sa.Text()),
    ],
    'roi_lines': [('label_es', sa.String(length=200))],
    'specialities': [('name_es', sa.String(length=120)), ('ramp_up_months_es', sa.String(length=40))],
    'team_templates': [('name_es', sa.String(length=120))],
    'template_slots': [('title_es', sa.String(length=120))],
    'training_strategies': [('name_es', sa.String(length=120)), ('description_es', sa.Text())],
}


def upgrade() -> None:
    for table, columns in SPANISH.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name, type_ in columns:
                batch_op.add_column(sa.Column(name, type_, server_default='', nullable=False))


def downgrade() -> None:
    for table, columns in reversed(SPANISH.items()):
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name, _ in reversed(columns):
                batch_op.drop_column(name)
