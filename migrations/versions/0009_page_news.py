"""The players' private stories and the epilogue stored as told; games.news_stored.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27

A player's own page and an ended game's page told his private news and the epilogue again
from the game log on every request; the post office now stores them too, in page_chapters:
``player_id`` names the player a private story was told to (null: the whole village) and
``kind`` is ``story`` or ``epilogue``.  Games that existed before this revision have none of
them: ``news_stored`` is false for them, and the daemon builds what is missing once, at its
start (narrator.service.pages), not this migration: telling a story needs the rules, the story
packs and the stories table of the running narrator, which a frozen revision must not import.
The downgrade deletes the rows the earlier schema has no place for (private stories and
epilogues; the village's stay).  Written once and frozen: it does not import the models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("page_chapters") as batch:
        batch.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("kind", sa.String(length=16), nullable=False, server_default="story")
        )
        batch.create_foreign_key(
            op.f("fk_page_chapters_player_id_players"),
            "players",
            ["player_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch.create_index(op.f("ix_page_chapters_player_id_id"), ["player_id", "id"], unique=False)
    with op.batch_alter_table("page_chapters") as batch:
        batch.alter_column("kind", server_default=None)
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("news_stored", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("games") as batch:
        batch.alter_column("news_stored", server_default=None)


def downgrade() -> None:
    """Undo this revision."""
    chapters = sa.table(
        "page_chapters", sa.column("player_id", sa.Integer()), sa.column("kind", sa.String())
    )
    op.execute(
        sa.delete(chapters).where(
            sa.or_(chapters.c.player_id.is_not(None), chapters.c.kind != "story")
        )
    )
    with op.batch_alter_table("games") as batch:
        batch.drop_column("news_stored")
    with op.batch_alter_table("page_chapters") as batch:
        batch.drop_index(op.f("ix_page_chapters_player_id_id"))
        batch.drop_constraint(op.f("fk_page_chapters_player_id_players"), type_="foreignkey")
        batch.drop_column("kind")
        batch.drop_column("player_id")
