"""What the information powers read (§6.3): apparent aura, mystic and role."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.lupus.ids import BIANCA, NERA
from rules.lupus.state import GameState


@dataclass(frozen=True)
class Look:
    """How a player appears tonight."""

    aura: str
    mystic: bool
    role: str


def apparent(
    snapshot: GameState,
    name: str,
    confusions: Mapping[str, str],
    flips: Mapping[str, int],
) -> Look:
    """Return how ``name`` appears: a look-alike's snapshot if confused, then the aura flipped
    once per succeeding Fattucchiera on ``name`` (seed 001 FAQ 11, 41-42)."""
    source = snapshot.get(confusions.get(name, name))
    aura = source.aura
    if flips.get(name, 0) % 2:
        aura = NERA if aura == BIANCA else BIANCA
    return Look(aura=aura, mystic=source.mystic, role=source.role)
