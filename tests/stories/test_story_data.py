"""A reader sees the cast with his own role as he was told it; the story data from mappings."""

from __future__ import annotations

import dataclasses

from stories import Cast, Player


def test_a_reader_sees_himself_with_all_his_fields_and_the_role_he_was_told() -> None:
    # Cast.seen_by writes Player's fields out (no dataclasses.replace): a new field of Player
    # must be given there too, which this list makes one remember.
    assert [spec.name for spec in dataclasses.fields(Player)] == [
        "name",
        "gender",
        "role",
        "alive",
        "exiled",
        "revealed",
    ]
    eva = Player("Eva", "vrouw", None, alive=False, exiled=True, revealed=True)
    cast = Cast([Player("Anna"), eva], own_roles={"Eva": "ziener", "Anna": "burger"})
    seen = cast.seen_by("Eva")
    assert seen.find("Eva") == dataclasses.replace(eva, role="ziener")
    assert seen.find("Anna") == Player("Anna")  # nobody else's role
    assert cast.find("Eva") == eva  # the shared cast unchanged


def test_a_game_or_action_from_a_mapping_refuses_unknown_fields() -> None:
    from types import MappingProxyType

    import pytest

    from stories import Action, ContextError, Game

    assert Game.from_any(MappingProxyType({"name": "WW5", "day": 2})) == Game("WW5", day=2)
    assert Action.from_any({"kind": "ziener", "choices": [" Anna"]}) == Action("ziener", ("Anna",))
    with pytest.raises(ContextError, match=r"unknown game fields \['bogus'\]"):
        Game.from_any({"name": "WW5", "bogus": 1})
    with pytest.raises(ContextError, match=r"unknown action fields \['bogus'\]"):
        Action.from_any({"kind": "ziener", "bogus": 1})
