"""The inbox's source ``web``: a vote sent with the form of a player's page.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27

Before, a form vote was stored as an ``inject``ed mail; now it has a source of its own, so an
operator tells the page's votes from the mails piped in by an MTA.  The column's check
constraint (``ck_inbox_source``) is widened (and narrowed back on downgrade, where the form's
votes become ``inject`` again, as they were stored before).  Written once and frozen: it does
not import the models.
"""

from __future__ import annotations

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None

BEFORE = "source IN ('smtp', 'imap', 'inject')"
AFTER = "source IN ('smtp', 'imap', 'inject', 'web')"


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("inbox") as batch:
        batch.drop_constraint(op.f("ck_inbox_source"), type_="check")
        batch.create_check_constraint(op.f("ck_inbox_source"), AFTER)


def downgrade() -> None:
    """Undo this revision."""
    op.execute("UPDATE inbox SET source = 'inject' WHERE source = 'web'")
    with op.batch_alter_table("inbox") as batch:
        batch.drop_constraint(op.f("ck_inbox_source"), type_="check")
        batch.create_check_constraint(op.f("ck_inbox_source"), BEFORE)
