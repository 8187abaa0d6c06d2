"""The ids of the Lupus spec (docs/rules/lupus.md), written out from the document, not the code.

The scenario suite checks tests/scenarios/lupus/ against these lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tests.spec_ids import SpecIds

# §1: the roles, the extra Cacciatore included.
ROLES = frozenset(
    {
        "contadino",
        "custode",
        "divinatore",
        "esorcista",
        "espansivo",
        "guardia",
        "investigatore",
        "mago",
        "massone",
        "messia",
        "sciamano",
        "stalker",
        "trasformista",
        "veggente",
        "voyeur",
        "cacciatore",
        "lupo",
        "assassino",
        "avvocato",
        "diavolo",
        "fattucchiera",
        "necrofilo",
        "rinnegato",
        "sequestratore",
        "stregone",
        "negromante",
        "fantasma",
        "ipnotista",
        "medium",
        "scrutatore",
    }
)

# §1: the supernatural powers, which are also the Negromanti's power words (§12).
POWERS = frozenset(
    {
        "amnesia",
        "confusione",
        "corruzione",
        "illusione",
        "ipnosi",
        "morte",
        "occultamento",
        "visione",
    }
)

# §13.2: event type -> fields.
EVENTS: Mapping[str, frozenset[str]] = {
    "role": frozenset({"player", "role", "team", "mates"}),
    "knows": frozenset({"player", "target", "role", "power"}),
    "propositions": frozenset({"player", "statements"}),
    "outcome": frozenset({"player", "power", "success"}),
    "aura": frozenset({"player", "target", "aura"}),
    "mystic": frozenset({"player", "target", "value"}),
    "seen": frozenset({"player", "target", "role"}),
    "visitors": frozenset({"player", "target", "count"}),
    "tracked": frozenset({"player", "target", "visited"}),
    "watched": frozenset({"player", "target", "visitors"}),
    "ghost": frozenset({"player", "power", "via"}),
    "no_ghost": frozenset({"player"}),
    "resurrected": frozenset({"player"}),
    "role_change": frozenset({"player", "role"}),
    "death": frozenset({"player", "cause"}),
    "election": frozenset({"player", "totals"}),
    "mayor": frozenset({"player", "via"}),
    "lynch": frozenset({"player", "totals", "ballots", "failed"}),
    "defeat": frozenset({"team", "players"}),
    "exile": frozenset({"player", "cause"}),
    "inactive": frozenset({"player", "missed"}),
    "rejected": frozenset({"player", "reason"}),
    "win": frozenset({"teams", "winners"}),
}

# §5.2: the rejection codes.
REASONS = frozenset(
    {
        "not-asked",
        "unknown-player",
        "wrong-count",
        "duplicate-target",
        "target-self",
        "target-dead",
        "target-alive",
        "target-exiled",
        "power-missing",
        "power-taken",
    }
)


@dataclass(frozen=True)
class LupusIds(SpecIds):
    """Lupus ids: a ``knows`` event's role may be null (a Spettro's power only, §13.2)."""

    def is_role(self, value: str | None) -> bool:  # type: ignore[override]
        """Whether ``value`` is a role id, or None (allowed only in event patterns)."""
        return value is None or value in self.roles


IDS = LupusIds(
    ruleset="lupus",
    roles=ROLES,
    steps=frozenset({"notte", "giorno"}),
    teams=frozenset({"popolani", "lupi", "negromanti"}),
    causes=frozenset({"lupi", "assassino", "morte", "cacciatore", "rogo"}),
    events=EVENTS,
    keywords=frozenset({"sindaco", "successore"}) | POWERS,
    reasons=REASONS,
    options=frozenset({"mayor", "sindaco"}),
    expect_keys=frozenset({"mayor"}),
)
