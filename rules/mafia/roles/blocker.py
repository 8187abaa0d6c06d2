"""Role `blocker` (Блокер, §7.5): arrests or protects one player at N2."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="blocker",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "public_result"}),
    description="Arrests a player (stops his moves) or protects him (repels attacks).",
)

# No default: a mail without `arrest` or `protect` is refused (mode-required, §5.1).
ACTIONS = (
    ActionSpec(action="arrest", group="block"),
    ActionSpec(action="protect", group="block"),
)
