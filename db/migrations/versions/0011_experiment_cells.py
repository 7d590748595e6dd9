"""explicit cells of an experiment; the preset it reproduces

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24

`experiments.cells`: a list of explicit cells (a label and dotted settings each) that an
experiment runs besides, or instead of, the product of its grid: a paper's comparison
set, where each method has its own learning rates. Existing experiments have none.
`experiments.preset`: the paper preset an experiment reproduces (`POST
/api/presets/{name}/reproduce`), whose report it then has; NULL for the others.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "experiments",
        sa.Column("cells", sa.JSON(), nullable=False, server_default=sa.text("'[]'")),
    )
    op.add_column("experiments", sa.Column("preset", sa.String(100), nullable=True))


def downgrade() -> None:
    op.drop_column("experiments", "preset")
    op.drop_column("experiments", "cells")
