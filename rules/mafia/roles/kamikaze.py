"""Role `kamikaze` (Камикадзе, §15.19, optional): takes his night attacker with him."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="kamikaze",
    team="red",
    flags=frozenset({"peaceful", "optional"}),
    description="Attacked at night, he dies and takes his attacker with him (a teammate is "
    "crippled instead); untouchable for the Prostitute, the Bodyguard and the Blocker.",
)

# Passive (rules.mafia.night: deaths).  The black holder's evening `victims` and `suicide X` are
# not implemented (docs/rules/mafia.md, Rulings).
ACTIONS: tuple[ActionSpec, ...] = ()
