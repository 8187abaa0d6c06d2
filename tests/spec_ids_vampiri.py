"""The ids of the vampiri rules (docs/rules/vampiri.md), written out from the document.

Tests check the engine against these lists, so they are kept apart from `rules/` on purpose.
"""

from __future__ import annotations

from collections.abc import Mapping

from tests.spec_ids import SpecIds

# "Roles": the 15 roles in play (placeholders and reserved ids are not roles).
ROLE_IDS = frozenset(
    {
        "vampiro",
        "re",
        "principe",
        "conte",
        "lamia",
        "regina",
        "nosferatu",
        "banshee",
        "licantropo",
        "kitsune",
        "cacciatore",
        "monaco",
        "leader",
        "esploratore",
        "bella",
    }
)

STEP_IDS = frozenset({"votazione", "spareggio", "decisione", "giorno"})
TEAMS = frozenset({"vampiri", "cacciatori", "lupi_mannari"})
CAUSES = frozenset({"giustiziato", "ucciso", "inattivita", "rimosso"})
CATEGORIES = frozenset(
    {"vampiro", "vampiro_maggiore", "cacciatore", "cacciatore_maggiore", "lupo_mannaro"}
)

# "Events": type -> fields.
EVENT_FIELDS: Mapping[str, frozenset[str]] = {
    "execution": frozenset({"player", "totals"}),
    "tie": frozenset({"players", "totals"}),
    "verdict": frozenset({"value", "counts", "players"}),
    "blocked": frozenset({"player"}),
    "hunt": frozenset({"target", "hunters"}),
    "investigation": frozenset({"player", "target", "category"}),
    "silenced": frozenset({"player"}),
    "hunters": frozenset({"player", "players"}),
    "death": frozenset({"player", "cause"}),
    "inactive": frozenset({"player", "missed"}),
    "removed": frozenset({"player"}),  # an admin's removal (ruling 30), never in a scenario
    "rejected": frozenset({"player", "reason"}),
    "win": frozenset({"teams", "winners"}),
}

KEYWORDS = frozenset({"caccia", "visita", "ospita", "agguato", "condanna", "risparmia"})

# "Rejection codes", in their order of precedence.
REASON_ORDER = (
    "not-asked",
    "no-special-vote",
    "keyword-conflict",
    "keyword-required",
    "wrong-count",
    "duplicate-target",
    "unknown-player",
    "target-dead",
    "target-self",
    "not-candidate",
    "target-ally",
    "required",
)

# "Settings": the ruleset's own top-level scenario keys (``mayor`` may only be false).
OPTIONS = frozenset(
    {"secret_vote", "tourist_hunters", "lone_hunter", "wolf_den", "undercover", "mayor"}
)

IDS = SpecIds(
    ruleset="vampiri",
    roles=ROLE_IDS,
    steps=STEP_IDS,
    teams=TEAMS,
    causes=CAUSES,
    events=EVENT_FIELDS,
    keywords=KEYWORDS,
    reasons=frozenset(REASON_ORDER),
    options=OPTIONS,
    expect_keys=frozenset({"mayor"}),
)
