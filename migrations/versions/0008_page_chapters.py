"""The village's stories stored as told (page_chapters) and games.chapters_stored.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27

The public game page read the game log and rendered every step's story again on each request;
the post office now stores each story the whole village is told, as it rendered it, and the
page reads those rows.  A game started before this revision has none for its earlier steps:
``chapters_stored`` is false for it (existing games get false), and its page replays the log
as before.  Written once and frozen: it does not import the models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "page_chapters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("moment", sa.String(length=255), nullable=False),
        sa.Column("story", sa.Text(), nullable=False),
        sa.Column("tallies", sa.JSON(), nullable=False),
        sa.Column("told_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_page_chapters_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_page_chapters")),
    )
    op.create_index(
        op.f("ix_page_chapters_game_id_id"), "page_chapters", ["game_id", "id"], unique=False
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("chapters_stored", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("games") as batch:
        batch.alter_column("chapters_stored", server_default=None)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("chapters_stored")
    op.drop_index(op.f("ix_page_chapters_game_id_id"), table_name="page_chapters")
    op.drop_table("page_chapters")
