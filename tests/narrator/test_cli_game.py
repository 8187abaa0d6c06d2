"""`narrator game create|list|show|unsubscribe` against real databases (SQLite, PostgreSQL)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus, Player, find_game, fold_name
from rules import Settings, get_ruleset
from rules.core.model import Seat
from rules.core.ruleset import Ruleset
from tests.narrator.fixtures import CliResult

ROOT = Path(__file__).resolve().parent.parent.parent
SHOW_KEYS = {
    "name",
    "ruleset",
    "state",
    "step",
    "night",
    "day",
    "deadline",
    "asked",
    "players",
    "winners",
    "teams",
}
PLAYER_KEYS = {"name", "email", "gender", "role", "alive"}
SIGNUPS = [
    ("Anna", "vrouw"),
    ("Bram", "man"),
    ("Carla", "vrouw"),
    ("Dirk", "man"),
    ("Eva", "vrouw"),
]


def _error(result: CliResult, fragment: str) -> None:
    assert result.status == 2, result
    assert result.err.count("\n") == 1, result.err
    assert fragment in result.err, result.err


def _sign_up(
    sessions: sessionmaker[Session], game_name: str, signups: list[tuple[str, str]] = SIGNUPS
) -> None:
    with transaction(sessions) as session:
        game = find_game(session, game_name)
        assert game is not None
        for seat, (name, gender) in enumerate(signups, start=1):
            session.add(
                Player(
                    game_id=game.id,
                    seat=seat,
                    name=name,
                    name_key=fold_name(name),
                    email=f"{name.lower()}@example.org",
                    gender=gender,
                )
            )


def _show(run_cli: Callable[..., CliResult], name: str) -> dict[str, object]:
    result = run_cli("game", "show", name, "--json")
    assert result.status == 0, result.err
    view = json.loads(result.out)
    assert isinstance(view, dict)
    return view


def test_create_with_defaults_then_show_the_exact_json_shape(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    created = run_cli("game", "create", "WW5")
    assert created.status == 0, created.err
    assert "created game WW5" in created.out and "speed 2d" in created.out
    view = _show(run_cli, "ww5")
    assert set(view) == SHOW_KEYS
    assert view == {
        "name": "WW5",
        "ruleset": "wakkerdam",
        "state": "signup",
        "step": None,
        "night": 0,
        "day": 0,
        "deadline": None,
        "asked": [],
        "players": [],
        "winners": [],
        "teams": [],
    }
    with sessions() as session:
        game = session.scalars(select(Game)).one()
        assert (game.language, game.theme, game.speed, game.strictness) == (
            "nl",
            "wakkerdam",
            172_800,
            2,
        )
        assert (game.close_early, game.reveal_roles, game.status) == (False, True, "signup")


def test_create_with_every_option(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    result = run_cli(
        "game",
        "create",
        "Test_game-2",
        "--ruleset",
        "wakkerdam",
        "--speed",
        "90s",
        "--strictness",
        "5",
        "--theme",
        "western",
        "--lang",
        "en",
        "--close-early",
        "--no-reveal-roles",
        "--json",
    )
    assert result.status == 0, result.err
    assert json.loads(result.out)["name"] == "Test_game-2"
    with sessions() as session:
        game = session.scalars(select(Game)).one()
        assert (game.speed, game.strictness, game.theme, game.language) == (90, 5, "western", "en")
        assert (game.close_early, game.reveal_roles) == (True, False)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["WW 5"], "only letters, digits, '-' and '_'"),
        (["Wëerwolf"], "only letters, digits"),
        (["x" * 65], "too long"),
        (["WW5", "--speed", "soon"], "--speed: not a duration"),
        (["WW5", "--speed", "0m"], "--speed"),
        (["WW5", "--strictness", "0"], "--strictness must be 1 or more"),
        (["WW5", "--ruleset", "chess"], "unknown ruleset 'chess'"),
        (["WW5", "--lang", "Nederlands"], "--lang: not a language code"),
        (["WW5", "--theme", "wild west"], "--theme"),
        (["WW5", "--tz", "Europe/Atlantis"], "--tz: unknown time zone 'Europe/Atlantis'"),
        (["WW5", "--tz", "CET+1 now"], "--tz: not a time zone name"),
        (["WW5", "--tz", ""], "--tz: a time zone may not be empty"),
        (["WW5", "--tz", "/etc/localtime"], "--tz: not a time zone name"),
    ],
)
def test_create_refuses_bad_input(
    run_cli: Callable[..., CliResult], args: list[str], fragment: str
) -> None:
    _error(run_cli("game", "create", *args), fragment)
    assert run_cli("game", "list", "--json").out == ""


def test_create_with_a_time_zone_and_show_it(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    created = run_cli("game", "create", "WW5", "--tz", "Europe/Amsterdam")
    assert created.status == 0, created.err
    assert "time zone Europe/Amsterdam" in created.out
    assert run_cli("game", "create", "WW6").status == 0  # the config's default: UTC
    with sessions() as session:
        zones = {name: zone for name, zone in session.execute(select(Game.name, Game.timezone))}
    assert zones == {"WW5": "Europe/Amsterdam", "WW6": "UTC"}
    assert "time zone Europe/Amsterdam" in run_cli("game", "show", "WW5").out
    assert set(_show(run_cli, "WW5")) == SHOW_KEYS  # the JSON contract is unchanged


def test_game_names_are_unique_ignoring_case(run_cli: Callable[..., CliResult]) -> None:
    assert run_cli("game", "create", "WW5").status == 0
    _error(run_cli("game", "create", "ww5"), "a game called 'WW5' already exists")


def test_list_shows_every_game_with_its_player_count(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    assert run_cli("game", "list").out.startswith("no games")
    run_cli("game", "create", "WW5")
    run_cli("game", "create", "WW6", "--speed", "10m")
    _sign_up(sessions, "WW5")
    rows = [json.loads(line) for line in run_cli("game", "list", "--json").out.splitlines()]
    assert [(row["name"], row["state"], row["players"]) for row in rows] == [
        ("WW5", "signup", 5),
        ("WW6", "signup", 0),
    ]
    assert set(rows[0]) == {
        "name",
        "ruleset",
        "state",
        "step",
        "night",
        "day",
        "deadline",
        "players",
    }
    text = run_cli("game", "list").out
    assert "WW5" in text and "5 players" in text and "WW6" in text


def test_show_lists_players_in_seat_order_without_roles_before_the_start(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    run_cli("game", "create", "WW5")
    _sign_up(sessions, "WW5")
    view = _show(run_cli, "WW5")
    players = view["players"]
    assert isinstance(players, list)
    assert [set(p) for p in players] == [PLAYER_KEYS] * len(SIGNUPS)
    assert players[0] == {
        "name": "Anna",
        "email": "anna@example.org",
        "gender": "vrouw",
        "role": None,
        "alive": True,
    }
    assert [p["name"] for p in players] == [name for name, _ in SIGNUPS]
    text = run_cli("game", "show", "WW5").out
    assert "1. Anna <anna@example.org> vrouw, role -, alive" in text


def _run_the_game(
    sessions: sessionmaker[Session], ruleset: Ruleset[Any]
) -> tuple[tuple[Seat, ...], Any]:
    """Deal the signed-up players of the one game a distribution of `ruleset` (seed 7) and store
    its first step as running, with the deadline 2026-11-18 09:00 UTC: (the seats, the state)."""
    distribution = ruleset.pick_distribution(len(SIGNUPS), 7)
    seats = ruleset.deal([name for name, _ in SIGNUPS], distribution, 7)
    state = ruleset.new_game(
        seats, Settings(seed=7, options={"mayor": distribution.options["mayor"]})
    )
    with transaction(sessions) as session:
        game = session.scalars(select(Game)).one()
        game.state = ruleset.dump_state(state)
        game.status = GameStatus.RUNNING.value
        game.step, game.night, game.day = state.step, state.night, state.day
        game.deadline = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)
    return seats, state


def test_show_of_a_running_game_reads_the_rules_state(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    run_cli("game", "create", "WW5", "--tz", "Europe/Amsterdam")
    _sign_up(sessions, "WW5")
    ruleset = get_ruleset("wakkerdam")
    seats, state = _run_the_game(sessions, ruleset)
    view = _show(run_cli, "WW5")
    assert view["state"] == "running"
    assert view["step"] == state.step
    assert (view["night"], view["day"]) == (state.night, state.day)
    assert view["deadline"] == "2026-11-18T09:00:00+00:00"
    assert view["asked"] == list(ruleset.asked(state))
    assert view["asked"]
    players = view["players"]
    assert isinstance(players, list)
    assert {p["name"]: p["role"] for p in players} == {seat.name: seat.role for seat in seats}
    assert all(p["alive"] is True for p in players)
    assert (view["winners"], view["teams"]) == ([], [])
    # The text adds the deadline's wall-clock time in the game's zone.
    text = run_cli("game", "show", "WW5").out
    assert "deadline 2026-11-18T09:00:00+00:00 (2026-11-18 10:00 CET, Europe/Amsterdam)" in text


def test_show_prints_a_running_game_exactly(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    """Every line of ``game show`` as the interface has it (it reads the tables with Core)."""
    run_cli("game", "create", "WW5", "--tz", "Europe/Amsterdam", "--speed", "1d")
    _sign_up(sessions, "WW5")
    ruleset = get_ruleset("wakkerdam")
    seats, state = _run_the_game(sessions, ruleset)
    assert run_cli("game", "unsubscribe", "WW5", "Bram").status == 0
    role = {seat.name: seat.role for seat in seats}
    asked = ", ".join(ruleset.asked(state)) or "nobody"
    assert run_cli("game", "show", "WW5").out == (
        "WW5  wakkerdam  running  (nl, theme wakkerdam, time zone Europe/Amsterdam, speed 1d, "
        "strictness 2, close early no, reveal roles yes)\n"
        f"step {state.step} (night {state.night}, day {state.day})\n"
        "deadline 2026-11-18T09:00:00+00:00 (2026-11-18 10:00 CET, Europe/Amsterdam); "
        f"asked: {asked}\n"
        "players (5):\n"
        f"  1. Anna <anna@example.org> vrouw, role {role['Anna']}, alive\n"
        f"  2. Bram <bram@example.org> man, role {role['Bram']}, alive, unsubscribed\n"
        f"  3. Carla <carla@example.org> vrouw, role {role['Carla']}, alive\n"
        f"  4. Dirk <dirk@example.org> man, role {role['Dirk']}, alive\n"
        f"  5. Eva <eva@example.org> vrouw, role {role['Eva']}, alive\n"
    )


# What a read of a started game's state does not run: the resolvers (engine, night, day and
# their helpers), the events, the removal and the built-in distributions.
NOT_READ = ("engine", "night", "day", "events", "removal", "distributions", "board", "deaths")
NOT_READ_OF = {
    "wakkerdam": NOT_READ,
    "lupus": (*NOT_READ, "common", "dice", "blocks", "intake", "appearances"),
    "vampiri": NOT_READ,
    "mafia": (
        *NOT_READ,
        *("day_roles", "night_optional", "night_results", "kills", "results", "moves"),
        *("elite", "wins", "validate"),
    ),
}


@pytest.mark.parametrize(
    ("ruleset", "command", "rulesets"),
    [
        *((name, ["game", "show", "WW5"], {"core", name}) for name in NOT_READ_OF),
        ("wakkerdam", ["game", "list"], set()),
    ],
    ids=[*(f"show-{name}" for name in NOT_READ_OF), "list"],
)
def test_reading_commands_use_core_and_only_the_games_ruleset(
    run_cli: Callable[..., CliResult],
    sessions: sessionmaker[Session],
    config_file: Path,
    ruleset: str,
    command: list[str],
    rulesets: set[str],
) -> None:
    """``game show`` and ``game list`` (reads) import neither the ORM nor Alembic, the mail
    parser, the stories, nor a ruleset they do not use, nor the parts of the game's ruleset
    that play it (its engine), nor the modules of other commands: a new process, so that
    "imported" means it."""
    assert run_cli("game", "create", "WW5", "--ruleset", ruleset, "--lang", "en").status == 0
    _sign_up(sessions, "WW5", [*SIGNUPS, ("Frank", "man")])  # vampiri: 3 or 6 players and more
    assert run_cli("game", "start", "WW5", "--seed", "7").status == 0
    probe = (
        "import json, sys\n"
        "from narrator.cli import main\n"
        f"status = main([*{command!r}, '--config', {str(config_file)!r}])\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    status, modules = json.loads(done.stdout.splitlines()[-1])
    assert status == 0, done.stderr
    assert "sqlalchemy" in modules and "narrator.tables" in modules  # it did read the database
    unwanted = ("sqlalchemy.orm", "alembic", "jinja2", "parsing", "stories", "narrator.models")
    assert [m for m in modules if m.split(".")[0] in unwanted or m.startswith(unwanted)] == []
    assert {m.split(".")[1] for m in modules if m.startswith("rules.")} == rulesets
    assert [
        m for m in modules if m in {f"rules.{ruleset}.{name}" for name in NOT_READ_OF[ruleset]}
    ] == []
    assert "rules.core.events" not in modules  # nor any event class
    # nor another command's module (its helpers: the database's, the ruleset's)
    commands = {m.split(".")[2] for m in modules if m.startswith("narrator.commands.")}
    assert commands <= {"game", "db", "distributions"}


def test_show_of_an_unknown_game_names_the_games(run_cli: Callable[..., CliResult]) -> None:
    _error(run_cli("game", "show", "WW9"), "no game called 'WW9' (there are no games yet)")
    run_cli("game", "create", "WW5")
    _error(run_cli("game", "show", "WW9"), "(games: WW5)")


def test_unsubscribe_a_player(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    run_cli("game", "create", "WW5")
    _sign_up(sessions, "WW5")
    result = run_cli("game", "unsubscribe", "ww5", "bram")
    assert result.status == 0, result.err
    assert "Bram <bram@example.org> no longer receives the group mails of WW5" in result.out
    with sessions() as session:
        flags = dict(session.execute(select(Player.name, Player.unsubscribed)).all())
    assert flags == {name: name == "Bram" for name, _ in SIGNUPS}
    assert "already unsubscribed" in run_cli("game", "unsubscribe", "WW5", "Bram").out
    assert "unsubscribed" in run_cli("game", "show", "WW5").out


def test_unsubscribe_unknown_player_or_game_is_an_error(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    _error(run_cli("game", "unsubscribe", "WW5", "Bram"), "no game called 'WW5'")
    run_cli("game", "create", "WW5")
    _error(run_cli("game", "unsubscribe", "WW5", "Bram"), "(it has no players)")
    _sign_up(sessions, "WW5")
    _error(run_cli("game", "unsubscribe", "WW5", "Zoe"), "no player called 'Zoe' (players: Anna,")


def test_create_refuses_a_language_the_ruleset_has_no_story_pack_in(
    run_cli: Callable[..., CliResult],
) -> None:
    result = run_cli("game", "create", "WW8", "--lang", "fr")
    assert result.status == 2
    assert "no story pack in 'fr'" in result.err and "en, nl" in result.err
    assert run_cli("game", "create", "WW8", "--lang", "en").status == 0


def test_create_takes_ruleset_options_and_checks_them(run_cli: Callable[..., CliResult]) -> None:
    bad = run_cli("game", "create", "WW8", "--option", "mayor=ja")
    assert bad.status == 2 and "option 'mayor' must be a bool" in bad.err
    unknown = run_cli("game", "create", "WW8", "--option", "sheriff=true")
    assert unknown.status == 2 and "unknown option 'sheriff'" in unknown.err
    assert run_cli("game", "create", "WW8", "--option", "mayor=false").status == 0


def test_an_option_of_the_game_wins_over_its_distributions(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    """classic-5 brings a mayor; the admin's `--option mayor=false` takes him away."""
    assert run_cli("game", "create", "WW5", "--option", "mayor=false").status == 0
    _sign_up(sessions, "WW5")
    assert run_cli("game", "start", "WW5", "--distribution", "classic-5", "--seed", "1").status == 0
    with transaction(sessions) as session:
        game = find_game(session, "WW5")
        assert game is not None and game.options == {"mayor": False}
        assert game.state is not None and game.state["settings"]["mayor"] is False


def test_a_new_game_starts_with_its_rulesets_defaults(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    """Lupus never reveals the dead's roles: its games start without, unless the admin says."""
    assert run_cli("game", "create", "Borgo", "--ruleset", "lupus", "--lang", "it").status == 0
    assert run_cli("game", "create", "WW7").status == 0
    with transaction(sessions) as session:
        borgo, ww7 = find_game(session, "Borgo"), find_game(session, "WW7")
        assert borgo is not None and ww7 is not None
        assert (borgo.reveal_roles, borgo.strictness) == (False, 2)
        assert (ww7.reveal_roles, ww7.strictness) == (True, 2)


def test_a_lupus_game_in_english_with_the_laguna_theme(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    """Lupus is told in Italian and in English, both in the themes lupus and laguna."""
    created = run_cli(
        "game", "create", "LU7", "--ruleset", "lupus", "--lang", "en", "--theme", "laguna"
    )
    assert created.status == 0, created.err
    assert "(lupus, en, theme laguna," in created.out
    with transaction(sessions) as session:
        game = find_game(session, "LU7")
        assert game is not None and (game.language, game.theme) == ("en", "laguna")


def test_a_vampiri_game_is_created_in_english_with_the_teatro_theme(
    run_cli: Callable[..., CliResult], sessions: sessionmaker[Session]
) -> None:
    """The vampiri packs: Italian and English, themes vampiri and teatro in both."""
    made = run_cli(
        "game", "create", "Night", "--ruleset", "vampiri", "--lang", "en", "--theme", "teatro"
    )
    assert made.status == 0 and "(vampiri, en, theme teatro" in made.out
    assert (
        run_cli(
            "game", "create", "Notte", "--ruleset", "vampiri", "--lang", "it", "--theme", "teatro"
        ).status
        == 0
    )
    with transaction(sessions) as session:
        night, notte = find_game(session, "Night"), find_game(session, "Notte")
        assert night is not None and notte is not None
        assert (night.ruleset, night.language, night.theme) == ("vampiri", "en", "teatro")
        assert (notte.language, notte.theme) == ("it", "teatro")
