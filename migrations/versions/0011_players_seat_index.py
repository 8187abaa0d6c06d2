"""players_seat_index: an index on players (game_id, seat), the order a game's players are read in.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28

Every unit of work that touches a game reads its players in seat order (a pass of votes reads
those of all its games by one select, ordered by game, seat and id): without an index in that
order the database sorted them each time.  SQLite's index entries end with the row id, so the
index gives the whole order; PostgreSQL's serves the game and seat.  The downgrade drops it.
Written once and frozen: it does not import the models.
"""

from __future__ import annotations

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_index(op.f("ix_players_game_id_seat"), "players", ["game_id", "seat"], unique=False)


def downgrade() -> None:
    """Undo this revision."""
    op.drop_index(op.f("ix_players_game_id_seat"), table_name="players")
