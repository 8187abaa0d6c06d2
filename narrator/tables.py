"""The narrator's database schema as SQLAlchemy Core tables; the ORM models map onto them.

A command that only reads (``narrator game show``) queries these tables with SQLAlchemy Core
and so does not import the ORM (a fifth of a second of start-up); everything else uses the
mapped classes of :mod:`narrator.models`, whose ``__table__`` is the table here.
"""

from __future__ import annotations

import enum
import unicodedata
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.types import TypeDecorator

from narrator.zones import DEFAULT_TIMEZONE, TIMEZONE_LENGTH

# Stable constraint names, so that migrations can name what they create and drop.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Lengths shared by models and the CLI's validation.
NAME_LENGTH = 64
EMAIL_LENGTH = 320
MESSAGE_ID_LENGTH = 998


class GameStatus(enum.StrEnum):
    """Where a game is in its life."""

    SIGNUP = "signup"
    RUNNING = "running"
    PAUSED = "paused"
    ENDED = "ended"


class Gender(enum.StrEnum):
    """A player's gender as signed up (used by the stories)."""

    MAN = "man"
    VROUW = "vrouw"


class ChapterKind(enum.StrEnum):
    """What a stored story of the game pages is (:class:`narrator.models.PageChapter`)."""

    STORY = "story"  # a step's story: the village's, or a player's private one
    EPILOGUE = "epilogue"  # the end's epilogue mail


class InboxSource(enum.StrEnum):
    """How an inbound mail reached the narrator."""

    SMTP = "smtp"
    IMAP = "imap"
    INJECT = "inject"
    WEB = "web"  # a vote sent with the form of a player's page (narrator/web/vote.py)


class InboxState(enum.StrEnum):
    """Processing state of an inbound mail."""

    NEW = "new"
    DONE = "done"
    FAILED = "failed"
    IGNORED = "ignored"


class OutboxState(enum.StrEnum):
    """Delivery state of an outgoing mail."""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"


def utcnow() -> datetime:
    """Return the current time as a timezone-aware UTC datetime (the default for timestamps)."""
    return datetime.now(UTC)


def fold_name(name: str) -> str:
    """Return the matching key of a player or game name: accents removed, case folded."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    return stripped.casefold()


def fold_email(address: str) -> str:
    """Return the stored form of an e-mail address: stripped and lower-cased."""
    return address.strip().lower()


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend (SQLite stores no offset; we add UTC back).

    Naive datetimes are refused on the way in, so no local time is ever stored by mistake.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: store timezone-aware UTC datetimes")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def _check_in(column: str, values: type[enum.StrEnum]) -> str:
    allowed = ", ".join(f"'{member.value}'" for member in values)
    return f"{column} IN ({allowed})"


metadata = MetaData(naming_convention=NAMING_CONVENTION)
"""Every table of the narrator (Alembic's target; the ORM's declarative base shares it)."""

games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(NAME_LENGTH), nullable=False),
    # fold_name(name): names are unique case- and accent-insensitively.
    Column("name_key", String(NAME_LENGTH), unique=True, nullable=False),
    Column("ruleset", String(32), nullable=False),
    Column("language", String(16), nullable=False),
    Column("theme", String(NAME_LENGTH), nullable=False),
    # The IANA zone its deadlines are written in (``game create --tz``); stored times stay UTC.
    Column("timezone", String(TIMEZONE_LENGTH), default=DEFAULT_TIMEZONE, nullable=False),
    Column("speed", Integer, nullable=False),  # length of every step, in seconds
    Column("strictness", Integer, nullable=False),
    Column("close_early", Boolean, default=False, nullable=False),
    Column("reveal_roles", Boolean, default=True, nullable=False),
    # The ruleset's own settings chosen for this game (``game create --option``), validated by
    # the ruleset; a distribution's options and the ruleset's defaults fill in the rest.
    Column("options", JSON, default=dict, nullable=False),
    Column("status", String(16), default=GameStatus.SIGNUP.value, index=True, nullable=False),
    Column("seed", BigInteger),
    Column("distribution_id", String(NAME_LENGTH)),
    # The rules engine's `dump_state` dict; None before the start. Assign a new dict to change it.
    Column("state", JSON),
    Column("step", String(32)),  # current step id; None when not running
    Column("step_number", Integer, default=0, nullable=False),  # steps run so far (1 = first)
    # Its village stories are stored as told (PageChapter) since its start: the public page
    # reads them; False for a game started before they were (migration 0008), until the
    # daemon's start builds them once from the log (narrator.service.pages).
    Column("chapters_stored", Boolean, default=False, nullable=False),
    # Likewise its players' private stories and its epilogue (migration 0009): the players'
    # own pages and the ended game's page read them.
    Column("news_stored", Boolean, default=False, nullable=False),
    Column("night", Integer, default=0, nullable=False),
    Column("day", Integer, default=0, nullable=False),
    Column("deadline", UtcDateTime(), index=True),
    Column("reminded_at", UtcDateTime()),  # for the current step
    Column("paused_at", UtcDateTime()),
    Column("version", Integer, nullable=False),  # optimistic locking (StaleDataError)
    Column("created_at", UtcDateTime(), default=utcnow, nullable=False),
    Column("updated_at", UtcDateTime(), default=utcnow, onupdate=utcnow, nullable=False),
    Column("started_at", UtcDateTime()),
    Column("ended_at", UtcDateTime()),
    CheckConstraint(_check_in("status", GameStatus), name="status"),
    CheckConstraint("speed > 0", name="speed_positive"),
    CheckConstraint("strictness >= 1", name="strictness_positive"),
)

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),  # signup order, 1-based; the rules' seat order
    Column("name", String(NAME_LENGTH), nullable=False),  # as signed up
    Column("name_key", String(NAME_LENGTH), nullable=False),  # fold_name(name)
    Column("email", String(EMAIL_LENGTH), nullable=False),  # fold_email(address)
    Column("gender", String(8), nullable=False),
    Column("unsubscribed", Boolean, default=False, nullable=False),
    # Signed into his personal link; `narrator game revoke-link` raises it (narrator/web/tokens.py).
    Column("page_generation", Integer, default=0, nullable=False),
    # Deferred: every mail loads a game's players, and nothing reads these (load on access).
    Column("created_at", UtcDateTime(), default=utcnow, nullable=False),
    Column("updated_at", UtcDateTime(), default=utcnow, onupdate=utcnow, nullable=False),
    UniqueConstraint("game_id", "name_key"),
    UniqueConstraint("game_id", "email"),
    # A game's players are read in seat order by every unit of work that touches it (a pass
    # of votes: several games at once, narrator.models.player_rows_of): read in the index's
    # order, not sorted each time (migration 0011).
    Index(None, "game_id", "seat"),
    CheckConstraint(_check_in("gender", Gender), name="gender"),
)

steps = Table(
    "steps",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("number", Integer, nullable=False),  # Game.step_number while it runs
    Column("step", String(32), nullable=False),
    Column("night", Integer, nullable=False),
    Column("day", Integer, nullable=False),
    Column("started_at", UtcDateTime(), nullable=False),
    Column("deadline", UtcDateTime()),
    Column("resolved_at", UtcDateTime()),
    UniqueConstraint("game_id", "number"),
)

votes = Table(
    "votes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("step_number", Integer, nullable=False),
    Column("player_id", ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    Column("targets", JSON, nullable=False),  # canonical player names
    Column("blanco", Boolean, default=False, nullable=False),
    Column("keywords", JSON, nullable=False),
    Column("inbox_id", ForeignKey("inbox.id", ondelete="SET NULL")),
    Column("cast_at", UtcDateTime(), nullable=False),
    Index(None, "game_id", "step_number"),
)

game_log = Table(
    "game_log",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),  # 1, 2, … per game
    Column("kind", String(32), nullable=False),
    Column("payload", JSON, nullable=False),
    Column("at", UtcDateTime(), nullable=False),
    UniqueConstraint("game_id", "seq"),
)

page_chapters = Table(
    "page_chapters",
    metadata,
    Column("id", Integer, primary_key=True),  # the order of the telling
    Column("game_id", ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    # Whom it was told: None, the whole village; else this player alone (his private story).
    Column("player_id", ForeignKey("players.id", ondelete="CASCADE")),
    # A ChapterKind: a step's story (the village's or a player's), or the epilogue.
    Column("kind", String(16), default=ChapterKind.STORY.value, nullable=False),
    Column("moment", String(255), nullable=False),  # "Nacht 2", in the game's words
    Column("story", Text, nullable=False),  # the mail's text as rendered (greeting to roster)
    # The public events that carry a vote voter by voter (`votes`, `ballots`): the page's tallies.
    Column("tallies", JSON, nullable=False),
    Column("told_at", UtcDateTime(), nullable=False),
    Index(None, "game_id", "id"),
    Index(None, "player_id", "id"),
)

inbox = Table(
    "inbox",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("message_id", String(MESSAGE_ID_LENGTH)),
    Column("source", String(8), nullable=False),
    Column("envelope_from", String(EMAIL_LENGTH)),  # "" = null sender
    Column("mailbox", String(255)),
    Column("uidvalidity", BigInteger),
    Column("uid", BigInteger),
    Column("raw", LargeBinary, nullable=False),
    Column("state", String(8), default=InboxState.NEW.value, index=True, nullable=False),
    Column("attempts", Integer, default=0, nullable=False),
    Column("error", Text),
    Column("received_at", UtcDateTime(), default=utcnow, nullable=False),
    Column("processed_at", UtcDateTime()),
    UniqueConstraint("message_id"),
    UniqueConstraint("mailbox", "uidvalidity", "uid"),
    CheckConstraint(_check_in("source", InboxSource), name="source"),
    CheckConstraint(_check_in("state", InboxState), name="state"),
)

imap_sync = Table(
    "imap_sync",
    metadata,
    Column("mailbox", String(255), primary_key=True),
    Column("uidvalidity", BigInteger, nullable=False),
    Column("last_uid", BigInteger, default=0, nullable=False),
    Column("updated_at", UtcDateTime(), default=utcnow, onupdate=utcnow, nullable=False),
)

outbox = Table(
    "outbox",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("message_id", String(MESSAGE_ID_LENGTH), nullable=False),
    Column("game_id", ForeignKey("games.id", ondelete="SET NULL")),
    Column("recipient", String(EMAIL_LENGTH), nullable=False),
    Column("raw", LargeBinary, nullable=False),
    Column("kind", String(32), nullable=False),  # the story event / mail kind
    Column("state", String(8), default=OutboxState.PENDING.value, nullable=False),
    Column("attempts", Integer, default=0, nullable=False),
    Column("next_attempt_at", UtcDateTime(), default=utcnow, nullable=False),
    Column("last_error", Text),
    Column("created_at", UtcDateTime(), default=utcnow, nullable=False),
    Column("sent_at", UtcDateTime()),
    #: The sender holding the current claim (see ``narrator.outbound.leases``); None when the
    #: row is not claimed, or was claimed by a process that takes no part in reclaiming
    #: (``narrator inject`` writing the Maildir): such a claim lasts its whole lease.
    Column("claimed_by", BigInteger),
    UniqueConstraint("message_id"),
    Index(None, "state", "next_attempt_at"),
    Index(None, "claimed_by"),
    CheckConstraint(_check_in("state", OutboxState), name="state"),
)

changes = Table(
    "changes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("counter", BigInteger, default=0, nullable=False),
)

admins = Table(
    "admins",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("email", String(EMAIL_LENGTH), unique=True, nullable=False),  # fold_email(address)
    Column("created_at", UtcDateTime(), default=utcnow, nullable=False),
)

admin_passwords = Table(
    "admin_passwords",
    metadata,
    Column("email", String(EMAIL_LENGTH), primary_key=True),  # fold_email
    Column("hash", String(255), nullable=False),  # argon2id, PHC string format
    Column("updated_at", UtcDateTime(), default=utcnow, nullable=False),
)

admin_actions = Table(
    "admin_actions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", UtcDateTime(), nullable=False),
    # The admin's address (the panel), or "cli" and the shell user (the command line).
    Column("by", String(EMAIL_LENGTH), nullable=False),
    Column("action", String(32), nullable=False),
    Column("game_id", ForeignKey("games.id", ondelete="SET NULL")),
    Column("game", String(NAME_LENGTH), nullable=False),  # its name, kept if it is deleted
    Column("detail", Text, nullable=False),  # what the action printed
    Index(None, "game_id", "id"),
)

stories = Table(
    "stories",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("ruleset", String(32), nullable=False),
    Column("language", String(16), nullable=False),
    Column("theme", String(NAME_LENGTH), nullable=False),
    Column("event", String(NAME_LENGTH), nullable=False),
    Column("variant", Integer, nullable=False),
    Column("source", Text, nullable=False),
    Column("created_at", UtcDateTime(), default=utcnow, nullable=False),
    UniqueConstraint("ruleset", "language", "theme", "event", "variant"),
)

distributions = Table(
    "distributions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("ruleset", String(32), nullable=False),
    Column("key", String(NAME_LENGTH), nullable=False),  # the distribution id shown to admins
    Column("players", Integer, index=True, nullable=False),
    Column("roles", JSON, nullable=False),  # role ids, one per player, sorted
    Column("options", JSON, default=dict, nullable=False),  # ruleset settings (mayor)
    Column("created_at", UtcDateTime(), default=utcnow, nullable=False),
    UniqueConstraint("ruleset", "key"),
    CheckConstraint("players >= 1", name="players_positive"),
)

reply_counters = Table(
    "reply_counters",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("sender", String(EMAIL_LENGTH), nullable=False),  # fold_email(address)
    Column("window_start", UtcDateTime(), nullable=False),
    Column("count", Integer, default=0, nullable=False),
    UniqueConstraint("sender", "window_start"),
)

#: A player's Help mails held as a flood (beyond the first held in the hour, which the admins
#: heard of at once): the closing digest after the hour lists them, then they are deleted.
held_help = Table(
    "held_help",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("sender", String(EMAIL_LENGTH), nullable=False),  # his reply limit's key
    Column("window_start", UtcDateTime(), nullable=False),  # the clock hour it was held in
    Column("address", String(EMAIL_LENGTH), nullable=False),  # From, for Reply-To
    Column("name", Text, nullable=False),  # his From name ("" if none)
    Column("subject", Text, nullable=False),  # his own words: shown only to the admins
    Column("language", String(16), nullable=False),  # of the digest
    Index(None, "window_start", "sender"),
)
