"""The example's roles: one declarative spec each (their words live in the story packs)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.core.model import RoleSpec

# Teams (their words are in stories/example/<lang>/words.toml).
LUPI = "lupi"
VILLAGGIO = "villaggio"

LUPO = RoleSpec(
    id="lupo",
    team=LUPI,
    step="notte",
    flags=frozenset({"pack"}),  # wakes with the pack, knows the others
    description="At night the wolves together choose a victim, or spare everybody.",
)
VEGGENTE = RoleSpec(
    id="veggente",
    team=VILLAGGIO,
    step="notte",
    description="At night learns the team of one living player.",
)
CONTADINO = RoleSpec(id="contadino", team=VILLAGGIO, description="Votes by day; no power.")

ROLES: Mapping[str, RoleSpec] = MappingProxyType(
    {spec.id: spec for spec in (LUPO, VEGGENTE, CONTADINO)}
)
"""Role id -> spec: the explicit registry of the ruleset's roles."""
