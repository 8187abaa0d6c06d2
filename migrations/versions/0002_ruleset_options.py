"""Ruleset options: games.options and distributions.options (JSON); the mayor moves into them.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25

A ruleset's own settings (Wakkerdam: ``mayor``) are no longer columns: a game's options (set by
``narrator game create --option``) and a distribution's (``mayor = true`` in its file) are JSON
objects that the ruleset validates.  Written once and frozen: it does not import the models.
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("options", sa.JSON(), nullable=False, server_default="{}"))
    with op.batch_alter_table("distributions") as batch:
        batch.add_column(sa.Column("options", sa.JSON(), nullable=False, server_default="{}"))
    distributions = sa.table(
        "distributions",
        sa.column("id", sa.Integer()),
        sa.column("mayor", sa.Boolean()),
        sa.column("options", sa.JSON()),
    )
    connection = op.get_bind()
    for row_id, mayor in connection.execute(sa.select(distributions.c.id, distributions.c.mayor)):
        connection.execute(
            distributions.update()
            .where(distributions.c.id == row_id)
            .values(options={"mayor": bool(mayor)})
        )
    with op.batch_alter_table("distributions") as batch:
        batch.drop_column("mayor")
        batch.alter_column("options", server_default=None)
    with op.batch_alter_table("games") as batch:
        batch.alter_column("options", server_default=None)


def downgrade() -> None:
    """Undo this revision (a distribution without a ``mayor`` option gets one, as before)."""
    with op.batch_alter_table("distributions") as batch:
        batch.add_column(sa.Column("mayor", sa.Boolean(), nullable=False, server_default=sa.true()))
    distributions = sa.table(
        "distributions",
        sa.column("id", sa.Integer()),
        sa.column("mayor", sa.Boolean()),
        sa.column("options", sa.JSON()),
    )
    connection = op.get_bind()
    for row_id, options in connection.execute(
        sa.select(distributions.c.id, distributions.c.options)
    ):
        if isinstance(options, str):  # some drivers hand JSON back as text
            options = json.loads(options)
        mayor = bool((options or {}).get("mayor", True))
        connection.execute(
            distributions.update().where(distributions.c.id == row_id).values(mayor=mayor)
        )
    with op.batch_alter_table("distributions") as batch:
        batch.drop_column("options")
        batch.alter_column("mayor", server_default=None)
    with op.batch_alter_table("games") as batch:
        batch.drop_column("options")
