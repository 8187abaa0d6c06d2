"""The default of every stored record field, pinned: the sparse stored form leaves a field at its
default out, so a stored game's meaning depends on these defaults (see rules/core/codec.py)."""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Mapping
from typing import Any

import pytest

from rules.core.codec import dump
from rules.core.model import Settings
from rules.core.registry import get_ruleset, ruleset_ids


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""A field without default: always written."""

# Per ruleset, every record (dataclass) a stored state holds, by module and name: each stored
# field in field order, with its default in JSON form (a ``default_factory``'s value), or
# REQUIRED.  Settings is no record here: it is always written whole (Settings.to_dict).
#
# DO NOT EDIT a default here to make the test pass.  A state is stored without the fields at
# their defaults: a game stored while a field held its old default loads it with the new one.
# Changing a default needs a migration of the stored states (write the old default into every
# stored record lacking the field) in the same change; only then update this table.
STORED_DEFAULTS: dict[str, dict[str, dict[str, Any]]] = {
    "example": {
        "rules.example.state.GameState": {
            "settings": REQUIRED,
            "players": REQUIRED,
            "step": None,
            "night": 0,
            "day": 0,
            "votes": [],
            "draws": 0,
            "winners": [],
            "teams": [],
        },
        "rules.example.state.Player": {
            "name": REQUIRED,
            "role": REQUIRED,
            "gender": None,
            "alive": True,
            "missed": 0,
        },
    },
    "lupus": {
        "rules.lupus.state.GameState": {
            "settings": REQUIRED,
            "players": REQUIRED,
            "step": REQUIRED,
            "night": REQUIRED,
            "day": REQUIRED,
            "draws": 0,
            "votes": [],
            "has_mayor": False,
            "mayor": None,
            "successor": None,
            "assigned": [],
            "defeated": [],
            "marks": {},
            "propositions": [],
            "winners": [],
            "teams": [],
        },
        "rules.lupus.state.Player": {
            "name": REQUIRED,
            "role": REQUIRED,
            "faction": REQUIRED,
            "aura": REQUIRED,
            "mystic": REQUIRED,
            "gender": None,
            "status": "alive",
            "ghost_power": None,
            "role_uses": [],
            "ghost_uses": [],
            "controller": None,
            "death_faction": None,
            "missed": 0,
        },
        "rules.lupus.state.Marks": {
            "letters": [],
            "amnesia": [],
            "ipnosi": [],
            "frauds": [],
        },
    },
    "mafia": {
        "rules.mafia.state.GameState": {
            "settings": REQUIRED,
            "players": REQUIRED,
            "format": REQUIRED,
            "peaceful_roles": REQUIRED,
            "step": None,
            "night": 0,
            "day": 0,
            "votes": [],
            "draws": 0,
            "mayor": None,
            "secretary": None,
            "post_over": False,
            "red_lynched": False,
            "hunt_held": False,
            "today": {},
            "ledger": {},
            "memory": {},
            "heirs": [],
            "visits": {},
            "confirms": [],
            "blocks": [],
            "successor": None,
            "killers": {},
            "drugged": {},
            "wolf_kills": [],
            "poisoned": {},
            "captive": None,
            "sides": {},
            "slashed": {},
            "slash_targets": [],
            "recovered": [],
            "faceless_left": False,
            "faceless_wait": False,
            "dead_count": 0,
            "reds_deadline": 0,
            "blacks_ahead": False,
            "final": {},
            "stalemate": None,
            "winners": [],
            "teams": [],
            "draw": False,
        },
        "rules.mafia.state.Player": {
            "name": REQUIRED,
            "peaceful": REQUIRED,
            "negative": None,
            "gender": None,
            "alive": True,
            "cause": None,
            "missed": 0,
            "crippled": False,
            "katana": False,
            "faceless": False,
        },
        "rules.mafia.state.StoredVote": {
            "player": REQUIRED,
            "group": REQUIRED,
            "action": REQUIRED,
            "targets": REQUIRED,
        },
        "rules.mafia.state.Day": {
            "vertical": None,
            "hunt": False,
            "candidates": [],
            "tied_asked": [],
            "tied_ballots": [],
            "election": [],
            "revote_empty": False,
            "vouched": [],
            "pending": None,
            "defended": None,
            "last_movers": [],
            "takeable": [],
            "lynched": [],
            "extra_done": False,
            "hero_cancelled": False,
            "supporters": [],
            "shadow": None,
            "armed": None,
            "rescued": None,
        },
        "rules.mafia.state.Ballot": {
            "voter": REQUIRED,
            "targets": REQUIRED,
            "auto": False,
            "weight": 1,
            "hidden": False,
        },
        "rules.mafia.state.Pending": {
            "kind": REQUIRED,
            "asked": REQUIRED,
            "voters": REQUIRED,
            "ballots": REQUIRED,
            "auto": REQUIRED,
        },
        "rules.mafia.state.Ledger": {
            "owed": {"mafia": 0, "maniac": 0},
            "shots": {"mafia": 0, "maniac": 0},
            "no_due": False,
            "black_killed": False,
        },
        "rules.mafia.state.RoleMemory": {
            "last_heal": [],
            "last_heal_night": 0,
            "passed": [],
            "vigilante_done": False,
            "history": [],
            "weight": 6,
            "pair": [],
            "pair_night": 0,
            "life_spent": False,
            "linked": None,
            "link_used": False,
            "corpse": None,
            "corpse_day": 0,
            "last_guard": [],
            "last_guard_night": 0,
            "bank": 0,
            "bought": 0,
            "passed_black": [],
            "burns": {},
            "verified_black": [],
            "burned_true_black": False,
            "reads_red": False,
            "save_used": False,
            "saved_on": {},
            "cancelled_red": False,
            "inherited": False,
            "spared": None,
            "no_kill": [],
            "no_kill_night": 0,
            "favourite": None,
            "avenged": False,
            "killed_mate": False,
            "watched": None,
            "watched_night": 0,
            "drank_night": 0,
            "no_drink": False,
            "soul_targets": [],
            "souls": 0,
            "souls_gained": 0,
            "devoured": False,
            "cult_life": False,
            "self_heal_night": 0,
            "support_cap": 2,
            "detonator_used": False,
            "priest_barrier": 3,
            "hypnosis_kill_night": 0,
            "kamikaze_done": False,
            "madman_done": False,
            "self_company_night": 0,
            "lost_kill_night": 0,
        },
        "rules.mafia.state.Confirm": {
            "kind": REQUIRED,
            "player": REQUIRED,
            "target": REQUIRED,
            "night": REQUIRED,
            "side": None,
        },
        "rules.mafia.state.RoleBlock": {
            "player": REQUIRED,
            "negative": REQUIRED,
            "ends": REQUIRED,
        },
        "rules.mafia.state.Captive": {
            "executor": REQUIRED,
            "target": REQUIRED,
            "night": REQUIRED,
            "told": False,
            "others": [],
        },
    },
    "vampiri": {
        "rules.vampiri.state.GameState": {
            "settings": REQUIRED,
            "players": REQUIRED,
            "step": "votazione",
            "night": 1,
            "day": 0,
            "votes": [],
            "candidates": [],
            "silenced": None,
            "winners": [],
            "teams": [],
            "over": False,
            "ruleset": "vampiri",
        },
        "rules.vampiri.state.Player": {
            "name": REQUIRED,
            "role": REQUIRED,
            "gender": None,
            "alive": True,
            "cause": None,
            "missed": 0,
        },
    },
    "wakkerdam": {
        "rules.wakkerdam.state.GameState": {
            "settings": REQUIRED,
            "players": REQUIRED,
            "distribution_roles": REQUIRED,
            "step": None,
            "night": 0,
            "day": 0,
            "votes": [],
            "draws": 0,
            "mayor": None,
            "election_due": False,
            "elections_abolished": False,
            "asleep": [],
            "wounded": [],
            "warned": [],
            "marked": [],
            "jailed": [],
            "guilty": [],
            "night_roles": {},
            "winners": [],
            "teams": [],
            "over": False,
            "ruleset": "wakkerdam",
        },
        "rules.wakkerdam.state.Player": {
            "name": REQUIRED,
            "role": REQUIRED,
            "gender": None,
            "alive": True,
            "cause": None,
            "lover": None,
            "guards": None,
            "bodyguard": None,
            "bond_used": False,
            "enchanted": False,
            "fool_revealed": False,
            "missed": 0,
            "last_choice": None,
            "elder_hit": False,
            "elixir": True,
            "poison": True,
            "gift_used": False,
            "due": [],
        },
    },
}


def _stored_fields(kind: type) -> list[dataclasses.Field[Any]]:
    """The fields the codec writes: ``init`` fields not marked NOT_STORED."""
    return [
        spec
        for spec in dataclasses.fields(kind)
        if spec.init and spec.metadata.get("stored", True) is not False
    ]


def _records(kind: Any, found: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every record reachable from ``kind`` by the type hints, with its fields' defaults in the
    table's form."""
    if typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    if kind is Settings:
        return found
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        name = f"{kind.__module__}.{kind.__qualname__}"
        if name in found:
            return found
        hints = typing.get_type_hints(kind, include_extras=True)
        defaults: dict[str, Any] = {}
        found[name] = defaults
        for spec in _stored_fields(kind):
            if spec.default is not dataclasses.MISSING:
                value = spec.default
            elif spec.default_factory is not dataclasses.MISSING:
                value = spec.default_factory()
            else:
                defaults[spec.name] = REQUIRED
                continue
            defaults[spec.name] = json.loads(json.dumps(dump(hints[spec.name], value)))
        for spec in _stored_fields(kind):
            _records(hints[spec.name], found)
        return found
    for argument in typing.get_args(kind):
        _records(argument, found)
    return found


def _text(value: Any) -> str:
    """A default's JSON text: ``1`` and ``1.0``, ``0`` and ``false`` differ."""
    return "REQUIRED" if value is REQUIRED else json.dumps(value)


def _problems(
    actual: Mapping[str, Mapping[str, Any]], pinned: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """How the records' defaults in the code (``actual``) differ from the table (``pinned``)."""
    problems = []
    for record in sorted(set(actual) | set(pinned)):
        now, then = actual.get(record), pinned.get(record)
        if now is None or then is None:
            problems.append(
                f"{record}: a stored record {'added' if then is None else 'gone'}: "
                "add it to (or take it from) STORED_DEFAULTS"
            )
            continue
        for field_name in [*then, *(name for name in now if name not in then)]:
            if field_name not in now:
                problems.append(
                    f"{record}.{field_name}: a stored field is gone; stored games still hold "
                    "it (the load ignores it): take it from STORED_DEFAULTS"
                )
            elif field_name not in then:
                problems.append(
                    f"{record}.{field_name}: a new stored field; games stored before lack it "
                    f"and load it with its default {_text(now[field_name])}: add it to "
                    "STORED_DEFAULTS"
                )
            elif _text(now[field_name]) != _text(then[field_name]):
                problems.append(
                    f"{record}.{field_name}: the default was {_text(then[field_name])}, now "
                    f"{_text(now[field_name])}: stored games would change (a record stored "
                    "with the field at its old default lacks it and would load the new one); "
                    "a migration of the stored states is needed"
                )
        if [name for name in now if name in then] != [name for name in then if name in now]:
            problems.append(f"{record}: the stored fields changed order: update STORED_DEFAULTS")
    return problems


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_the_default_of_every_stored_field_is_the_pinned_one(ruleset_id: str) -> None:
    state_type = get_ruleset(ruleset_id).codec.state_type
    problems = _problems(_records(state_type, {}), STORED_DEFAULTS.get(ruleset_id, {}))
    assert not problems, "\n".join(problems)


def test_a_changed_default_or_a_new_field_is_told() -> None:
    player = "rules.wakkerdam.state.Player"
    ballot = "rules.mafia.state.Ballot"
    actual = _records(get_ruleset("mafia").codec.state_type, {})
    actual[ballot] = {**actual[ballot], "weight": 1.0}  # 1.0 is not the int 1 stored
    [weight] = _problems(actual, STORED_DEFAULTS["mafia"])
    assert weight.startswith(f"{ballot}.weight: the default was 1, now 1.0: stored games")
    assert weight.endswith("a migration of the stored states is needed")

    actual = _records(get_ruleset("wakkerdam").codec.state_type, {})
    actual[player] = {**actual[player], "alive": False, "sleepy": 0}
    alive, sleepy = _problems(actual, STORED_DEFAULTS["wakkerdam"])
    assert alive.startswith(f"{player}.alive: the default was true, now false")
    assert sleepy.startswith(f"{player}.sleepy: a new stored field")


def full_form(ruleset_id: str, state: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """The stored form ``data`` of ``state`` with every field it leaves out put back, from the
    table above (not from the code's defaults): the form written before the sparse one, in
    its key order.  ``state`` (the state loaded) tells which record each object is."""
    codec = get_ruleset(ruleset_id).codec
    header = {key: data[key] for key in ("ruleset", "version") if key in data}
    body = _full(STORED_DEFAULTS[ruleset_id], state, {**data})
    return {**body, **header} if codec.header_last else {**header, **body}


def _full(table: Mapping[str, Mapping[str, Any]], value: Any, data: Any) -> Any:
    if isinstance(value, Settings):
        return data
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        defaults = table[f"{kind.__module__}.{kind.__qualname__}"]
        unknown = set(data) - set(defaults) - {"ruleset", "version"}  # the header's keys
        assert not unknown, f"{kind.__qualname__}: keys of no stored field {unknown}"
        result = {}
        for name, default in defaults.items():
            if name in data:
                item = data[name]
            else:
                assert default is not REQUIRED, f"{kind.__qualname__}.{name} is required"
                item = json.loads(json.dumps(default))
            result[name] = _full(table, getattr(value, name), item)
        return result
    if isinstance(value, Mapping) and isinstance(data, Mapping):
        return {
            key: _full(table, item, x)
            for (key, x), item in zip(data.items(), value.values(), strict=True)
        }
    if isinstance(value, Mapping):  # stored as [key, value] pairs
        return [
            [key, _full(table, item, x)]
            for (key, x), item in zip(data, value.values(), strict=True)
        ]
    if isinstance(value, tuple | list):
        return [_full(table, item, x) for item, x in zip(value, data, strict=True)]
    return data
