"""`narrator distributions list|add`: the ruleset's built-ins plus validated additions."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, Player, fold_name
from rules import get_ruleset
from tests.narrator.fixtures import CliResult


def _rows(result: CliResult) -> list[dict[str, object]]:
    assert result.status == 0, result.err
    return [json.loads(line) for line in result.out.splitlines()]


def _seat(
    sessions: sessionmaker[Session], game_name: str, names: tuple[str, ...], gender: str
) -> None:
    """Seat ``names`` at the game directly (no signup mail), in order."""
    with transaction(sessions) as session:
        game = session.scalars(select(Game).where(Game.name == game_name)).one()
        for seat, name in enumerate(names, start=1):
            key = fold_name(name)
            session.add(
                Player(
                    game_id=game.id,
                    seat=seat,
                    email=f"{key}@example.org",
                    name=name,
                    name_key=key,
                    gender=gender,
                )
            )


def _error(result: CliResult, fragment: str) -> None:
    assert result.status == 2, result
    assert result.err.count("\n") == 1, result.err
    assert fragment in result.err, result.err


def test_list_shows_the_rulesets_built_in_distributions(run_cli: Callable[..., CliResult]) -> None:
    builtin = get_ruleset("wakkerdam").distributions
    rows = _rows(run_cli("distributions", "list", "--json"))
    assert len(rows) == len(builtin)
    assert {row["id"] for row in rows} == {d.id for d in builtin}
    first = next(d for d in builtin if d.id == rows[0]["id"])
    assert rows[0] == {
        "id": first.id,
        "ruleset": "wakkerdam",
        "players": first.players,
        "roles": dict(sorted(Counter(first.roles).items())),
        "mayor": first.options["mayor"],
        "source": "builtin",
    }
    players = [row["players"] for row in rows]
    assert players == sorted(players)  # type: ignore[type-var]


def test_list_filters_by_player_count(run_cli: Callable[..., CliResult]) -> None:
    expected = {d.id for d in get_ruleset("wakkerdam").distributions if d.players == 8}
    rows = _rows(run_cli("distributions", "list", "--players", "8", "--json"))
    assert {row["id"] for row in rows} == expected
    assert (
        run_cli("distributions", "list", "--players", "999").out
        == "no distributions for 999 players\n"
    )


def test_add_a_distribution_from_a_file(run_cli: Callable[..., CliResult], tmp_path: Path) -> None:
    path = tmp_path / "eight.toml"
    path.write_text(
        'id = "dorp-8"\nplayers = 8\nmayor = true\n'
        "roles = { weerwolf = 2, ziener = 1, heks = 1, burger = 4 }\n",
        encoding="utf-8",
    )
    result = run_cli("distributions", "add", str(path))
    assert result.status == 0, result.err
    assert "added distribution dorp-8" in result.out
    rows = _rows(run_cli("distributions", "list", "--players", "8", "--json"))
    added = [row for row in rows if row["source"] == "custom"]
    assert added == [
        {
            "id": "dorp-8",
            "ruleset": "wakkerdam",
            "players": 8,
            "roles": {"burger": 4, "heks": 1, "weerwolf": 2, "ziener": 1},
            "mayor": True,
            "source": "custom",
        }
    ]
    assert "dorp-8" in run_cli("distributions", "list").out
    _error(run_cli("distributions", "add", str(path)), "'dorp-8' already exists")


def test_add_without_id_gets_a_free_one_and_accepts_a_list(
    run_cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    path = tmp_path / "three.toml"
    path.write_text(
        'players = 3\nmayor = false\nroles = ["weerwolf", "burger", "burger"]\n', encoding="utf-8"
    )
    assert "custom-3-1" in run_cli("distributions", "add", str(path)).out
    assert "custom-3-2" in run_cli("distributions", "add", str(path)).out


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("players = 3\nmayor = true\nroles = ['weerwolf', 'burger', 'tovenaar']\n", "tovenaar"),
        ("players = 4\nmayor = true\nroles = ['weerwolf', 'burger']\n", "2 roles for 4 players"),
        ("players = 2\nmayor = true\nroles = ['weerwolf', 'burger']\n", "between 3 and 1000"),
        ("players = 3\nmayor = true\n", "missing key 'roles'"),
        ("players = 3\nmayor = 'ja'\nroles = ['weerwolf', 'burger', 'burger']\n", "'mayor'"),
        ("players = '3'\nmayor = true\nroles = []\n", "'players' must be a whole number"),
        ("players = 3\nmayor = true\nroles = 'weerwolf'\n", "'roles' must be a table"),
        ("players = 3\nmayor = true\nroles = { weerwolf = -1 }\n", "roles.weerwolf"),
        ("players = 3\nmayor = true\nrole = []\nroles = []\n", "unknown key(s) role"),
        ("id = 'a b'\nplayers = 3\nmayor = true\nroles = []\n", "'id' must be"),
        ("ruleset = 'chess'\nplayers = 3\nmayor = true\nroles = ['a', 'b', 'c']\n", "chess"),
        ("players = [\n", "not valid TOML"),
    ],
)
def test_add_refuses_bad_files(
    run_cli: Callable[..., CliResult], tmp_path: Path, text: str, fragment: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    _error(run_cli("distributions", "add", str(path)), fragment)
    rows = _rows(run_cli("distributions", "list", "--json"))
    assert all(row["source"] == "builtin" for row in rows)


def test_add_of_a_missing_file_is_an_error(
    run_cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    _error(run_cli("distributions", "add", str(tmp_path / "none.toml")), "no such file")


def test_a_distribution_without_the_mayor_option_gets_the_rulesets_default(
    run_cli: Callable[..., CliResult], tmp_path: Path, sessions: sessionmaker[Session]
) -> None:
    path = tmp_path / "five.toml"
    path.write_text(
        'id = "vijf"\nplayers = 5\nroles = { weerwolf = 1, burger = 4 }\n', encoding="utf-8"
    )
    assert run_cli("distributions", "add", str(path)).status == 0
    rows = _rows(run_cli("distributions", "list", "--players", "5", "--json"))
    assert next(row for row in rows if row["id"] == "vijf").get("mayor") is None
    run_cli("game", "create", "WW9")
    _seat(sessions, "WW9", ("Anna", "Bram", "Carla", "Dirk", "Eva"), "vrouw")
    assert run_cli("game", "start", "WW9", "--distribution", "vijf", "--seed", "1").status == 0
    with transaction(sessions) as session:
        game = session.scalars(select(Game)).one()
        # Wakkerdam's default: the game has a Burgemeester, so the first day elects one.
        assert game.state is not None and game.state["settings"]["mayor"] is True


def test_a_mafia_distribution_with_an_elite_player_starts_with_one_more_seat(
    run_cli: Callable[..., CliResult], tmp_path: Path, sessions: sessionmaker[Session]
) -> None:
    """The Agent sits beside the seven counted players (docs/rules/mafia.md §17): a table of
    seven and an Agent starts with eight signups; seven signups are refused, politely."""
    path = tmp_path / "agent.toml"
    path.write_text(
        'id = "carrow-agent"\nruleset = "mafia"\nplayers = 7\n'
        "roles = { active_citizen = 1, blocker = 1, citizen = 1, commissar = 1, detective = 1,"
        " doctor = 1, investigator = 1 }\n"
        "negative = { mafia = 1, maniac = 1 }\nelite = { agent = 1 }\n",
        encoding="utf-8",
    )
    assert run_cli("distributions", "add", str(path)).status == 0
    names = ("Anna", "Bram", "Carla", "Dirk", "Eva", "Frank", "Gert", "Hanna")
    for game_name, count in (("MF7", 7), ("MF8", 8)):
        assert (
            run_cli("game", "create", game_name, "--ruleset", "mafia", "--lang", "en").status == 0
        )
        _seat(sessions, game_name, names[:count], "man")
    refused = run_cli("game", "start", "MF7", "--distribution", "carrow-agent", "--seed", "1")
    assert refused.status != 0 and "does not fit 7 players" in refused.err
    started = run_cli("game", "start", "MF8", "--distribution", "carrow-agent", "--seed", "1")
    assert started.status == 0, started.err
    with transaction(sessions) as session:
        game = session.scalars(select(Game).where(Game.name == "MF8")).one()
        assert game.status == "running"
