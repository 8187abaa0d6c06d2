"""Role `faceless` (Безликий, §16.6, optional): the grey solo player who slashes every night."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="faceless",
    team="grey",
    step="night",
    flags=frozenset({"grey", "optional"}),
    description="In neither team: each night slashes a victim (her role is blocked until her "
    "target is lynched); wins by surviving until enough players have died.",
)

ACTIONS = (
    ActionSpec(
        action="slash",
        group="slash",
        min_names=0,
        max_names=2,
        allow_self=True,
        secretary_untouchable=True,
    ),
)
