"""Role `genezer` (Genezer): its declarative spec and the votes it casts."""

from __future__ import annotations

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="genezer",
    team=Team.BURGERS,
    step="nacht",
    no_repeat=True,
    description="Protects one player from every attack of the night.",
)

ACTIONS = (ActionSpec(action="genezer", step="nacht", no_repeat=True),)
