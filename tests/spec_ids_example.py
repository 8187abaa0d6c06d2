"""The ids of the example ruleset, written out from docs/rules/example.md (not the code)."""

from __future__ import annotations

from tests.spec_ids import SpecIds

IDS = SpecIds(
    ruleset="example",
    roles=frozenset({"lupo", "veggente", "contadino"}),
    steps=frozenset({"giorno", "notte"}),
    teams=frozenset({"villaggio", "lupi"}),
    causes=frozenset({"lupi", "rogo", "inattivita"}),
    events={
        "death": frozenset({"player", "cause"}),
        "lynch": frozenset({"player", "totals"}),
        "spared": frozenset(),
        "visione": frozenset({"player", "target", "team"}),
        "inactive": frozenset({"player", "missed"}),
        "rejected": frozenset({"player", "reason"}),
        "win": frozenset({"teams", "winners"}),
    },
    keywords=frozenset({"risparmia"}),
    reasons=frozenset(
        {
            "not-asked",
            "no-special-vote",
            "wrong-count",
            "unknown-player",
            "target-dead",
            "target-self",
            "pack-member",
        }
    ),
)
