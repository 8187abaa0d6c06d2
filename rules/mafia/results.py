"""What a night resolution collects for the morning, and the colours checks read (§1.2)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from rules.core.events import Event
from rules.mafia.events import InvestigatorCopy
from rules.mafia.ids import SIDE_OF_ROLE, WEREWOLVES, Colour
from rules.mafia.moves import Move, Night
from rules.mafia.state import Confirm, GameState, RoleMemory


@dataclass
class Results:
    """The private results being collected for one morning.

    Created by :func:`rules.mafia.night_results.finish_night` for one resolution and never
    escaping it: the result functions add to it in slot order.
    """

    events: list[Event] = field(default_factory=list)
    memory: dict[str, RoleMemory] = field(default_factory=dict)
    confirms: list[Confirm] = field(default_factory=list)
    copies: list[InvestigatorCopy] = field(default_factory=list)

    def remember(self, role: str, event: Event, **changes: object) -> None:
        """Add ``event`` to the history of ``role`` (and apply memory ``changes``)."""
        memory = self.memory[role]
        history = (*memory.history, json.dumps(event.to_dict(), sort_keys=True))
        self.memory[role] = replace(memory, history=history, **changes)  # type: ignore[arg-type]


def cause_of(move: Move) -> str:
    """The death cause of a credited attack (§7.7): a black's kill (or insurance) is his side's,
    the Son of the Boss's too (`mafia`)."""
    if move.action == "suicide":
        return "suicide"
    side = SIDE_OF_ROLE.get(move.role) if move.negative else None
    return side.value if side is not None else move.role


def killing_role(move: Move) -> str:
    """The role whose move killed (§15.22): a side for a black's kill, his role for a suicide."""
    return move.role if move.action == "suicide" else cause_of(move)


COLOURLESS_ROLES = frozenset({"politician", "terrorist", "hypnotist"})
"""Peaceful roles on which colour checks and comparisons give "not provided" (§15.1, §15.6,
§15.18)."""


def is_colourless(night: Night, name: str) -> bool:
    """Whether colour checks and comparisons on ``name`` give "not provided" tonight: he is
    crippled (§8.4), holds a colourless role, or is under the Politician's patronage (§15.1)."""
    player = night.state.get(name)
    patron = night.patron is not None and night.patron.target == name
    return player.crippled or player.peaceful in COLOURLESS_ROLES or patron


def true_colour(state: GameState, checker: str, target: str) -> Colour:
    """What a verification reads (§1.2): black for every black, never for a self-check."""
    return Colour.BLACK if state.get(target).is_black and target != checker else Colour.RED


def check_colour(night: Night, checker: str, target: str) -> Colour:
    """A target's check colour tonight (§1.2): self red, team colour, a rumour blackens, a passed
    Joker check earlier tonight flips it (§16.2)."""
    colour = _base_colour(night, checker, target)
    if target in night.flipped:
        return Colour.RED if colour is Colour.BLACK else Colour.BLACK
    return colour


def is_fake_red(night: Night, name: str) -> bool:
    """Whether a werewolf reads `red` tonight: no credited kill yet, none tonight (§16)."""
    player = night.state.get(name)
    if player.negative not in WEREWOLVES or name in night.state.wolf_kills:
        return False
    return not any(m.owner == name and m.kill for m in night.deaths.values())


def _base_colour(night: Night, checker: str, target: str) -> Colour:
    if target in night.rumours:
        return Colour.BLACK
    if target == checker:
        return Colour.RED
    player = night.state.get(target)
    # The Son of the Boss always reads red ("clean hands", §16.1); a black Inquisitor reads red
    # after burning a black, until he burns a red (§15.10).
    if player.negative == "son_of_boss" or is_fake_red(night, target):
        return Colour.RED
    if player.peaceful == "inquisitor" and night.state.memory_of("inquisitor").reads_red:
        return Colour.RED
    spared = night.state.memory_of("hero").spared  # a black Hero's saved red lives (§15.16)
    if player.peaceful == "hero" and spared is not None and night.state.get(spared).alive:
        return Colour.RED
    return Colour.BLACK if player.is_black else Colour.RED
