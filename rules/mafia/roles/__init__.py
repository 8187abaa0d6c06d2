"""The explicit registry of Mafia roles: id -> declarative spec and night actions."""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.model import RoleSpec
from rules.mafia.roles import (
    active_citizen,
    advocate,
    agent,
    blocker,
    bodyguard,
    bum,
    citizen,
    commissar,
    criminalist,
    cultist,
    detective,
    doctor,
    drug_dealer,
    executor,
    faceless,
    fanatic,
    geisha,
    hacker,
    hero,
    hypnotist,
    immortal,
    inquisitor,
    investigator,
    joker,
    journalist,
    judge,
    kamikaze,
    liar,
    madman,
    mafia,
    maniac,
    mason,
    poisoner,
    politician,
    priest,
    prostitute,
    son_of_boss,
    terrorist,
    witness,
)
from rules.mafia.spec import ActionSpec

_MODULES = (
    citizen,
    active_citizen,
    doctor,
    blocker,
    commissar,
    detective,
    investigator,
    hacker,
    journalist,
    immortal,
    criminalist,
    bodyguard,
    drug_dealer,
    judge,
    liar,
    advocate,
    inquisitor,
    hero,
    fanatic,
    bum,
    cultist,
    mafia,
    maniac,
    son_of_boss,
    witness,
    politician,
    prostitute,
    terrorist,
    priest,
    hypnotist,
    kamikaze,
    madman,
    joker,
    poisoner,
    executor,
    geisha,
    agent,
    mason,
    faceless,
)

ROLES: Mapping[str, RoleSpec] = {module.SPEC.id: module.SPEC for module in _MODULES}
ACTIONS: Mapping[str, tuple[ActionSpec, ...]] = {
    module.SPEC.id: module.ACTIONS for module in _MODULES
}
PEACEFUL = tuple(role for role, spec in ROLES.items() if spec.has("peaceful"))
NEGATIVE = tuple(role for role, spec in ROLES.items() if spec.has("negative"))
ELITE = tuple(role for role, spec in ROLES.items() if spec.has("elite"))
# Roles that go to an heir when their holder dies (§8.3).
INHERITED = frozenset(role for role in PEACEFUL if not ROLES[role].has("not_inherited"))
