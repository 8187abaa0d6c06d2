"""The explicit registry of Lupus roles: one module per role, listed here."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.core.model import RoleSpec
from rules.lupus.roles import (
    assassino,
    avvocato,
    cacciatore,
    contadino,
    custode,
    diavolo,
    divinatore,
    esorcista,
    espansivo,
    fantasma,
    fattucchiera,
    guardia,
    investigatore,
    ipnotista,
    lupo,
    mago,
    massone,
    medium,
    messia,
    necrofilo,
    negromante,
    rinnegato,
    sciamano,
    scrutatore,
    sequestratore,
    stalker,
    stregone,
    trasformista,
    veggente,
    voyeur,
)
from rules.lupus.spec import LupusRole

_MODULES = (
    contadino,
    custode,
    divinatore,
    esorcista,
    espansivo,
    guardia,
    investigatore,
    mago,
    massone,
    messia,
    sciamano,
    stalker,
    trasformista,
    veggente,
    voyeur,
    cacciatore,
    lupo,
    assassino,
    avvocato,
    diavolo,
    fattucchiera,
    necrofilo,
    rinnegato,
    sequestratore,
    stregone,
    negromante,
    fantasma,
    ipnotista,
    medium,
    scrutatore,
)

LUPUS_ROLES: Mapping[str, LupusRole] = MappingProxyType({m.SPEC.id: m.SPEC for m in _MODULES})
"""Role id -> Lupus spec, in the order of the role table (§1)."""

ROLES: Mapping[str, RoleSpec] = MappingProxyType(
    {role_id: spec.role_spec() for role_id, spec in LUPUS_ROLES.items()}
)
"""Role id -> the core's role spec."""
