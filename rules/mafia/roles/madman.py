"""Role `madman` (Безумец, §15.20, optional): from night 3 a fire that stops later moves."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec, Holder

SPEC = RoleSpec(
    id="madman",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Once, from night 3: a fire stops every later peaceful move; the players he "
    "names die with him.",
)

# A Faceless holder names no victims: his fire burns alone, or with his lone `suicide` (§16.6).
ACTIONS = (
    ActionSpec(action="fire", group="fire", min_names=0, max_names=2, default=True),
    ActionSpec(action="suicide", group="suicide", min_names=0, max_names=0, holder=Holder.BLACK),
)
