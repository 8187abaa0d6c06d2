"""The Lupus game state: frozen dataclasses with a JSON dump and load."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from rules.core.codec import StateCodec
from rules.core.model import Settings
from rules.lupus.ids import ALIVE, DEAD, EXILED


@dataclass(frozen=True)
class Player:
    """One player: role, faction, aura and mystic as they are now (§8), and his records.

    ``role_uses`` / ``ghost_uses`` are the nights on which his role's power / his supernatural
    power was used (§1.1: kept through death); ``controller`` is the last Ipnotista who took him
    over (§6.7); ``death_faction`` his faction when he died (the Trasformista reads it, §6.8);
    ``missed`` his rogo ballots missed in a row (§5.4).
    """

    name: str
    role: str
    faction: str
    aura: str
    mystic: bool
    gender: str | None = None
    status: str = ALIVE
    ghost_power: str | None = None
    role_uses: tuple[int, ...] = ()
    ghost_uses: tuple[int, ...] = ()
    controller: str | None = None
    death_faction: str | None = None
    missed: int = 0

    @property
    def alive(self) -> bool:
        """Whether he is alive and in play."""
        return self.status == ALIVE

    @property
    def dead(self) -> bool:
        """Whether he is dead and in play (a Spettro or a plain corpse)."""
        return self.status == DEAD

    @property
    def exiled(self) -> bool:
        """Whether he was removed from the game (§8.4)."""
        return self.status == EXILED

    @property
    def is_spettro(self) -> bool:
        """Whether he is a Spettro in play (dead, with a supernatural power)."""
        return self.dead and self.ghost_power is not None


@dataclass(frozen=True)
class Marks:
    """The marks for the next rogo (§1.2 "Statuses"): they expire at sunset (§7.1 step 7)."""

    letters: frozenset[str] = frozenset()
    amnesia: frozenset[str] = frozenset()
    ipnosi: tuple[tuple[str, str], ...] = ()
    frauds: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class GameState:
    """A Lupus game at one moment.

    ``step`` is ``notte`` or ``giorno`` (None once over); ``night``/``day`` as in transcripts.
    ``votes`` are the votes in force, in arrival order (key ``Name`` or ``Name:keyword``).
    ``draws`` counts the seeded draws made so far (rules/core/rng.py).
    """

    settings: Settings
    players: tuple[Player, ...]
    step: str | None
    night: int
    day: int
    draws: int = 0
    votes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    has_mayor: bool = False
    mayor: str | None = None
    successor: str | None = None
    assigned: tuple[str, ...] = ()
    defeated: tuple[str, ...] = ()
    marks: Marks = field(default_factory=Marks)
    propositions: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    winners: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()

    @property
    def seed(self) -> int:
        """The game's seed."""
        return self.settings.seed

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.step is None

    def find(self, name: str) -> Player | None:
        """Return the player called exactly ``name``, or None."""
        for player in self.players:
            if player.name == name:
                return player
        return None

    def get(self, name: str) -> Player:
        """Return the player called ``name``; raises KeyError when there is none."""
        player = self.find(name)
        if player is None:
            raise KeyError(name)
        return player

    def seat(self, name: str) -> int:
        """Return the seat index of ``name``."""
        for index, player in enumerate(self.players):
            if player.name == name:
                return index
        raise KeyError(name)

    def in_play(self) -> tuple[Player, ...]:
        """The players alive and in play, in seat order."""
        return tuple(p for p in self.players if p.alive)

    def vote_map(self) -> dict[str, tuple[str, ...]]:
        """Return the votes in force as a dict (arrival order kept)."""
        return dict(self.votes)

    def with_player(self, player: Player) -> GameState:
        """Return the state with ``player`` replacing the seat of the same name."""
        return replace(
            self, players=tuple(player if p.name == player.name else p for p in self.players)
        )

    def with_players(self, changed: Mapping[str, Player]) -> GameState:
        """Return the state with every player of ``changed`` replaced (by name)."""
        return replace(self, players=tuple(changed.get(p.name, p) for p in self.players))


CODEC: StateCodec[GameState] = StateCodec(GameState)
"""The state to and from its stored JSON form (sparse, see rules/core/codec.py; the full form
stored before loads the same)."""
