"""The explicit registry of Wakkerdam roles: one module per role, listed here."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.core.model import RoleSpec
from rules.wakkerdam.roles import (
    burger,
    cupido,
    dief,
    dorpsgek,
    dorpsoudste,
    dwaas,
    fluitspeler,
    genezer,
    goochelaar,
    grafrover,
    heks,
    jager,
    klaas_vaak,
    onschuldige_meisje,
    opdrachtgever,
    priester,
    psychopaat,
    raaf,
    schout,
    slet,
    vampier,
    verleidster,
    waarschuwer,
    weerwolf,
    welp,
    witte_weerwolf,
    ziener,
    zondebok,
)
from rules.wakkerdam.spec import ActionSpec

_MODULES = (
    burger,
    cupido,
    dief,
    dorpsgek,
    dorpsoudste,
    dwaas,
    fluitspeler,
    genezer,
    goochelaar,
    grafrover,
    heks,
    jager,
    klaas_vaak,
    onschuldige_meisje,
    opdrachtgever,
    priester,
    psychopaat,
    raaf,
    schout,
    slet,
    vampier,
    verleidster,
    waarschuwer,
    weerwolf,
    welp,
    witte_weerwolf,
    ziener,
    zondebok,
)

ROLES: Mapping[str, RoleSpec] = MappingProxyType({m.SPEC.id: m.SPEC for m in _MODULES})
"""Role id -> spec, in id order."""

ROLE_ACTIONS: Mapping[str, tuple[ActionSpec, ...]] = MappingProxyType(
    {m.SPEC.id: m.ACTIONS for m in _MODULES}
)
"""Role id -> the votes the role casts (its own step; the jager's shot after death)."""

EVIL: frozenset[str] = frozenset(role.id for role in ROLES.values() if role.has("evil"))
BURNS: frozenset[str] = frozenset(role.id for role in ROLES.values() if role.has("burns"))


def _grouped(prefix: str) -> Mapping[str, frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for role in ROLES.values():
        for flag in role.flags:
            if flag.startswith(prefix):
                groups.setdefault(flag.removeprefix(prefix), set()).add(role.id)
    return MappingProxyType({name: frozenset(ids) for name, ids in groups.items()})


PACKS: Mapping[str, frozenset[str]] = _grouped("pack:")
"""Pack -> its roles (flag ``pack:<name>``): they wake and choose together, and their own pack
may not name them (``pack-member``)."""

CIRCLES: Mapping[str, frozenset[str]] = _grouped("circle:")
"""Circle -> its roles (flag ``circle:<name>``): at the start each knows the others (spec §10)."""
