"""Role `hypnotist` (Гипнотизер, §15.18, optional): redirects the moves aimed at him (N5)."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="hypnotist",
    team="red",
    step="night",
    flags=frozenset({"peaceful", "optional"}),
    description="Sends every later move aimed at him on to another player, or halts them.",
)

ACTIONS = (
    ActionSpec(action="hypnotize", group="hypnosis", default=True),
    ActionSpec(action="halt", group="hypnosis", min_names=0, max_names=0),
)
