"""The example's game state: players and the step, immutable, with a JSON dump."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

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
    votes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
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


def dump_state(state: GameState) -> dict[str, Any]:
    """Return the state as a JSON-safe dict (see :func:`load_state`)."""
    return {
        "ruleset": RULESET_ID,
        "settings": state.settings.to_dict(),
        "players": [
            {
                "name": p.name,
                "role": p.role,
                "gender": p.gender,
                "alive": p.alive,
                "missed": p.missed,
            }
            for p in state.players
        ],
        "step": state.step,
        "night": state.night,
        "day": state.day,
        "votes": [[key, list(names)] for key, names in state.votes.items()],
        "draws": state.draws,
        "winners": list(state.winners),
        "teams": list(state.teams),
    }


def load_state(data: Mapping[str, Any]) -> GameState:
    """Return the state of :func:`dump_state`'s dict; KeyError/ValueError when malformed."""
    if data.get("ruleset") != RULESET_ID:
        raise ValueError(f"not an {RULESET_ID} state: {data.get('ruleset')!r}")
    return GameState(
        settings=Settings.from_dict(data["settings"]),
        players=tuple(
            Player(
                name=str(p["name"]),
                role=str(p["role"]),
                gender=p.get("gender"),
                alive=bool(p["alive"]),
                missed=int(p["missed"]),
            )
            for p in data["players"]
        ),
        step=data.get("step"),
        night=int(data["night"]),
        day=int(data["day"]),
        votes={str(key): tuple(str(n) for n in names) for key, names in data["votes"]},
        draws=int(data["draws"]),
        winners=tuple(str(n) for n in data["winners"]),
        teams=tuple(str(t) for t in data["teams"]),
    )
