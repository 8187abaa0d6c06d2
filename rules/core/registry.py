"""The explicit registry of rulesets: ``get_ruleset(id)``."""

from __future__ import annotations

import importlib
from typing import Any

from rules.core.ruleset import Ruleset

# Ruleset id -> module that defines RULESET.  Add a line here for a new ruleset.
_RULESETS: dict[str, str] = {
    "mafia": "rules.mafia",
    "wakkerdam": "rules.wakkerdam",
    "lupus": "rules.lupus",
    "vampiri": "rules.vampiri",
    "example": "rules.example",
}


class UnknownRuleset(LookupError):
    """Raised by :func:`get_ruleset` for an id that no ruleset has."""


def ruleset_ids() -> tuple[str, ...]:
    """Return the ids of every known ruleset."""
    return tuple(sorted(_RULESETS))


def get_ruleset(ruleset_id: str) -> Ruleset[Any]:
    """Return the ruleset with this id; raises UnknownRuleset for an unknown id."""
    module_name = _RULESETS.get(ruleset_id)
    if module_name is None:
        known = ", ".join(ruleset_ids())
        raise UnknownRuleset(f"unknown ruleset {ruleset_id!r} (known: {known})")
    module = importlib.import_module(module_name)
    ruleset: Ruleset[Any] = module.RULESET
    return ruleset
