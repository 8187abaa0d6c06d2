"""A private working copy of the state while one step resolves (pure from the outside)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

from rules.core.events import Event
from rules.core.rng import draw_from
from rules.wakkerdam.state import GameState, Player

T = TypeVar("T")


class Board:
    """Collects the changes, events and trace of one resolution; ``freeze`` returns the state.

    Only :func:`rules.wakkerdam.engine.resolve` creates one, from a state it does not change.
    """

    def __init__(self, state: GameState) -> None:
        self.start = state
        self.players: list[Player] = list(state.players)
        self.index = state.index
        self.events: list[Event] = []
        self.trace: list[str] = []
        self.changed = False
        self.draws = state.draws
        self.fields: dict[str, Any] = {}

    def get(self, name: str) -> Player:
        """Return the current version of the named player."""
        return self.players[self.index[name]]

    def update(self, name: str, **changes: Any) -> Player:
        """Replace fields of the named player; return the new version."""
        player = replace(self.get(name), **changes)
        self.players[self.index[name]] = player
        return player

    def put(self, player: Player) -> None:
        """Store a new version of a player."""
        self.players[self.index[player.name]] = player

    def value(self, name: str) -> Any:
        """Return a state field as changed so far in this resolution."""
        return self.fields.get(name, getattr(self.start, name))

    def set(self, **fields: Any) -> None:
        """Change state fields (applied by ``freeze``)."""
        self.fields.update(fields)

    def emit(self, *events: Event) -> None:
        """Append events, in order."""
        self.events.extend(events)

    def note(self, line: str) -> None:
        """Add a trace line."""
        self.trace.append(line)

    def draw(self, items: Sequence[T]) -> T:
        """Return a deterministic random item and advance the draw counter."""
        item = draw_from(self.start.settings.seed, self.draws, items)
        self.draws += 1
        return item

    def living(self) -> list[Player]:
        """Return the living players now, in seat order."""
        return [player for player in self.players if player.alive]

    def freeze(self) -> GameState:
        """Return the new state with every change applied."""
        return replace(self.start, players=tuple(self.players), draws=self.draws, **self.fields)
