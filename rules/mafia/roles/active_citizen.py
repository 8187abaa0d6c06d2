"""Role `active_citizen` (Активный житель, §8.3): inherits a role freed by a death."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="active_citizen",
    team="red",
    flags=frozenset({"peaceful", "not_inherited", "heir"}),
    description="Takes over a peaceful role freed by a death, at once.",
)

ACTIONS: tuple[ActionSpec, ...] = ()
