"""Role `geisha` (Гейша, §16.5, optional): a werewolf who keeps a client company; the Maniac's
katana passes to her."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.mafia.roles import mafia
from rules.mafia.spec import ActionSpec

SPEC = RoleSpec(
    id="geisha",
    team="black",
    step="night",
    flags=frozenset({"negative", "optional", "werewolf"}),
    description="Keeps a client company at N3 (his peaceful moves are stopped, moves on him fail); "
    "when the Maniac dies she takes his katana and kills in his place.",
)

# `company` (N3); `kill` only with the katana, `insure` (cross-side, for the Maniac) only on the
# Maniac's nights without it (rules.mafia.actions); the moves of every black.
ACTIONS = (
    ActionSpec(action="company", group="company", allow_self=True),
    ActionSpec(action="kill", group="kill", kill=True, secretary_untouchable=True),
    ActionSpec(action="insure", group="insure", secretary_untouchable=True),
    *(spec for spec in mafia.ACTIONS if spec.action in ("suicide", "approve")),
)
