"""Prompt wake-ups: the ``changes`` counter admin commands raise, the outbox's lease owner.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25

Written once and frozen: it does not import the models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    changes = op.create_table(
        "changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("counter", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_changes")),
    )
    op.bulk_insert(changes, [{"id": 1, "counter": 0}])
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("claimed_by", sa.BigInteger(), nullable=True))
        batch.create_index(op.f("ix_outbox_claimed_by"), ["claimed_by"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index(op.f("ix_outbox_claimed_by"))
        batch.drop_column("claimed_by")
    op.drop_table("changes")
