"""Revocable personal links: players.page_generation, signed into each player's page token.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27

``narrator game revoke-link`` raises it by one, so every link signed with the old value stops
opening the page.  Existing players get 0.  Written once and frozen: it does not import the
models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("page_generation", sa.Integer(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("players") as batch:
        batch.alter_column("page_generation", server_default=None)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("players") as batch:
        batch.drop_column("page_generation")
