"""Role `dwaas` (Dwaas): its declarative spec, the votes it casts and what his visions may show."""

from __future__ import annotations

from collections.abc import Iterable

from rules.core.model import RoleSpec
from rules.wakkerdam.spec import ActionSpec, Team

SPEC = RoleSpec(
    id="dwaas",
    team=Team.BURGERS,
    step="nacht",
    description="Believes he is a ziener, but every vision shows a wrong role.",
)

ACTIONS = (ActionSpec(action="dwaas", step="nacht", allow_self=False),)


def vision_options(dealt: Iterable[str], real: str) -> list[str]:
    """Return the roles a Dwaas's vision of a player whose real role is ``real`` may show, sorted.

    He believes he is a Ziener and must not learn otherwise: never ``real``, never ``ziener``
    (with one Ziener dealt, another would give him away) and never his own ``dwaas`` (with one
    Dwaas dealt, it points at nobody but himself) unless no other dealt role is left; ``burger``
    when nothing is, which happens only when ``real`` is ``dwaas``, as ``dealt`` holds the
    viewer's ``dwaas`` (docs/rules/wakkerdam.md, ruling 16).
    """
    believable = set(dealt) - {"ziener", real}
    for pool in (believable - {"dwaas"}, believable):
        if pool:
            return sorted(pool)
    return ["burger"]
