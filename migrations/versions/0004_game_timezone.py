"""Game time zones: games.timezone, the IANA zone a game's deadlines are written in.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25

Deadlines stay stored in UTC; the zone only says how the mails write them.  Existing games
get "UTC", which is what their mails said (without naming it) before.  Written once and
frozen: it does not import the models.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("timezone", sa.String(64), nullable=False, server_default="UTC"))
    with op.batch_alter_table("games") as batch:
        batch.alter_column("timezone", server_default=None)


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("timezone")
