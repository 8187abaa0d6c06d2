"""The supernatural powers of the Spettri (§1, §8.3): declarative specs, one per power word."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.lupus.spec import Frequency, Names, PowerSpec, power

_POWERS = (
    power("amnesia", Names.LIVING, Frequency.EVERY_NIGHT),
    power("confusione", (Names.ANY, Names.ANY), Frequency.EVERY_NIGHT),
    power("corruzione", Names.LIVING, Frequency.ONCE, mystic_only=True),
    power("illusione", (Names.ANY, Names.LIVING), Frequency.ALTERNATE),
    power("ipnosi", (Names.LIVING, Names.LIVING), Frequency.ALTERNATE),
    power("morte", Names.LIVING, Frequency.ALTERNATE, killing=True, mystic_only=True),
    power("occultamento", Names.ANY, Frequency.EVERY_NIGHT),
    power("visione", Names.LIVING, Frequency.EVERY_NIGHT),
)

GHOST_POWERS: Mapping[str, PowerSpec] = MappingProxyType({spec.id: spec for spec in _POWERS})
"""Supernatural power id -> spec."""
