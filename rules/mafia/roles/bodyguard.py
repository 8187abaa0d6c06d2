"""Role `bodyguard` (Телохранитель, §15.3, optional): takes the attacks on his ward at N6."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec, Holder

SPEC = RoleSpec(
    id="bodyguard",
    team="red",
    step="night",
    no_repeat=True,
    flags=frozenset({"peaceful", "optional"}),
    description="Guards a player: a red one dies in his place; a black one dooms him.",
)

ACTIONS = (
    ActionSpec(action="guard", group="guard", default=True),
    # A black holder's extras, sent with his guard: let the Doctor and the Blocker save the ward,
    # and be seen elsewhere by trackers when the ward is attacked.
    ActionSpec(action="allow", group="allow", min_names=0, max_names=0, holder=Holder.BLACK),
    ActionSpec(action="alibi", group="alibi", holder=Holder.BLACK),
)
