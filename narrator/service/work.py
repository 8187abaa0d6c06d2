"""The unit of work of one transaction: the games it loaded and changed, written back at its end.

Processing a batch of mail asks for the same game's players, rules state and story cast once
per mail, and a vote in a big game must not re-read or re-write a document as large as the
game.  So one :class:`Work` per transaction holds what was read, and writes the rules states
that changed once, in :meth:`Work.flush` (called by :func:`unit_of_work` before the commit).
The rows a batch adds or changes that nothing in it reads back (the inbox rows' states, the
game log's entries, the vote rows, the outbox's mail) are collected here too, by
:meth:`Work.write`, and written at :meth:`Work.flush` with one execution of each statement
for all of them (an ``executemany``): a statement costs SQLAlchemy's Python far more than
SQLite's work.  Whoever reads such rows in the same transaction flushes first (the
epilogue reads the log, a reminder the votes).
The service's operations see a game through its table (:mod:`narrator.service.table`), one
per game in :attr:`Work.tables`, which holds the game's view and story cast (dropped at the
end of the unit of work: a table and its work refer to each other, and the garbage collector
would otherwise be the one to free a pass's players, states and casts).  Nothing is kept
between transactions (another process may write meanwhile), and nothing is hidden in the
session: whoever needs a game's state is handed the ``Work``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Executable, bindparam, select, update
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError

from narrator.db import transaction
from narrator.models import (
    Game,
    GameStatus,
    PlayerInfo,
    PlayerRow,
    player_rows,
    player_rows_of,
)
from narrator.outbound.outbox import Claim, Outgoing
from narrator.service.limits import ReplyCounts
from narrator.tables import games, utcnow
from parsing import find_game
from rules import get_ruleset
from rules.core.ruleset import Ruleset, RulesState

if TYPE_CHECKING:
    from narrator.service.table import GameTable

OPEN_STATUSES = (GameStatus.SIGNUP.value, GameStatus.RUNNING.value, GameStatus.PAUSED.value)


# What every mail's unit of work asks, built once.
_OPEN_GAMES = select(games.c.id, games.c.name, games.c.status, games.c.language).where(
    games.c.status.in_(OPEN_STATUSES)
)
_LOCKED_GAME = (
    select(Game)
    .where(Game.id == bindparam("game"))
    .with_for_update()
    .execution_options(populate_existing=True)
)
# The games a batch's mails name, locked together in the order of their ids (two daemons'
# batches lock what they share in one order).
_LOCKED_GAMES = (
    select(Game)
    .where(Game.id.in_(bindparam("games", expanding=True)))
    .order_by(Game.id)
    .with_for_update()
    .execution_options(populate_existing=True)
)
# A game whose rules state alone changed (a vote): its row written by a Core update, checked
# and counted by its version as the ORM's would be.
_WRITE_STATE = (
    update(games)
    .where(games.c.id == bindparam("game"), games.c.version == bindparam("read"))
    .values(state=bindparam("new_state"), version=bindparam("written"), updated_at=bindparam("at"))
)


class NotStarted(LookupError):
    """The game has no rules state yet (it is still taking signups)."""


def ruleset_of(game: Game) -> Ruleset[RulesState]:
    """The rules engine of `game`."""
    return get_ruleset(game.ruleset)


def state_of(game: Game) -> RulesState:
    """The rules state stored in `game`'s row, loaded afresh (no unit of work: for readers)."""
    if game.state is None:
        raise NotStarted(f"game {game.name} has not started")
    return ruleset_of(game).load_state(game.state)


@dataclass
class _Loaded:
    """A game's rules state as this unit of work knows it (and the ruleset that writes it);
    `dirty` until it is written.  `before` and `stored`: the state as its row holds it (read
    or written in this unit of work) and that row's stored form, from which the flush takes
    the fields `state` shares with `before` (:meth:`Ruleset.dump_state_from`: a vote's new
    state shares all but its votes); None when the row holds no state this unit knows."""

    game: Game
    state: RulesState
    dirty: bool
    rules: Ruleset[RulesState]
    before: RulesState | None = None
    stored: Mapping[str, Any] | None = None

    def dumped(self) -> dict[str, Any]:
        """The stored form of `state`."""
        if self.before is None or self.stored is None:
            return self.rules.dump_state(self.state)
        return self.rules.dump_state_from(self.before, self.stored, self.state)


class Work:
    """What one transaction has read and changed of the games; see the module docstring.

    The rules state a caller stores (:meth:`store`) is the game's state from then on; it is
    dumped into the game's row once, at :meth:`flush`.  The mail it posts goes to
    :attr:`outgoing`, inserted at :meth:`flush`, claimed by `claim`'s sender when it has one
    (the daemon's inbox pass: see :func:`narrator.service.letters.post`).
    """

    def __init__(self, session: Session, claim: Claim | None = None) -> None:
        self.session = session
        self.claim = claim
        # The mail it queues, inserted at the flush (claimed by `claim`'s sender, if any).
        self.outgoing = Outgoing(claim)
        # The reply counters of the batch's senders (read by the inbox pass), written at the
        # flush.
        self.replies = ReplyCounts()
        self._open_games: list[Any] | None = None  # rows: id, name, status, language
        self._locked: dict[int, Game] = {}  # held here: the session only keeps weak references
        # What each locked game's deadline and reminder were planned from when it was read
        # (see :meth:`plans_changed`).
        self._plans: dict[int, tuple[Any, ...]] = {}
        self._players: dict[int, list[PlayerRow]] = {}
        self._states: dict[int, _Loaded] = {}
        # The game tables of the games an operation touched (narrator.service.table.table_of).
        self.tables: dict[int, GameTable] = {}
        # The rows to write at the flush, by the statement that writes them (in order).
        self._writes: dict[Executable, list[dict[str, Any]]] = {}

    # --- games ---------------------------------------------------------------------------

    def open_games(self) -> list[Any]:
        """Id, name, status and language of every open game (the names a subject may match),
        read once per unit of work until :meth:`games_changed`."""
        if self._open_games is None:
            self.session.flush()  # a game added or changed here counts, as autoflush did
            self._open_games = list(self.session.connection().execute(_OPEN_GAMES).all())
        return list(self._open_games)

    def ended_game(self, subject: str) -> Any | None:
        """Id, name, status and language of the ended game `subject` names (the latest of that
        name), or None: asked only of a mail that names no open game, so that its sender is
        told the game is over rather than that there is no such game."""
        query = (
            select(Game.id, Game.name, Game.status, Game.language)
            .where(Game.status == GameStatus.ENDED.value)
            .order_by(Game.id.desc())
        )
        ended = list(self.session.execute(query).all())
        name = find_game(subject, [g.name for g in ended])
        return next((g for g in ended if g.name == name), None)

    def games_changed(self) -> None:
        """A game was created, renamed, or changed status or language: read them again."""
        self._open_games = None

    def locked_game(self, game_id: int) -> Game | None:
        """The game `game_id`, locked for the rest of the transaction (``FOR UPDATE``): one
        mail at a time per game, also across daemons (PostgreSQL).  Read and locked once."""
        if game_id in self._locked:
            return self._locked[game_id]
        game = self.session.scalars(_LOCKED_GAME, {"game": game_id}).one_or_none()
        if game is not None:
            self._locked[game_id] = game
            self._plans[game_id] = _plan_of(game)
        return game

    def lock_games(self, game_ids: Iterable[int]) -> None:
        """Lock the games `game_ids` as :meth:`locked_game` does, and read their players: one
        statement for the games and one for their players, for the mails of a batch (each
        then finds its game by :meth:`locked_game`, and its players, already read)."""
        wanted = sorted(set(game_ids) - self._locked.keys())
        if not wanted:
            return
        # One game (the daemon's usual pass: one vote) by the statement of one: an IN list
        # costs SQLAlchemy a rendering of the statement at each execution (about 13 µs).
        if len(wanted) == 1:
            locked = self.session.scalars(_LOCKED_GAME, {"game": wanted[0]})
        else:
            locked = self.session.scalars(_LOCKED_GAMES, {"games": wanted})
        for game in locked:
            self._locked[game.id] = game
            self._plans[game.id] = _plan_of(game)
        unread = [game_id for game_id in wanted if game_id in self._locked]
        self._players.update(player_rows_of(self.session, unread))

    def plans_changed(self) -> bool:
        """Whether a game locked here changed what its deadline and reminder are planned from
        (its status, deadline, speed, or reminder time): a step closed or the game ended, so
        the daemon's scheduler must read the deadlines again."""
        return any(_plan_of(game) != self._plans[game_id] for game_id, game in self._locked.items())

    # --- players -------------------------------------------------------------------------

    def players(self, game: Game) -> list[PlayerRow]:
        """The players of `game` in seat order, as plain rows read once (a copy of the list:
        callers may extend it); a player is changed through his ORM ``Player``, and then
        :meth:`player_changed`."""
        known = self._players.get(game.id)
        if known is None:
            known = self._players[game.id] = player_rows(self.session, game)
        return list(known)

    def player_changed(self, game: Game, player: PlayerInfo) -> None:
        """`player` joined `game` (a signup) or changed: the players are read again when next
        asked."""
        self._players.pop(game.id, None)

    # --- rules states --------------------------------------------------------------------

    def has_state(self, game: Game) -> bool:
        """Whether `game` has a rules state (it has started), here or in its row."""
        return game.id in self._states or game.state is not None

    def state(self, game: Game, rules: Ruleset[RulesState] | None = None) -> RulesState:
        """The rules state of a started game: the one stored last in this unit of work, else
        the one in its row (loaded by `rules`, the game's ruleset, when the caller has it).
        Raises NotStarted before the start."""
        known = self._states.get(game.id)
        if known is None:
            if game.state is None:
                raise NotStarted(f"game {game.name} has not started")
            rules = rules if rules is not None else ruleset_of(game)
            state = rules.load_state(game.state)
            known = _Loaded(game, state, dirty=False, rules=rules, before=state, stored=game.state)
            self._states[game.id] = known
        return known.state

    def store(
        self, game: Game, state: RulesState, rules: Ruleset[RulesState] | None = None
    ) -> None:
        """Make `state` the game's rules state, written at :meth:`flush` by `rules` (default:
        the game's ruleset); the game's table (:meth:`narrator.service.table.GameTable.store`)
        keeps its plain columns in step."""
        rules = rules if rules is not None else ruleset_of(game)
        known = self._states.get(game.id)
        if known is not None and known.rules is rules:  # the row's state it was made from
            self._states[game.id] = _Loaded(game, state, True, rules, known.before, known.stored)
        else:
            self._states[game.id] = _Loaded(game, state, dirty=True, rules=rules)

    # --- rows written at the end -----------------------------------------------------------

    def write(self, statement: Executable, values: dict[str, Any]) -> None:
        """Have `statement` executed with `values` at the next :meth:`flush`, in one execution
        with every other row of that statement (in the order they came); nothing reads them
        back before the flush."""
        self._writes.setdefault(statement, []).append(values)

    # --- the end -------------------------------------------------------------------------

    def flush(self) -> None:
        """Write every rules state stored since the last flush into its game's row, then the
        rows collected by :meth:`write` (one execution per statement).

        The games whose rows changed in nothing else (a vote changes only the rules state) are
        written by one Core update (one execution for all of them), as the ORM's flush would
        write each (the state, the version it checks and counts, the time), and the game
        objects are told the values written; a
        game changed otherwise (a step closed, the game ended) takes its state with the rest
        of its changes, in the ORM's flush at the commit.
        """
        now = utcnow()
        rows: list[dict[str, Any]] = []
        written: list[tuple[Game, Any]] = []
        for loaded in self._states.values():
            if not loaded.dirty:
                continue
            state, game = loaded.dumped(), loaded.game
            loaded.dirty = False
            loaded.before, loaded.stored = loaded.state, state  # what its row holds now
            if game in self.session.new or self.session.is_modified(game):
                game.state = state
                continue
            read = game.version
            rows.append(
                {"game": game.id, "read": read, "written": read + 1, "new_state": state, "at": now}
            )
            written.append((game, state))
        if rows:  # one execution for every game: each row checked by its version
            result = self.session.connection().execute(_WRITE_STATE, rows)
            if result.rowcount != len(rows):
                changed = ", ".join(str(game.id) for game, _ in written)
                raise StaleDataError(f"a game of {changed} was changed by another transaction")
            for game, state in written:
                set_committed_value(game, "state", state)
                set_committed_value(game, "version", game.version + 1)
                set_committed_value(game, "updated_at", now)
        if self._writes:
            connection = self.session.connection()
            writes, self._writes = self._writes, {}
            for statement, rows in writes.items():
                connection.execute(statement, rows)
        self.outgoing.write(self.session.connection())
        self.replies.write(self.session.connection())


def _plan_of(game: Game) -> tuple[Any, ...]:
    """The columns of `game` its deadline and reminder jobs are planned from
    (narrator/scheduler.py ``scheduled_games``)."""
    return (game.status, game.deadline, game.speed, game.reminded_at)


@contextmanager
def unit_of_work(factory: sessionmaker[Session], claim: Claim | None = None) -> Iterator[Work]:
    """Yield a :class:`Work` inside one transaction (posting its mail under `claim`, if any);
    its states are written before the commit (nothing is written when the block raises: the
    transaction is rolled back)."""
    with transaction(factory) as session:
        work = Work(session, claim)
        try:
            yield work
            work.flush()
        finally:
            work.tables.clear()  # each table refers to the work: freed now, not by the collector


@contextmanager
def work_in(session: Session) -> Iterator[Work]:
    """Yield a :class:`Work` over a transaction the caller holds; written back at the end of
    the block (the caller commits)."""
    work = Work(session)
    try:
        yield work
        work.flush()
    finally:
        work.tables.clear()  # each table refers to the work: freed now, not by the collector
