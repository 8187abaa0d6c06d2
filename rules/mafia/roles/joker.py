"""Role `joker` (Джокер, §16.2, optional): a werewolf whose colour check flips the colour."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.roles import mafia
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="joker",
    team="black",
    step="night",
    flags=frozenset({"negative", "optional", "werewolf"}),
    description="Checks a player's colour at N15 and flips it for every later check that night; "
    "the killing sides learn his results.",
)

# His check (N15), and the moves of every black: suicide and approval (§7.4.10).
ACTIONS = (
    ActionSpec(action="joker", group="joker", secretary_untouchable=True),
    *(spec for spec in mafia.ACTIONS if spec.action in ("kill", "suicide", "approve")),
)
