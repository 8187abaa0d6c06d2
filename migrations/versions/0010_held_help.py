"""held_help: a player's Help mails held as a flood, for the closing digest of their hour.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27

The admins heard only of the first Help mail held in an hour; the others now wait here until
the hour is over, when one closing digest lists them (narrator.service.help).  The downgrade
drops the table with whatever digests were still to come.  Written once and frozen: it does not
import the models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "held_help",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_held_help")),
    )
    op.create_index(
        op.f("ix_held_help_window_start_sender"),
        "held_help",
        ["window_start", "sender"],
        unique=False,
    )


def downgrade() -> None:
    """Undo this revision."""
    op.drop_index(op.f("ix_held_help_window_start_sender"), table_name="held_help")
    op.drop_table("held_help")
