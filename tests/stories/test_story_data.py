"""A reader sees the cast with his own role as he was told it; the story data from mappings."""

from __future__ import annotations

import dataclasses

import pytest

from stories import Cast, ContextError, Player


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


def _same_players(cast: Cast, players: list[Player]) -> None:
    """`cast` holds exactly `players`: equal, with the same fields in the same order."""
    assert list(cast) == players
    assert [list(vars(p).items()) for p in cast] == [list(vars(p).items()) for p in players]
    assert all(type(p) is Player for p in cast)


def test_a_cast_of_rows_holds_the_players_their_fields_would_make() -> None:
    # Cast.of_rows makes a clean roster's Players without their __init__ (a big game's cost):
    # the same Players as Player(*row), the same index, seats and counts as Cast(players).
    clean = [
        ("Anna", "vrouw", None, True, False, False),
        ("  Bram ", "man", "burgemeester", True, False, True),  # only stripped, as clean_text does
        ("Eva", "vrouw", "ziener", False, True, False),
        ("Dirk", "man", "weerwolf", False, False, False),
    ]
    players = [Player(*row) for row in clean]
    cast = Cast.of_rows(iter(clean), {"Anna": "burger"})
    _same_players(cast, players)
    whole = Cast(players, {"Anna": "burger"})
    assert (
        cast.find("BRAM")
        == whole.find("BRAM")
        == Player("Bram", "man", "burgemeester", revealed=True)
    )
    assert cast._seats == whole._seats == {"Anna": 0, "Bram": 1, "Eva": 2, "Dirk": 3}
    assert cast._counts == whole._counts == (2, 1, 1)
    assert cast.seen_by("Anna").find("Anna") == Player("Anna", "vrouw", "burger")
    assert hash(cast[1]) == hash(players[1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        cast[0].name = "Zoe"  # type: ignore[misc]


def test_a_cast_of_rows_cleans_and_checks_a_roster_that_is_not_clean() -> None:
    # a control character in one name, a gender to normalise, a short row: each by Player
    rows: list[tuple[object, ...]] = [
        ("Anna\nBcc: x", "vrouw", None, True, False, False),
        ("Bram", " M ", None, True, False, False),
        ("Eva",),
    ]
    _same_players(Cast.of_rows(rows), [Player(*row) for row in rows])  # type: ignore[arg-type]
    assert [p.name for p in Cast.of_rows(rows)] == ["Anna Bcc: x", "Bram", "Eva"]  # type: ignore[arg-type]
    assert Cast.of_rows(rows)[1].gender == "man"  # type: ignore[arg-type]
    with pytest.raises(ContextError, match="gender must be"):
        Cast.of_rows(
            [("Anna", "vrouw", None, True, False, False), ("Bram", "x", None, True, False, False)]
        )
    assert list(Cast.of_rows([])) == []
