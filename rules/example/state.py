"""The example's game state: players and the step, immutable, with a JSON dump."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated

from rules.core.codec import AS_PAIRS, StateCodec
from rules.core.model import Settings

RULESET_ID = "example"


@dataclass(frozen=True)
class Player:
    """One player: name, role, gender, life, and the day votes he missed in a row."""

    name: str
    role: str
    gender: str | None = None
    alive: bool = True
    missed: int = 0


@dataclass(frozen=True)
class GameState:
    """A whole game at one moment.  ``step`` is None once the game is over.

    ``votes`` maps a vote key (``Name`` or ``Name:risparmia``) to the names voted (``()``:
    blank), in the order the final votes arrived.
    """

    settings: Settings
    players: tuple[Player, ...]
    step: str | None = None
    night: int = 0
    day: int = 0
    votes: Annotated[Mapping[str, tuple[str, ...]], AS_PAIRS] = field(default_factory=dict)
    draws: int = 0
    winners: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.step is None

    def find(self, name: str) -> Player | None:
        """Return the player called ``name`` (exactly), or None."""
        return next((player for player in self.players if player.name == name), None)

    def with_player(self, player: Player) -> GameState:
        """Return this state with ``player`` replacing the player of the same name."""
        players = tuple(player if p.name == player.name else p for p in self.players)
        return replace(self, players=players)


CODEC: StateCodec[GameState] = StateCodec(GameState, ruleset=RULESET_ID)
"""The state to and from its stored JSON form (sparse, see rules/core/codec.py; the full form
stored before loads the same)."""
