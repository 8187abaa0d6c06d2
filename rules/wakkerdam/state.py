"""The Wakkerdam game state: players with their statuses, the current step, and its votes."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Annotated

from rules.core.codec import AS_PAIRS, NOT_STORED, StateCodec
from rules.core.model import Settings
from rules.core.votefree import VoteFreeViews, copy_with, vote_free_getter
from rules.wakkerdam.actions import shared_targets_table

RULESET_ID = "wakkerdam"


@dataclass(frozen=True)
class Player:
    """One player and everything the rules remember about him.

    ``last_choice``: the previous choice of a no-repeat role (``()`` = blanco), None if none.
    ``due``: dead-actions still owed (``jager``, ``testament``, ``zondebok``).
    ``elixir``/``poison``: the Heks's potions; ``elder_hit``: the Dorpsoudste's life is used;
    ``gift_used``: the Grafrover's gift is used.
    """

    name: str
    role: str
    gender: str | None = None
    alive: bool = True
    cause: str | None = None
    lover: str | None = None
    guards: str | None = None
    bodyguard: str | None = None
    bond_used: bool = False
    enchanted: bool = False
    fool_revealed: bool = False
    missed: int = 0
    last_choice: tuple[str, ...] | None = None
    elder_hit: bool = False
    elixir: bool = True
    poison: bool = True
    gift_used: bool = False
    due: tuple[str, ...] = ()

    def with_role(self, role: str) -> Player:
        """Return this player with a new role and fresh role resources."""
        return replace(
            self,
            role=role,
            last_choice=None,
            elder_hit=False,
            elixir=True,
            poison=True,
            gift_used=False,
            fool_revealed=False,
        )


@dataclass(frozen=True)
class GameState:
    """A whole game at one moment; immutable.  ``step`` is None once the game is over.

    ``votes`` maps a vote key (``Name`` or ``Name:keyword``) to the names voted (``()`` =
    blanco), in the order the final votes arrived.  Day statuses (``warned``, ``marked``,
    ``jailed``) hold for the next lynch; ``guilty`` for the next lynch too; ``asleep`` for the
    current night; ``wounded`` between ``nacht`` and the end of ``heks`` (name, cause).
    """

    settings: Settings
    players: tuple[Player, ...]
    distribution_roles: tuple[str, ...]
    step: str | None = None
    night: int = 0
    day: int = 0
    votes: Annotated[Mapping[str, tuple[str, ...]], AS_PAIRS] = field(default_factory=dict)
    draws: int = 0
    mayor: str | None = None
    election_due: bool = False
    elections_abolished: bool = False
    asleep: frozenset[str] = frozenset()
    wounded: tuple[tuple[str, str], ...] = ()
    warned: frozenset[str] = frozenset()
    marked: tuple[str, ...] = ()
    jailed: frozenset[str] = frozenset()
    guilty: frozenset[str] = frozenset()
    night_roles: Mapping[str, str] = field(default_factory=dict)
    winners: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()
    over: bool = False
    ruleset: str = RULESET_ID

    table: VoteFree | None = field(default=None, compare=False, repr=False, metadata=NOT_STORED)
    """The vote-free views of a state this one may share (see :attr:`views`); not stored."""

    @property
    def has_mayor(self) -> bool:
        """Whether the game has a Burgemeester (option ``mayor``; absent: no)."""
        return bool(self.settings.option("mayor", False))

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.over

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

    def player(self, name: str) -> Player:
        """Return the player with this name; raises KeyError for an unknown name."""
        return self.players[self.views.index[name]]

    def find(self, name: str) -> Player | None:
        """Return the player with this name (case-insensitive), or None."""
        views = self.views
        seat = views.index.get(name)
        if seat is None:
            canonical = views.folded_names.get(name.casefold())
            if canonical is None:
                return None
            seat = views.index[canonical]
        return self.players[seat]

    def living(self) -> Iterator[Player]:
        """Yield the living players in seat order."""
        return (player for player in self.players if player.alive)

    @property
    def living_names(self) -> tuple[str, ...]:
        """The living players' names in seat order."""
        return self.views.living_names

    @property
    def any_dead(self) -> bool:
        """Whether at least one player is dead."""
        return self.views.any_dead

    @property
    def enchantable(self) -> bool:
        """Whether a living non-fluitspeler is not enchanted yet."""
        return self.views.enchantable

    @property
    def wounded_names(self) -> frozenset[str]:
        """The players wounded this night."""
        return self.views.wounded_names

    @property
    def shared_targets(self) -> Mapping[Hashable, tuple[tuple[str, ...], Mapping[str, int]]]:
        """For each vote asked in the current step, the names valid whoever votes (seat order)
        and their positions; see :func:`rules.wakkerdam.actions.shared_targets_table`."""
        return self.views.shared_targets

    def with_votes(self, votes: Mapping[str, tuple[str, ...]]) -> GameState:
        """This state with other votes, sharing this state's vote-free table by identity (the
        seat index, the names valid in each action, ...): a vote in a game of 1,000 players
        does not compute them all again."""
        return copy_with(self, votes=votes, table=self.views)

    def role_at_night_start(self, name: str) -> str:
        """Return the player's role as it was when the current night began."""
        return self.night_roles.get(name) or self.player(name).role


@dataclass(frozen=True, eq=False)  # one table, shared by identity
class VoteFree(VoteFreeViews["GameState"]):
    """The views of a state that depend on no vote (:class:`VoteFreeViews`), with this
    ruleset's own."""

    FIELDS = vote_free_getter(GameState)

    @cached_property
    def living_names(self) -> tuple[str, ...]:
        """The living players' names in seat order."""
        return tuple(player.name for player in self.state.players if player.alive)

    @cached_property
    def any_dead(self) -> bool:
        """Whether at least one player is dead."""
        return any(not player.alive for player in self.state.players)

    @cached_property
    def enchantable(self) -> bool:
        """Whether a living non-fluitspeler is not enchanted yet."""
        return any(
            p.alive and not p.enchanted and p.role != "fluitspeler" for p in self.state.players
        )

    @cached_property
    def wounded_names(self) -> frozenset[str]:
        """The players wounded this night."""
        return frozenset(name for name, _cause in self.state.wounded)

    @cached_property
    def shared_targets(self) -> Mapping[Hashable, tuple[tuple[str, ...], Mapping[str, int]]]:
        """For each vote asked in the current step, the names valid whoever votes (seat order)
        and their positions: computed once, for every action of the step at once, then read
        only (:func:`rules.wakkerdam.actions.shared_targets_table` reads no vote)."""
        return shared_targets_table(self.state)


CODEC: StateCodec[GameState] = StateCodec(GameState, ruleset=RULESET_ID)
"""The state to and from its stored JSON form (sparse, see rules/core/codec.py; the full form
stored before loads the same)."""
