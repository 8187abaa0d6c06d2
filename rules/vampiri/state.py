"""The vampiri game state: players, the current step, its votes, the tie and the silenced."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Annotated

from rules.core.codec import AS_PAIRS, NOT_STORED, StateCodec
from rules.core.model import Settings
from rules.core.votefree import VoteFreeViews, copy_with, vote_free_getter
from rules.vampiri.roles import HUNTERS, team_of
from rules.vampiri.spec import Team

RULESET_ID = "vampiri"

UNDERCOVER_ORDER = ("esploratore", "bella")
"""Who is the undercover hunter (``undercover``): the Esploratore, else the Bella."""


@dataclass(frozen=True)
class Player:
    """One player: name, true role, gender, life, and consecutive missed night votes."""

    name: str
    role: str
    gender: str | None = None
    alive: bool = True
    cause: str | None = None
    missed: int = 0

    @property
    def team(self) -> str:
        """The player's team id."""
        return team_of(self.role)


@dataclass(frozen=True)
class GameState:
    """A whole game at one moment; immutable.  ``step`` is None once the game is over.

    ``votes`` maps a vote key (``Name`` or ``Name:keyword``) to the names voted (``()`` =
    blank), in the order the votes in force arrived.  ``candidates`` are the tied players of
    ``spareggio``/``decisione``; ``silenced`` the player without a vote in the current (or
    coming) night.  The game draws nothing at random after the deal, so the state holds no draw
    counter: seed and votes replay it exactly.
    """

    settings: Settings
    players: tuple[Player, ...]
    step: str | None = "votazione"
    night: int = 1
    day: int = 0
    votes: Annotated[Mapping[str, tuple[str, ...]], AS_PAIRS] = field(default_factory=dict)
    candidates: tuple[str, ...] = ()
    silenced: str | None = None
    winners: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()
    over: bool = False
    ruleset: str = RULESET_ID
    table: VoteFree | None = field(default=None, compare=False, repr=False, metadata=NOT_STORED)
    """The vote-free views of a state this one may share (see :attr:`views`); not stored."""

    @property
    def mayor(self) -> None:
        """There is no mayor in this game; callers written for Wakkerdam read None."""
        return None

    def flag(self, option: str) -> bool:
        """Whether the boolean ruleset option ``option`` is on (absent: off)."""
        return bool(self.settings.option(option, False))

    @cached_property
    def views(self) -> VoteFree:
        """This state's views that depend on no vote: :attr:`table` when it was built for a
        state that differs from this one in its votes only (a vote's new state, see
        :meth:`with_votes`), else a new table for this state.

        A new table is built on this state without the table it was given (which another
        change made stale), so that no state keeps its ancestors alive."""
        table = self.table
        if table is None:
            return VoteFree(self)
        if table.fits(self):
            return table
        return replace(self, table=None).views

    @property
    def index(self) -> Mapping[str, int]:
        """Player name -> seat number."""
        return self.views.index

    @property
    def folded_names(self) -> Mapping[str, str]:
        """Case-folded name -> canonical name."""
        return self.views.folded_names

    def with_votes(self, votes: Mapping[str, tuple[str, ...]]) -> GameState:
        """This state with other votes, sharing this state's vote-free table by identity (no
        vote changes it: a vote in a game of 1,000 players does not rebuild the seat index)."""
        return copy_with(self, votes=votes, table=self.views)

    def player(self, name: str) -> Player:
        """Return the player with exactly this name; raises KeyError for an unknown name."""
        return self.players[self.views.index[name]]

    def find(self, name: str) -> Player | None:
        """Return the player with this name (case-insensitive), or None."""
        canonical = self.views.folded_names.get(name.casefold())
        return None if canonical is None else self.player(canonical)

    def living(self) -> Iterator[Player]:
        """Yield the living players in seat order."""
        return (player for player in self.players if player.alive)

    @property
    def undercover(self) -> str | None:
        """The undercover hunter's name (``undercover``), or None."""
        return self.views.undercover

    @property
    def group(self) -> tuple[str, ...]:
        """The hunters' group as dealt (seat order): every hunter but the undercover one."""
        return self.views.group

    @property
    def is_guardie(self) -> bool:
        """Whether this is *Guardie al Cancello* (3 players: only night 1 is played)."""
        return len(self.players) == 3

    def is_hunter(self, name: str) -> bool:
        """Whether the named player is on the hunters' team (undercover included)."""
        return self.player(name).team == Team.CACCIATORI


@dataclass(frozen=True, eq=False)  # one table, shared by identity
class VoteFree(VoteFreeViews["GameState"]):
    """The views of a state that depend on no vote (:class:`VoteFreeViews`), with this
    ruleset's own."""

    FIELDS = vote_free_getter(GameState)

    @cached_property
    def undercover(self) -> str | None:
        """The undercover hunter's name (``undercover``), or None."""
        if not self.state.flag("undercover"):
            return None
        for role in UNDERCOVER_ORDER:
            for player in self.state.players:
                if player.role == role:
                    return player.name
        return None

    @cached_property
    def group(self) -> tuple[str, ...]:
        """The hunters' group as dealt (seat order): every hunter but the undercover one."""
        return tuple(
            p.name for p in self.state.players if p.role in HUNTERS and p.name != self.undercover
        )


CODEC: StateCodec[GameState] = StateCodec(GameState, ruleset=RULESET_ID)
"""The state to and from its stored JSON form (sparse, see rules/core/codec.py; the full form
stored before loads the same)."""
