"""The narrator's database models (SQLAlchemy 2, typed declarative): the only place they live."""

from __future__ import annotations

import enum
import unicodedata
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    select,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
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
    """What a stored story of the game pages is (:class:`PageChapter`)."""

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


class Base(DeclarativeBase):
    """Declarative base of every narrator model."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: dict[Any, Any] = {  # noqa: RUF012 (SQLAlchemy reads it at class creation)
        datetime: UtcDateTime(),
        dict[str, Any]: JSON(),
        list[Any]: JSON(),
        bytes: LargeBinary(),
    }


class Game(Base):
    """One game: its settings, its status, and the rules engine's state (the source of truth)."""

    __tablename__ = "games"
    __table_args__ = (
        CheckConstraint(_check_in("status", GameStatus), name="status"),
        CheckConstraint("speed > 0", name="speed_positive"),
        CheckConstraint("strictness >= 1", name="strictness_positive"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    # fold_name(name): names are unique case- and accent-insensitively.
    name_key: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    language: Mapped[str] = mapped_column(String(16))
    theme: Mapped[str] = mapped_column(String(NAME_LENGTH))
    # The IANA zone its deadlines are written in (``game create --tz``); stored times stay UTC.
    timezone: Mapped[str] = mapped_column(String(TIMEZONE_LENGTH), default=DEFAULT_TIMEZONE)
    speed: Mapped[int] = mapped_column(Integer)  # length of every step, in seconds
    strictness: Mapped[int] = mapped_column(Integer)
    close_early: Mapped[bool] = mapped_column(Boolean, default=False)
    reveal_roles: Mapped[bool] = mapped_column(Boolean, default=True)
    # The ruleset's own settings chosen for this game (``game create --option``), validated by
    # the ruleset; a distribution's options and the ruleset's defaults fill in the rest.
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.SIGNUP.value, index=True)
    seed: Mapped[int | None] = mapped_column(BigInteger)
    distribution_id: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    # The rules engine's `dump_state` dict; None before the start. Assign a new dict to change it.
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    step: Mapped[str | None] = mapped_column(String(32))  # current step id; None when not running
    step_number: Mapped[int] = mapped_column(Integer, default=0)  # steps run so far (1 = first)
    # Its village stories are stored as told (PageChapter) since its start: the public page
    # reads them; False for a game started before they were (migration 0008), until the
    # daemon's start builds them once from the log (narrator.service.pages).
    chapters_stored: Mapped[bool] = mapped_column(Boolean, default=False)
    # Likewise its players' private stories and its epilogue (migration 0009): the players'
    # own pages and the ended game's page read them.
    news_stored: Mapped[bool] = mapped_column(Boolean, default=False)
    night: Mapped[int] = mapped_column(Integer, default=0)
    day: Mapped[int] = mapped_column(Integer, default=0)
    deadline: Mapped[datetime | None] = mapped_column(UtcDateTime(), index=True)
    reminded_at: Mapped[datetime | None] = mapped_column(UtcDateTime())  # for the current step
    paused_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    version: Mapped[int] = mapped_column(Integer)  # optimistic locking (StaleDataError)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime())

    __mapper_args__ = {"version_id_col": version}  # noqa: RUF012


class Player(Base):
    """A player of one game, as signed up (name, address, gender); roles live in the game state."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "name_key"),
        UniqueConstraint("game_id", "email"),
        CheckConstraint(_check_in("gender", Gender), name="gender"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)  # signup order, 1-based; the rules' seat order
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))  # as signed up
    name_key: Mapped[str] = mapped_column(String(NAME_LENGTH))  # fold_name(name)
    email: Mapped[str] = mapped_column(String(EMAIL_LENGTH))  # fold_email(address)
    gender: Mapped[str] = mapped_column(String(8))
    unsubscribed: Mapped[bool] = mapped_column(Boolean, default=False)
    # Signed into his personal link; `narrator game revoke-link` raises it (narrator/web/tokens.py).
    page_generation: Mapped[int] = mapped_column(Integer, default=0)
    # Deferred: every mail loads a game's players, and nothing reads these (load on access).
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, deferred=True)
    updated_at: Mapped[datetime] = mapped_column(
        UtcDateTime(), default=utcnow, onupdate=utcnow, deferred=True
    )


class Step(Base):
    """One step of a game that actually ran: when it opened, its deadline, when it resolved."""

    __tablename__ = "steps"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)  # Game.step_number while it runs
    step: Mapped[str] = mapped_column(String(32))
    night: Mapped[int] = mapped_column(Integer)
    day: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    deadline: Mapped[datetime | None] = mapped_column(UtcDateTime())
    resolved_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Vote(Base):
    """An accepted vote as cast (votes may change: the last one per player and kind counts)."""

    __tablename__ = "votes"
    __table_args__ = (Index(None, "game_id", "step_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    step_number: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    targets: Mapped[list[Any]] = mapped_column(JSON)  # canonical player names
    blanco: Mapped[bool] = mapped_column(Boolean, default=False)
    keywords: Mapped[list[Any]] = mapped_column(JSON)
    inbox_id: Mapped[int | None] = mapped_column(ForeignKey("inbox.id", ondelete="SET NULL"))
    cast_at: Mapped[datetime] = mapped_column(UtcDateTime())


class GameLogEntry(Base):
    """The append-only log of a game (settings, seats, votes, resolutions) to replay it from."""

    __tablename__ = "game_log"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, … per game
    kind: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class PageChapter(Base):
    """One story as a game's mails told it, stored as the post office rendered it: a step's
    story the whole village was told (a step's close, the start, a removal), a player's
    private story mail, or the epilogue.  The game pages read these rows instead of replaying
    the log and rendering every story again on each request."""

    __tablename__ = "page_chapters"
    __table_args__ = (Index(None, "game_id", "id"), Index(None, "player_id", "id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # the order of the telling
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    # Whom it was told: None, the whole village; else this player alone (his private story).
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    # A ChapterKind: a step's story (the village's or a player's), or the epilogue.
    kind: Mapped[str] = mapped_column(String(16), default=ChapterKind.STORY.value)
    moment: Mapped[str] = mapped_column(String(255))  # "Nacht 2", in the game's words
    story: Mapped[str] = mapped_column(Text)  # the mail's text as rendered (greeting to roster)
    # The public events that carry a vote voter by voter (`votes`, `ballots`): the page's tallies.
    tallies: Mapped[list[Any]] = mapped_column(JSON)
    told_at: Mapped[datetime] = mapped_column(UtcDateTime())


class InboxMessage(Base):
    """An inbound mail, committed before it is acknowledged; processed exactly once."""

    __tablename__ = "inbox"
    __table_args__ = (
        UniqueConstraint("message_id"),
        UniqueConstraint("mailbox", "uidvalidity", "uid"),
        CheckConstraint(_check_in("source", InboxSource), name="source"),
        CheckConstraint(_check_in("state", InboxState), name="state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[str | None] = mapped_column(String(MESSAGE_ID_LENGTH))
    source: Mapped[str] = mapped_column(String(8))
    envelope_from: Mapped[str | None] = mapped_column(String(EMAIL_LENGTH))  # "" = null sender
    mailbox: Mapped[str | None] = mapped_column(String(255))
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger)
    uid: Mapped[int | None] = mapped_column(BigInteger)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    state: Mapped[str] = mapped_column(String(8), default=InboxState.NEW.value, index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    processed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class ImapSync(Base):
    """How far the IMAP poller got in one mailbox (UIDVALIDITY and the last UID committed)."""

    __tablename__ = "imap_sync"

    mailbox: Mapped[str] = mapped_column(String(255), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger)
    last_uid: Mapped[int] = mapped_column(BigInteger, default=0)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)


class OutboxMessage(Base):
    """An outgoing mail, kept until the SMTP server accepted it (or it went to the Maildir)."""

    __tablename__ = "outbox"
    __table_args__ = (
        UniqueConstraint("message_id"),
        Index(None, "state", "next_attempt_at"),
        Index(None, "claimed_by"),
        CheckConstraint(_check_in("state", OutboxState), name="state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[str] = mapped_column(String(MESSAGE_ID_LENGTH))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    recipient: Mapped[str] = mapped_column(String(EMAIL_LENGTH))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    kind: Mapped[str] = mapped_column(String(32))  # the story event / mail kind
    state: Mapped[str] = mapped_column(String(8), default=OutboxState.PENDING.value)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    #: The sender holding the current claim (see ``narrator.outbound.leases``); None when the
    #: row is not claimed, or was claimed by a process that takes no part in reclaiming
    #: (``narrator inject`` writing the Maildir): such a claim lasts its whole lease.
    claimed_by: Mapped[int | None] = mapped_column(BigInteger)


class ChangeCounter(Base):
    """One row (id 1) whose counter every admin command raises in its transaction.

    A running daemon watches it (see ``narrator.changes``) to act on what the command queued
    or changed at once, instead of at its next poll.
    """

    __tablename__ = "changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    counter: Mapped[int] = mapped_column(BigInteger, default=0)


class Admin(Base):
    """An administrator: gets the players' Help mails (as do the config's `[admins] emails`)."""

    __tablename__ = "admins"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(EMAIL_LENGTH), unique=True)  # fold_email(address)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class AdminPassword(Base):
    """An administrator's password for the admin panel (``narrator admin password``): its argon2
    hash only, never the password."""

    __tablename__ = "admin_passwords"

    email: Mapped[str] = mapped_column(String(EMAIL_LENGTH), primary_key=True)  # fold_email
    hash: Mapped[str] = mapped_column(String(255))  # argon2id, PHC string format
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class AdminAction(Base):
    """One admin action on a game (start, close-step, pause, …), from the CLI or the admin
    panel: who did it, what and when (``narrator.commands.game.drive`` records it)."""

    __tablename__ = "admin_actions"
    __table_args__ = (Index(None, "game_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    # The admin's address (the panel), or "cli" and the shell user (the command line).
    by: Mapped[str] = mapped_column(String(EMAIL_LENGTH))
    action: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    game: Mapped[str] = mapped_column(String(NAME_LENGTH))  # its name, kept if it is deleted
    detail: Mapped[str] = mapped_column(Text)  # what the action printed


class Story(Base):
    """A story template, keyed (ruleset, language, theme, event) with an integer variant."""

    __tablename__ = "stories"
    __table_args__ = (UniqueConstraint("ruleset", "language", "theme", "event", "variant"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    language: Mapped[str] = mapped_column(String(16))
    theme: Mapped[str] = mapped_column(String(NAME_LENGTH))
    event: Mapped[str] = mapped_column(String(NAME_LENGTH))
    variant: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class RoleDistribution(Base):
    """A role distribution added by an admin (the built-in ones come from the rules engine)."""

    __tablename__ = "distributions"
    __table_args__ = (
        UniqueConstraint("ruleset", "key"),
        CheckConstraint("players >= 1", name="players_positive"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(NAME_LENGTH))  # the distribution id shown to admins
    players: Mapped[int] = mapped_column(Integer, index=True)
    roles: Mapped[list[Any]] = mapped_column(JSON)  # role ids, one per player, sorted
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # ruleset settings (mayor)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class ReplyCounter(Base):
    """How many replies went to one sender in one time window (rate limiting, never loop)."""

    __tablename__ = "reply_counters"
    __table_args__ = (UniqueConstraint("sender", "window_start"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sender: Mapped[str] = mapped_column(String(EMAIL_LENGTH))  # fold_email(address)
    window_start: Mapped[datetime] = mapped_column(UtcDateTime())
    count: Mapped[int] = mapped_column(Integer, default=0)


def find_game(session: Session, name: str) -> Game | None:
    """Return the game called `name` (case- and accent-insensitively), or None."""
    return session.scalars(select(Game).where(Game.name_key == fold_name(name))).one_or_none()


def find_player(session: Session, game: Game, name: str) -> Player | None:
    """Return the player of `game` called `name` (case- and accent-insensitively), or None."""
    query = select(Player).where(Player.game_id == game.id, Player.name_key == fold_name(name))
    return session.scalars(query).one_or_none()


def game_players(session: Session, game: Game) -> list[Player]:
    """Return the players of `game` in seat order (read each time: a unit of work keeps them,
    see :class:`narrator.service.work.Work`)."""
    query = select(Player).where(Player.game_id == game.id).order_by(Player.seat, Player.id)
    return list(session.scalars(query))


def admin_emails(session: Session, configured: tuple[str, ...] = ()) -> list[str]:
    """Return every admin address: those of the config first, then those added by the CLI."""
    stored = session.scalars(select(Admin.email).order_by(Admin.email))
    emails: list[str] = []
    for email in (*(fold_email(address) for address in configured), *stored):
        if email not in emails:
            emails.append(email)
    return emails
