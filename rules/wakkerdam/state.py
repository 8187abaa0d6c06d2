"""The Wakkerdam game state: players with their statuses, the current step, and its votes."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Annotated

from rules.core.codec import AS_PAIRS, StateCodec
from rules.core.model import Settings

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

    @property
    def has_mayor(self) -> bool:
        """Whether the game has a Burgemeester (option ``mayor``; absent: no)."""
        return bool(self.settings.option("mayor", False))

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.over

    @cached_property
    def index(self) -> Mapping[str, int]:
        """Player name -> seat number."""
        return {player.name: seat for seat, player in enumerate(self.players)}

    @cached_property
    def folded_names(self) -> Mapping[str, str]:
        """Case-folded name -> canonical name."""
        return {player.name.casefold(): player.name for player in self.players}

    def player(self, name: str) -> Player:
        """Return the player with this name; raises KeyError for an unknown name."""
        return self.players[self.index[name]]

    def find(self, name: str) -> Player | None:
        """Return the player with this name (case-insensitive), or None."""
        seat = self.index.get(name)
        if seat is None:
            canonical = self.folded_names.get(name.casefold())
            if canonical is None:
                return None
            seat = self.index[canonical]
        return self.players[seat]

    def living(self) -> Iterator[Player]:
        """Yield the living players in seat order."""
        return (player for player in self.players if player.alive)

    @cached_property
    def living_names(self) -> tuple[str, ...]:
        """The living players' names in seat order."""
        return tuple(player.name for player in self.players if player.alive)

    @cached_property
    def any_dead(self) -> bool:
        """Whether at least one player is dead."""
        return any(not player.alive for player in self.players)

    @cached_property
    def enchantable(self) -> bool:
        """Whether a living non-fluitspeler is not enchanted yet."""
        return any(p.alive and not p.enchanted and p.role != "fluitspeler" for p in self.players)

    @cached_property
    def wounded_names(self) -> frozenset[str]:
        """The players wounded this night."""
        return frozenset(name for name, _cause in self.wounded)

    @cached_property
    def shared_targets(self) -> Mapping[Hashable, tuple[tuple[str, ...], Mapping[str, int]]]:
        """For each vote asked in the current step, the names valid whoever votes (seat order)
        and their positions; see :func:`rules.wakkerdam.actions.shared_targets_table`.

        A derived view like :attr:`index`: computed once, for every action of the step at
        once, then read only; it depends on no vote (so :meth:`with_votes` shares it).
        """
        from rules.wakkerdam.actions import shared_targets_table  # it reads GameState

        return shared_targets_table(self)

    def with_votes(self, votes: Mapping[str, tuple[str, ...]]) -> GameState:
        """This state with other votes.

        It shares this state's views that do not depend on the votes (the seat index, the
        names valid in each action, ...): a vote in a game of 1,000 players does not compute
        them all again.
        """
        new = replace(self, votes=votes)
        for view in _VOTE_FREE_VIEWS:
            if view in self.__dict__:
                new.__dict__[view] = self.__dict__[view]
        return new

    def role_at_night_start(self, name: str) -> str:
        """Return the player's role as it was when the current night began."""
        return self.night_roles.get(name) or self.player(name).role


#: GameState's cached views that depend on no vote (shared by :meth:`GameState.with_votes`).
_VOTE_FREE_VIEWS = (
    "index",
    "folded_names",
    "living_names",
    "any_dead",
    "enchantable",
    "wounded_names",
    "shared_targets",
)


CODEC: StateCodec[GameState] = StateCodec(GameState, ruleset=RULESET_ID)
"""The state to and from its stored JSON form (byte for byte the form stored before the codec)."""
