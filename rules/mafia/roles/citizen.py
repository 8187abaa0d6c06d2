"""Role `citizen` (Мирный житель, RULING §2.1): a filler peaceful role without moves."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="citizen",
    team="red",
    flags=frozenset({"peaceful", "not_inherited"}),
    description="No move and no effect.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
