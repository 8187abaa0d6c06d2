"""The game table: one game as an operation of the service sees it (rules, state, view, players).

One :class:`GameTable` per game lives in the unit of work (:func:`table_of`): it holds the
game's row, its ruleset, its rules state, ONE view of that state (``Ruleset.view`` is asked
once per state: a new state stored here gets a new view), its players, and the story cast of
the batch.  Every service operation takes a table instead of the tuple (work, game, state,
players, cast, public) it used to pass around, and nothing of it outlives the transaction.
See docs/dev/game-table.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select

from narrator.models import Game, PlayerInfo, PlayerRow
from narrator.service.story_context import story_cast, story_game
from narrator.service.work import NotStarted, Work
from narrator.tables import game_log
from parsing import GameInfo
from rules import get_ruleset
from rules.core.ruleset import Ruleset, RulesState
from rules.core.view import GameView
from stories import Cast

# A vote logs an entry: a Core statement built once, not an ORM unit of work, executed for
# all of a transaction's entries at once (an executemany, run row after row in their order).
# Its seq (1, 2, … per game) is the game's last one plus one, read by the insert itself: the
# entries inserted before it count.  The game's row is locked meanwhile (SQLite's BEGIN
# IMMEDIATE, PostgreSQL's FOR UPDATE), so no other transaction logs for it.
_LOG_ENTRY = insert(game_log).from_select(
    ["game_id", "seq", "kind", "payload", "at"],
    select(
        bindparam("game", type_=game_log.c.game_id.type),
        func.coalesce(func.max(game_log.c.seq), 0) + 1,
        bindparam("kind", type_=game_log.c.kind.type),
        bindparam("payload", type_=game_log.c.payload.type),
        bindparam("at", type_=game_log.c.at.type),
    ).where(game_log.c.game_id == bindparam("game")),
)


class GameTable:
    """One game in one unit of work: see the module docstring."""

    def __init__(self, work: Work, game: Game) -> None:
        self.work = work
        self.game = game
        self.rules: Ruleset[RulesState] = get_ruleset(game.ruleset)
        self._view: tuple[RulesState, GameView] | None = None  # (the state it is of, its view)
        # (the state it serves, a view of that state but for its votes): carried over a store
        # of a vote (see view_but_votes).
        self._view_but_votes: tuple[RulesState, GameView] | None = None
        self._casts: dict[bool, Cast] = {}  # by reveal_all, until the seats change
        # (the view it is of, the deadline it shows, the public game of a vote's mails): see
        # votes_public
        self._votes_public: tuple[GameView, datetime | None, dict[str, Any]] | None = None
        # The parser's view of a started game (its name index) and its players by address:
        # a started game's names never change, so the mails of a batch share them.
        self.parser_view: tuple[GameInfo, dict[str, PlayerRow]] | None = None

    # --- the players and the rules state ---------------------------------------------------

    @property
    def players(self) -> list[PlayerRow]:
        """The players in seat order (a copy: callers may extend it)."""
        return self.work.players(self.game)

    def player_changed(self, player: PlayerInfo) -> None:
        """`player` signed up or changed: players, cast and parser view are built again when
        next asked."""
        self.work.player_changed(self.game, player)
        self._casts.clear()
        self.parser_view = None

    @property
    def started(self) -> bool:
        """Whether the game has a rules state (it has started)."""
        return self.work.has_state(self.game)

    @property
    def state(self) -> RulesState:
        """The rules state (NotStarted before the start)."""
        return self.work.state(self.game, self.rules)

    @property
    def state_or_none(self) -> RulesState | None:
        """The rules state, None before the start."""
        return self.state if self.started else None

    @property
    def view(self) -> GameView:
        """The ruleset's view of :attr:`state`, asked once per state."""
        state = self.state
        if self._view is None or self._view[0] is not state:
            self._view = (state, self.rules.view(state))
        return self._view[1]

    @property
    def view_but_votes(self) -> GameView:
        """A view of :attr:`state` but for its votes: its ``votes`` may be those of an earlier
        state of this table, from which the state differs only by votes stored here
        (``store(vote_only=True)``).  A vote changes no seat, step or public fact, so the votes
        a batch casts in one game are answered with one view, not one built per vote;
        whoever reads the votes asks :attr:`view`."""
        state = self.state
        known = self._view_but_votes
        if known is None or known[0] is not state:
            known = self._view_but_votes = (state, self.view)
        return known[1]

    def store(self, state: RulesState, *, vote_only: bool = False) -> None:
        """Make `state` the game's rules state (written when the unit of work ends).

        The game's plain columns (step, night, day) follow at once.  `vote_only` says the new
        state differs from the last only by a vote, which changes no seat and no step: the
        columns and the cast stay as they are (and so does :attr:`view_but_votes`).
        """
        known = self._view_but_votes
        if vote_only and known is not None and known[0] is self.state:
            self._view_but_votes = (state, known[1])
        self.work.store(self.game, state, self.rules)
        if vote_only:
            return
        view = self.view
        self.game.step, self.game.night, self.game.day = view.step, view.night, view.day
        self._casts.clear()

    def log(self, kind: str, payload: Mapping[str, Any], now: datetime) -> None:
        """Add an entry to the game's log, numbered after its last: inserted when the unit of
        work flushes, with every other entry of its transaction, in the order they were made
        (whoever reads the log in the same transaction flushes the unit of work first)."""
        entry = {"game": self.game.id, "kind": kind, "payload": dict(payload), "at": now}
        self.work.write(_LOG_ENTRY, entry)

    # --- what the stories read -------------------------------------------------------------

    def cast(self, *, reveal_all: bool = False) -> Cast:
        """The `players` of the batch's mails, shared by every recipient (nobody's own role);
        with `reveal_all` (the game is over) every role.  Built once until the seats change."""
        known = self._casts.get(reveal_all)
        if known is None:
            state = self.state_or_none
            view = self.view if state is not None else None
            known = story_cast(
                self.game, self.players, state, reveal_all=reveal_all, rules=self.rules, view=view
            )
            if state is not None:
                self._casts[reveal_all] = known
        return known

    def public(self, step: str | None = None, phase: str | None = None) -> dict[str, Any]:
        """The `game` of a story render: public facts of the current view (a story of a
        resolved step passes that step and its phase)."""
        view = self.view if self.started else None
        return story_game(self.game, None, step, phase, view=view)

    def votes_public(self, view: GameView) -> Mapping[str, Any]:
        """The `game` of the mails answering votes cast in `view` (:attr:`view_but_votes`):
        ``story_game`` of it, made once for the votes of a batch in this game, not once a
        vote.  What it shows besides the view is the game row's: its plain columns change
        with a new state (a new view) but for the deadline (a pause's resume, an extension),
        so it is made again for another view or another deadline.  Read only: the mails of
        the batch share it."""
        deadline = self.game.deadline
        known = self._votes_public
        if known is None or known[0] is not view or known[1] is not deadline:
            known = self._votes_public = (view, deadline, story_game(self.game, None, view=view))
        return known[2]

    def context(
        self, recipient: str | None, public: Mapping[str, Any], *, reveal_all: bool = False
    ) -> dict[str, Any]:
        """The common story context of `recipient`'s mail: the batch's `public` game, its cast
        (whose render shows him his own role, as he was told it: ``Cast.seen_by``)."""
        return {"game": public, "players": self.cast(reveal_all=reveal_all), "recipient": recipient}


def table_of(work: Work, game: Game) -> GameTable:
    """The table of `game` in the unit of work `work` (made at the first ask)."""
    table = work.tables.get(game.id)
    if table is None or table.game is not game:
        table = work.tables[game.id] = GameTable(work, game)
    return table


__all__ = ["GameTable", "NotStarted", "table_of"]
