"""The admin panel: admins' password hashes and the log of admin actions (who did what).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27

``admin_passwords`` holds one argon2 hash per admin address (``narrator admin password``);
``admin_actions`` one row per action on a game, from the CLI or the panel.  Written once and
frozen: it does not import the models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "admin_passwords",
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("hash", sa.String(255), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("email", name="pk_admin_passwords"),
    )
    op.create_table(
        "admin_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("by", sa.String(320), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name="fk_admin_actions_game_id_games",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_admin_actions"),
    )
    op.create_index("ix_admin_actions_game_id_id", "admin_actions", ["game_id", "id"])


def downgrade() -> None:
    """Undo this revision."""
    op.drop_index("ix_admin_actions_game_id_id", table_name="admin_actions")
    op.drop_table("admin_actions")
    op.drop_table("admin_passwords")
