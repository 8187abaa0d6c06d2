"""The night's actions (§6 stage 0): one per vote in force that names somebody."""

from __future__ import annotations

from dataclasses import dataclass

from rules.lupus.actions import night_power
from rules.lupus.state import GameState


@dataclass(frozen=True)
class Action:
    """One action in force at dawn: ``power`` is the user's role id or supernatural power id.

    ``word`` is the Negromante's power word; ``ghost`` marks a Spettro's supernatural power.
    """

    index: int
    user: str
    seat: int
    power: str
    names: tuple[str, ...]
    ghost: bool
    word: str | None = None

    @property
    def first(self) -> str:
        """The first name: the only one that counts as "acting on" (seed 001 FAQ 15)."""
        return self.names[0]


def night_actions(state: GameState) -> tuple[Action, ...]:
    """Return the actions in force, in seat order of their users (a blank vote is no action)."""
    votes = state.vote_map()
    found: list[Action] = []
    for seat, player in enumerate(state.players):
        spec = night_power(state, player)
        if spec is None:
            continue
        for key, names in votes.items():
            voter, _, word = key.partition(":")
            if voter != player.name or word in ("sindaco", "successore") or not names:
                continue
            found.append(
                Action(
                    index=len(found),
                    user=player.name,
                    seat=seat,
                    power=spec.id,
                    names=names,
                    ghost=not player.alive,
                    word=word or None,
                )
            )
    return tuple(found)
