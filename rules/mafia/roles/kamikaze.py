"""Role `kamikaze` (Камикадзе, §15.19, optional): takes his night attacker with him."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.spec import ActionSpec, Holder, Values

SPEC = RoleSpec(
    id="kamikaze",
    team="red",
    flags=frozenset({"peaceful", "optional"}),
    description="Attacked at night, he dies and takes his attacker with him (a teammate is "
    "crippled instead); untouchable for the Prostitute, the Bodyguard and the Blocker.",
)

# Passive (rules.mafia.night: deaths).  A black or Faceless holder's `suicide X` (N10) takes X
# with him (rules.mafia.night: suicides, deaths); it replaces the black's own `suicide`.  A black
# holder's evening `victims` (peaceful role ids) takes his first red visitor holding one of them.
ACTIONS = (
    ActionSpec(action="suicide", group="suicide", min_names=0, holder=Holder.BLACK),
    ActionSpec(
        action="victims",
        group="victims",
        max_names=40,  # any number of role ids
        values=Values.ROLES,
        evening=True,
        holder=Holder.BLACK,
    ),
)
