"""Initial schema: games, players, steps, votes, game log, inbox, outbox, admins, stories, more.

Revision ID: 0001
Revises:
Create Date: 2026-11-22

Written once and frozen: it does not import the models, so later model changes need a new revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "admins",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_admins")),
        sa.UniqueConstraint("email", name=op.f("uq_admins_email")),
    )
    op.create_table(
        "distributions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("roles", sa.JSON(), nullable=False),
        sa.Column("mayor", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("players >= 1", name=op.f("ck_distributions_players_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_distributions")),
        sa.UniqueConstraint("ruleset", "key", name=op.f("uq_distributions_ruleset_key")),
    )
    op.create_index(op.f("ix_distributions_players"), "distributions", ["players"], unique=False)
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("theme", sa.String(length=64), nullable=False),
        sa.Column("speed", sa.Integer(), nullable=False),
        sa.Column("strictness", sa.Integer(), nullable=False),
        sa.Column("close_early", sa.Boolean(), nullable=False),
        sa.Column("reveal_roles", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("distribution_id", sa.String(length=64), nullable=True),
        sa.Column("state", sa.JSON(), nullable=True),
        sa.Column("step", sa.String(length=32), nullable=True),
        sa.Column("step_number", sa.Integer(), nullable=False),
        sa.Column("night", sa.Integer(), nullable=False),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reminded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('signup', 'running', 'paused', 'ended')", name=op.f("ck_games_status")
        ),
        sa.CheckConstraint("speed > 0", name=op.f("ck_games_speed_positive")),
        sa.CheckConstraint("strictness >= 1", name=op.f("ck_games_strictness_positive")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
        sa.UniqueConstraint("name_key", name=op.f("uq_games_name_key")),
    )
    op.create_index(op.f("ix_games_deadline"), "games", ["deadline"], unique=False)
    op.create_index(op.f("ix_games_status"), "games", ["status"], unique=False)
    op.create_table(
        "imap_sync",
        sa.Column("mailbox", sa.String(length=255), nullable=False),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=False),
        sa.Column("last_uid", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("mailbox", name=op.f("pk_imap_sync")),
    )
    op.create_table(
        "inbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=True),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("envelope_from", sa.String(length=320), nullable=True),
        sa.Column("mailbox", sa.String(length=255), nullable=True),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=True),
        sa.Column("uid", sa.BigInteger(), nullable=True),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("source IN ('smtp', 'imap', 'inject')", name=op.f("ck_inbox_source")),
        sa.CheckConstraint(
            "state IN ('new', 'done', 'failed', 'ignored')", name=op.f("ck_inbox_state")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbox")),
        sa.UniqueConstraint(
            "mailbox", "uidvalidity", "uid", name=op.f("uq_inbox_mailbox_uidvalidity_uid")
        ),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbox_message_id")),
    )
    op.create_index(op.f("ix_inbox_state"), "inbox", ["state"], unique=False)
    op.create_table(
        "reply_counters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sender", sa.String(length=320), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reply_counters")),
        sa.UniqueConstraint(
            "sender", "window_start", name=op.f("uq_reply_counters_sender_window_start")
        ),
    )
    op.create_table(
        "stories",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("theme", sa.String(length=64), nullable=False),
        sa.Column("event", sa.String(length=64), nullable=False),
        sa.Column("variant", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stories")),
        sa.UniqueConstraint(
            "ruleset",
            "language",
            "theme",
            "event",
            "variant",
            name=op.f("uq_stories_ruleset_language_theme_event_variant"),
        ),
    )
    op.create_table(
        "game_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_log_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_log")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_game_log_game_id_seq")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=998), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("recipient", sa.String(length=320), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("state IN ('pending', 'sent', 'failed')", name=op.f("ck_outbox_state")),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_outbox_game_id_games"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("message_id", name=op.f("uq_outbox_message_id")),
    )
    op.create_index(
        op.f("ix_outbox_state_next_attempt_at"),
        "outbox",
        ["state", "next_attempt_at"],
        unique=False,
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("gender", sa.String(length=8), nullable=False),
        sa.Column("unsubscribed", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("gender IN ('man', 'vrouw')", name=op.f("ck_players_gender")),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_players_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("game_id", "email", name=op.f("uq_players_game_id_email")),
        sa.UniqueConstraint("game_id", "name_key", name=op.f("uq_players_game_id_name_key")),
    )
    op.create_table(
        "steps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("step", sa.String(length=32), nullable=False),
        sa.Column("night", sa.Integer(), nullable=False),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_steps_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_steps")),
        sa.UniqueConstraint("game_id", "number", name=op.f("uq_steps_game_id_number")),
    )
    op.create_table(
        "votes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("step_number", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("targets", sa.JSON(), nullable=False),
        sa.Column("blanco", sa.Boolean(), nullable=False),
        sa.Column("keywords", sa.JSON(), nullable=False),
        sa.Column("inbox_id", sa.Integer(), nullable=True),
        sa.Column("cast_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_votes_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["inbox_id"], ["inbox.id"], name=op.f("fk_votes_inbox_id_inbox"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_votes_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_votes")),
    )
    op.create_index(
        op.f("ix_votes_game_id_step_number"), "votes", ["game_id", "step_number"], unique=False
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(op.f("ix_votes_game_id_step_number"), table_name="votes")
    op.drop_table("votes")
    op.drop_table("steps")
    op.drop_table("players")
    op.drop_index(op.f("ix_outbox_state_next_attempt_at"), table_name="outbox")
    op.drop_table("outbox")
    op.drop_table("game_log")
    op.drop_table("stories")
    op.drop_table("reply_counters")
    op.drop_index(op.f("ix_inbox_state"), table_name="inbox")
    op.drop_table("inbox")
    op.drop_table("imap_sync")
    op.drop_index(op.f("ix_games_status"), table_name="games")
    op.drop_index(op.f("ix_games_deadline"), table_name="games")
    op.drop_table("games")
    op.drop_index(op.f("ix_distributions_players"), table_name="distributions")
    op.drop_table("distributions")
    op.drop_table("admins")
