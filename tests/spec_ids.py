"""The ids of the Wakkerdam spec and interfaces §3, written out from the documents (not the code).

Tests check the engine against these lists, so they are kept apart from `rules/` on purpose.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass

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

# interfaces §3: the special votes of scenario vote keys (``"Name:witte"``).
KEYWORDS = frozenset({"witte", "burgemeester"})

# The rejection codes a Wakkerdam scenario may expect.
REASONS = frozenset(
    {
        "not-asked",
        "unknown-player",
        "target-dead",
        "target-alive",
        "target-self",
        "target-jailed",
        "target-fool",
        "pack-member",
        "repeat",
        "taken",
        "wrong-count",
        "duplicate-target",
        "potion-used",
        "target-enchanted",
        "target-fluitspeler",
        "keyword-required",
        "no-special-vote",
        "not-wounded",
        "wounded",
    }
)


@dataclass(frozen=True)
class SpecIds:
    """The ids a ruleset's scenario files may use, written out from its rules document.

    ``options``: the ruleset's own top-level scenario keys; ``expect_keys``: keys the final
    object of its transcript has beyond interfaces §3 (checked only for presence of the key).
    """

    ruleset: str
    roles: frozenset[str]
    steps: frozenset[str]
    teams: frozenset[str]
    causes: frozenset[str]
    events: Mapping[str, frozenset[str]]
    keywords: frozenset[str]
    reasons: frozenset[str]
    options: frozenset[str] = frozenset()
    expect_keys: frozenset[str] = frozenset()

    def is_role(self, value: str) -> bool:
        """Whether a scenario's role value (a role id; a ruleset may compose them) is known."""
        return value in self.roles

    def role_parts(self, value: str) -> set[str]:
        """The role ids a scenario's role value stands for (a ruleset may compose them)."""
        return {value}

    def is_value(self, target: str) -> bool:
        """Whether a vote's target that is not a player is a valid value (a role id, a number)
        for this ruleset; Wakkerdam votes name players only."""
        return False


# Fields an event has only when they say something (a transcript leaves them out otherwise).
OPTIONAL_EVENT_FIELDS: Mapping[str, frozenset[str]] = {"saved": frozenset({"extra_life"})}

WAKKERDAM = SpecIds(
    ruleset="wakkerdam",
    roles=ROLE_IDS,
    steps=STEP_IDS,
    teams=TEAMS | PAIR_TEAMS,
    causes=CAUSES,
    events={
        kind: fields | OPTIONAL_EVENT_FIELDS.get(kind, frozenset())
        for kind, fields in EVENT_FIELDS.items()
    },
    keywords=KEYWORDS,
    reasons=REASONS,
    options=frozenset({"mayor"}),
    expect_keys=frozenset({"mayor"}),
)


def spec_ids(ruleset: str) -> SpecIds:
    """Return the ids of ``ruleset``.

    Wakkerdam's are here; another ruleset's in ``tests/spec_ids_<id>.py``, a module that defines
    ``IDS = SpecIds(...)``.  Raises LookupError for a ruleset without one.
    """
    if ruleset == WAKKERDAM.ruleset:
        return WAKKERDAM
    try:
        module = importlib.import_module(f"tests.spec_ids_{ruleset}")
    except ModuleNotFoundError as error:
        raise LookupError(
            f"no spec ids for ruleset {ruleset!r} (tests/spec_ids_{ruleset}.py)"
        ) from error
    ids: SpecIds = module.IDS
    return ids
