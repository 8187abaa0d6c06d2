"""The narrator's database models (SQLAlchemy 2 ORM): typed classes mapped onto the tables of
:mod:`narrator.tables`, the only place the schema lives."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from sqlalchemy import bindparam, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, deferred

from narrator import tables
from narrator.tables import EMAIL_LENGTH as EMAIL_LENGTH
from narrator.tables import MESSAGE_ID_LENGTH as MESSAGE_ID_LENGTH
from narrator.tables import NAME_LENGTH as NAME_LENGTH
from narrator.tables import NAMING_CONVENTION as NAMING_CONVENTION
from narrator.tables import ChapterKind as ChapterKind
from narrator.tables import GameStatus as GameStatus
from narrator.tables import Gender as Gender
from narrator.tables import InboxSource as InboxSource
from narrator.tables import InboxState as InboxState
from narrator.tables import OutboxState as OutboxState
from narrator.tables import UtcDateTime as UtcDateTime
from narrator.tables import fold_email as fold_email
from narrator.tables import fold_name as fold_name
from narrator.tables import utcnow as utcnow


class Base(DeclarativeBase):
    """Declarative base of every narrator model: its metadata is that of :mod:`narrator.tables`."""

    metadata = tables.metadata


class Game(Base):
    """One game: its settings, its status, and the rules engine's state (the source of truth)."""

    __table__ = tables.games
    __mapper_args__ = {"version_id_col": tables.games.c.version}  # noqa: RUF012

    id: Mapped[int]
    name: Mapped[str]
    name_key: Mapped[str]
    ruleset: Mapped[str]
    language: Mapped[str]
    theme: Mapped[str]
    timezone: Mapped[str]
    speed: Mapped[int]
    strictness: Mapped[int]
    close_early: Mapped[bool]
    reveal_roles: Mapped[bool]
    options: Mapped[dict[str, Any]]
    status: Mapped[str]
    seed: Mapped[int | None]
    distribution_id: Mapped[str | None]
    state: Mapped[dict[str, Any] | None]
    step: Mapped[str | None]
    step_number: Mapped[int]
    chapters_stored: Mapped[bool]
    news_stored: Mapped[bool]
    night: Mapped[int]
    day: Mapped[int]
    deadline: Mapped[datetime | None]
    reminded_at: Mapped[datetime | None]
    paused_at: Mapped[datetime | None]
    version: Mapped[int]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]


class Player(Base):
    """A player of one game, as signed up (name, address, gender); roles live in the game state."""

    __table__ = tables.players

    id: Mapped[int]
    game_id: Mapped[int]
    seat: Mapped[int]
    name: Mapped[str]
    name_key: Mapped[str]
    email: Mapped[str]
    gender: Mapped[str]
    unsubscribed: Mapped[bool]
    page_generation: Mapped[int]
    created_at: Mapped[datetime] = deferred(tables.players.c.created_at)
    updated_at: Mapped[datetime] = deferred(tables.players.c.updated_at)


class PlayerInfo(Protocol):
    """What the game service reads of a player: an ORM :class:`Player` (to change him) or a
    :class:`PlayerRow` (what a unit of work reads of every player of a game)."""

    @property
    def id(self) -> int: ...
    @property
    def game_id(self) -> int: ...
    @property
    def seat(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def name_key(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def gender(self) -> str: ...
    @property
    def unsubscribed(self) -> bool: ...
    @property
    def page_generation(self) -> int: ...


class PlayerRow(NamedTuple):
    """A player as read by a Core select (:func:`player_rows`), not an ORM object: a vote's
    transaction reads every player of its game, and fifty ORM objects cost several times the
    select.  To change a player, get his :class:`Player` (``session.get(Player, row.id)``).

    A named tuple (made from the selected row by one C-level tuple copy) rather than a frozen
    dataclass, whose ``__init__`` sets each field by ``object.__setattr__``: reading a game's
    players cost more in those calls than in the select.  Compared and hashed as its fields
    are, as the dataclass was (a tuple of the same values is equal to it too)."""

    id: int
    game_id: int
    seat: int
    name: str
    name_key: str
    email: str
    gender: str
    unsubscribed: bool
    page_generation: int


class Step(Base):
    """One step of a game that actually ran: when it opened, its deadline, when it resolved."""

    __table__ = tables.steps

    id: Mapped[int]
    game_id: Mapped[int]
    number: Mapped[int]
    step: Mapped[str]
    night: Mapped[int]
    day: Mapped[int]
    started_at: Mapped[datetime]
    deadline: Mapped[datetime | None]
    resolved_at: Mapped[datetime | None]


class Vote(Base):
    """An accepted vote as cast (votes may change: the last one per player and kind counts)."""

    __table__ = tables.votes

    id: Mapped[int]
    game_id: Mapped[int]
    step_number: Mapped[int]
    player_id: Mapped[int]
    targets: Mapped[list[Any]]
    blanco: Mapped[bool]
    keywords: Mapped[list[Any]]
    inbox_id: Mapped[int | None]
    cast_at: Mapped[datetime]


class GameLogEntry(Base):
    """The append-only log of a game (settings, seats, votes, resolutions) to replay it from."""

    __table__ = tables.game_log

    id: Mapped[int]
    game_id: Mapped[int]
    seq: Mapped[int]
    kind: Mapped[str]
    payload: Mapped[dict[str, Any]]
    at: Mapped[datetime]


class PageChapter(Base):
    """One story as a game's mails told it, stored as the post office rendered it: a step's
    story the whole village was told (a step's close, the start, a removal), a player's
    private story mail, or the epilogue.  The game pages read these rows instead of replaying
    the log and rendering every story again on each request."""

    __table__ = tables.page_chapters

    id: Mapped[int]
    game_id: Mapped[int]
    player_id: Mapped[int | None]
    kind: Mapped[str]
    moment: Mapped[str]
    story: Mapped[str]
    tallies: Mapped[list[Any]]
    told_at: Mapped[datetime]


class InboxMessage(Base):
    """An inbound mail, committed before it is acknowledged; processed exactly once."""

    __table__ = tables.inbox

    id: Mapped[int]
    message_id: Mapped[str | None]
    source: Mapped[str]
    envelope_from: Mapped[str | None]
    mailbox: Mapped[str | None]
    uidvalidity: Mapped[int | None]
    uid: Mapped[int | None]
    raw: Mapped[bytes]
    state: Mapped[str]
    attempts: Mapped[int]
    error: Mapped[str | None]
    received_at: Mapped[datetime]
    processed_at: Mapped[datetime | None]


class ImapSync(Base):
    """How far the IMAP poller got in one mailbox (UIDVALIDITY and the last UID committed)."""

    __table__ = tables.imap_sync

    mailbox: Mapped[str]
    uidvalidity: Mapped[int]
    last_uid: Mapped[int]
    updated_at: Mapped[datetime]


class OutboxMessage(Base):
    """An outgoing mail, kept until the SMTP server accepted it (or it went to the Maildir)."""

    __table__ = tables.outbox

    id: Mapped[int]
    message_id: Mapped[str]
    game_id: Mapped[int | None]
    recipient: Mapped[str]
    raw: Mapped[bytes]
    kind: Mapped[str]
    state: Mapped[str]
    attempts: Mapped[int]
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str | None]
    created_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]
    claimed_by: Mapped[int | None]


class ChangeCounter(Base):
    """One row (id 1) whose counter every admin command raises in its transaction.

    A running daemon watches it (see ``narrator.changes``) to act on what the command queued
    or changed at once, instead of at its next poll."""

    __table__ = tables.changes

    id: Mapped[int]
    counter: Mapped[int]


class Admin(Base):
    """An administrator: gets the players' Help mails (as do the config's `[admins] emails`)."""

    __table__ = tables.admins

    id: Mapped[int]
    email: Mapped[str]
    created_at: Mapped[datetime]


class AdminPassword(Base):
    """An administrator's password for the admin panel (``narrator admin password``): its argon2
    hash only, never the password."""

    __table__ = tables.admin_passwords

    email: Mapped[str]
    hash: Mapped[str]
    updated_at: Mapped[datetime]


class AdminAction(Base):
    """One admin action on a game (start, close-step, pause, …), from the CLI or the admin
    panel: who did it, what and when (``narrator.commands.game.drive`` records it)."""

    __table__ = tables.admin_actions

    id: Mapped[int]
    at: Mapped[datetime]
    by: Mapped[str]
    action: Mapped[str]
    game_id: Mapped[int | None]
    game: Mapped[str]
    detail: Mapped[str]


class Story(Base):
    """A story template, keyed (ruleset, language, theme, event) with an integer variant."""

    __table__ = tables.stories

    id: Mapped[int]
    ruleset: Mapped[str]
    language: Mapped[str]
    theme: Mapped[str]
    event: Mapped[str]
    variant: Mapped[int]
    source: Mapped[str]
    created_at: Mapped[datetime]


class RoleDistribution(Base):
    """A role distribution added by an admin (the built-in ones come from the rules engine)."""

    __table__ = tables.distributions

    id: Mapped[int]
    ruleset: Mapped[str]
    key: Mapped[str]
    players: Mapped[int]
    roles: Mapped[list[Any]]
    options: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class ReplyCounter(Base):
    """How many replies went to one sender in one time window (rate limiting, never loop)."""

    __table__ = tables.reply_counters

    id: Mapped[int]
    sender: Mapped[str]
    window_start: Mapped[datetime]
    count: Mapped[int]


class HeldHelp(Base):
    """A player's Help mail held as a flood, until the closing digest of its hour lists it."""

    __table__ = tables.held_help

    id: Mapped[int]
    sender: Mapped[str]
    window_start: Mapped[datetime]
    address: Mapped[str]
    name: Mapped[str]
    subject: Mapped[str]
    language: Mapped[str]


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
    return list(session.scalars(_PLAYERS_OF, {"game": game.id}))


def player_rows(session: Session, game: Game) -> list[PlayerRow]:
    """The players of `game` in seat order, as plain rows (a Core select; what the session
    holds unflushed is flushed first, as an ORM query would)."""
    session.flush()
    return list(map(_player_row, session.connection().execute(_ROWS_OF, {"game": game.id}).all()))


def player_rows_of(session: Session, game_ids: Sequence[int]) -> dict[int, list[PlayerRow]]:
    """The players of each game of `game_ids` in seat order, as :func:`player_rows` reads
    them, by one select for them all (a game without players has an empty list).  A single
    game's are read by :func:`player_rows`'s select: its ``IN`` list costs SQLAlchemy a
    rendering of the statement at each execution (about 13 µs), for the same rows."""
    session.flush()
    found: dict[int, list[PlayerRow]] = {game_id: [] for game_id in game_ids}
    if len(found) == 1:  # one game (the daemon's usual pass: one vote): no list to expand
        (game_id,) = found
        rows = session.connection().execute(_ROWS_OF, {"game": game_id}).all()
        found[game_id] = list(map(_player_row, rows))
    elif found:
        rows = session.connection().execute(_ROWS_OF_GAMES, {"games": list(found)}).all()
        for player in map(_player_row, rows):
            found[player.game_id].append(player)
    return found


_player_row = PlayerRow._make  # a selected row (its columns in PlayerRow's order) as a PlayerRow

# Every unit of work that touches a game reads its players: the statements are built once.
_PLAYERS_OF = (
    select(Player).where(Player.game_id == bindparam("game")).order_by(Player.seat, Player.id)
)
_ROWS_OF = (
    select(*(tables.players.c[column] for column in PlayerRow._fields))
    .where(tables.players.c.game_id == bindparam("game"))
    .order_by(tables.players.c.seat, tables.players.c.id)
)
_ROWS_OF_GAMES = (
    select(*(tables.players.c[column] for column in PlayerRow._fields))
    .where(tables.players.c.game_id.in_(bindparam("games", expanding=True)))
    .order_by(tables.players.c.game_id, tables.players.c.seat, tables.players.c.id)
)


def admin_emails(session: Session, configured: tuple[str, ...] = ()) -> list[str]:
    """Return every admin address: those of the config first, then those added by the CLI."""
    stored = session.scalars(select(Admin.email).order_by(Admin.email))
    emails: list[str] = []
    for email in (*(fold_email(address) for address in configured), *stored):
        if email not in emails:
            emails.append(email)
    return emails
