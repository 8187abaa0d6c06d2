"""The ids of the Wakkerdam spec and interfaces §3, written out from the documents (not the code).

Tests check the engine against these lists, so they are kept apart from `rules/` on purpose.
"""

from __future__ import annotations

from collections.abc import Mapping

ROLE_IDS = frozenset(
    {
        "burger",
        "cupido",
        "dief",
        "dorpsgek",
        "dorpsoudste",
        "dwaas",
        "fluitspeler",
        "genezer",
        "goochelaar",
        "grafrover",
        "heks",
        "jager",
        "klaas_vaak",
        "onschuldige_meisje",
        "opdrachtgever",
        "priester",
        "psychopaat",
        "raaf",
        "schout",
        "slet",
        "vampier",
        "verleidster",
        "waarschuwer",
        "weerwolf",
        "welp",
        "witte_weerwolf",
        "ziener",
        "zondebok",
    }
)

# spec §3: the order of play.
STEP_ORDER = (
    "dief",
    "cupido",
    "opdrachtgever",
    "grafrover",
    "klaas_vaak",
    "nacht",
    "heks",
    "ochtend",
    "doden",
    "burgemeesterverkiezing",
    "brandstapel",
    "na_brandstapel",
)
STEP_IDS = frozenset(STEP_ORDER)

# spec §9: the teams; the pair conditions are reported as "lovers" / "bodyguard".
TEAMS = frozenset({"burgers", "weerwolven", "vampiers", "fluitspelers", "eigen"})
PAIR_TEAMS = frozenset({"lovers", "bodyguard"})

# spec §8: the causes of death.
CAUSES = frozenset(
    {
        "weerwolven",
        "vampiers",
        "psychopaat",
        "witte_weerwolf",
        "gif",
        "jager",
        "brandstapel",
        "liefdesverdriet",
        "lijfwacht",
        "inactiviteit",
    }
)

# interfaces §3: event type -> its fields.
EVENT_FIELDS: Mapping[str, frozenset[str]] = {
    "death": frozenset({"player", "cause"}),
    "saved": frozenset({"player"}),
    "role_change": frozenset({"player", "role"}),
    "lovers": frozenset({"players"}),
    "bodyguard": frozenset({"player", "guards"}),
    "asleep": frozenset({"player"}),
    "seen": frozenset({"player", "target", "role"}),
    "burns": frozenset({"player", "target", "value"}),
    "tally": frozenset({"player", "pack", "counts"}),
    "enchanted": frozenset({"player"}),
    "warned": frozenset({"player"}),
    "marked": frozenset({"player"}),
    "jailed": frozenset({"player"}),
    "guilty": frozenset({"players"}),
    "mayor": frozenset({"player", "via"}),
    "no_mayor": frozenset(),
    "fool_revealed": frozenset({"player"}),
    "lynch": frozenset({"player", "totals"}),
    "inactive": frozenset({"player", "missed"}),
    "rejected": frozenset({"player", "reason"}),
    "win": frozenset({"teams", "winners"}),
}
