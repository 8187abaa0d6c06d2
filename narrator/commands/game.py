"""`narrator game …`: create, start, inspect and drive games, unsubscribe players (admin view).

Each subcommand is added by one ``_add_*`` function listed in `SUBCOMMANDS`; the commands that
drive a game (start, close-step, pause, resume, extend) belong to the game service and slot in
the same way.
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from narrator.cli import CommandError, Subparsers
from narrator.durations import format_duration, parse_duration
from narrator.zones import parse_timezone, zone_or_utc

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from narrator.config import Config
    from narrator.models import Game
    from narrator.service.mailer import Mailer
    from narrator.service.work import Work

GAME_NAME = re.compile(r"[A-Za-z0-9_-]+")
_LANGUAGE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]+)*")
_THEME = re.compile(r"[A-Za-z0-9_-]+")
DEFAULT_SPEED = "2d"
DEFAULT_STRICTNESS = 2


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator game …` with every subcommand of `SUBCOMMANDS`."""
    parser = subparsers.add_parser("game", parents=[common], help="create and inspect games")
    commands = parser.add_subparsers(title="game commands", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(commands, common)


def parse_game_name(text: str) -> str:
    """Return `text` if it is a valid game name, else raise CommandError saying why."""
    from narrator.models import NAME_LENGTH

    if not text:
        raise CommandError("a game name may not be empty")
    if len(text) > NAME_LENGTH:
        raise CommandError(f"game name {text!r} is too long (at most {NAME_LENGTH} characters)")
    if not GAME_NAME.fullmatch(text):
        raise CommandError(
            f"game name {text!r} may contain only letters, digits, '-' and '_' (no spaces)"
        )
    return text


def open_game(session: Session, name: str) -> Game:
    """Return the game called `name`, or raise CommandError naming the existing games."""
    from sqlalchemy import select

    from narrator.models import Game, find_game

    game = find_game(session, name)
    if game is None:
        names = session.scalars(select(Game.name).order_by(Game.name)).all()
        known = f" (games: {', '.join(names)})" if names else " (there are no games yet)"
        raise CommandError(f"no game called {name!r}{known}")
    return game


def iso(moment: datetime | None) -> str | None:
    """Return `moment` as ISO 8601 in UTC (``2026-11-18T09:00:00+00:00``), or None."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def game_view(work: Work, game: Game) -> dict[str, Any]:
    """Return the admin view of `game`: the exact ``game show --json`` object (interfaces §2).

    Before the start every role is null and every player alive; afterwards roles, life,
    who is asked, winners and teams come from the ruleset's view of the game's state, as this
    unit of work left it.
    """
    from narrator.commands.distributions import ruleset_or_error
    from narrator.models import GameStatus

    players = work.players(game)
    roles: dict[str, str | None] = {player.name: None for player in players}
    alive: dict[str, bool] = {player.name: True for player in players}
    asked: list[str] = []
    winners: list[str] = []
    teams: list[str] = []
    if work.has_state(game):
        ruleset = ruleset_or_error(game.ruleset)
        state = work.state(game)
        view = ruleset.view(state)
        for seat in view.players:
            roles[seat.name] = seat.role
            alive[seat.name] = seat.alive
        if game.status == GameStatus.RUNNING and not view.over:
            asked = list(ruleset.asked(state))
        winners = list(view.winners)
        teams = list(view.teams)
    return {
        "name": game.name,
        "ruleset": game.ruleset,
        "state": game.status,
        "step": game.step,
        "night": game.night,
        "day": game.day,
        "deadline": iso(game.deadline),
        "asked": asked,
        "players": [
            {
                "name": player.name,
                "email": player.email,
                "gender": player.gender,
                "role": roles.get(player.name),
                "alive": alive.get(player.name, True),
            }
            for player in players
        ],
        "winners": winners,
        "teams": teams,
    }


# --- create ---------------------------------------------------------------------------------


def _add_create(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    create = commands.add_parser("create", parents=[common], help="open a new game for signups")
    create.add_argument("name", metavar="NAME", help="letters, digits, '-', '_' (the mail subject)")
    create.add_argument("--ruleset", help="default: [narrator] ruleset (wakkerdam)")
    create.add_argument(
        "--speed", default=DEFAULT_SPEED, help="length of every step: 90s, 10m, 2h, 2d (default 2d)"
    )
    create.add_argument(
        "--strictness",
        type=int,
        default=None,
        help="missed votes in a row before a player dies of inactivity "
        "(default: the ruleset's, else 2)",
    )
    create.add_argument("--theme", help="story theme (default: the ruleset's own)")
    create.add_argument("--lang", help="language of the mails (default: [narrator] language)")
    create.add_argument(
        "--tz",
        metavar="ZONE",
        help="time zone the mails write deadlines in, e.g. Europe/Amsterdam "
        "(default: [narrator] timezone, UTC)",
    )
    create.add_argument(
        "--close-early",
        action="store_true",
        help="close a step as soon as everyone asked has voted",
    )
    create.add_argument(
        "--no-reveal-roles",
        dest="reveal_roles",
        action="store_false",
        default=None,
        help="do not announce the role of each dead player (default: the ruleset's, else "
        "announce it)",
    )
    create.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help='a ruleset option, e.g. mayor=false (VALUE as in TOML: true, 3, "text")',
    )
    create.add_argument("--json", action="store_true", help="print the new game as JSON")
    create.set_defaults(func=_create)


def parse_options(written: Sequence[str], known: Mapping[str, Any]) -> dict[str, Any]:
    """Read ``KEY=VALUE`` options (VALUE a TOML value; a bare word is a string) and check them
    against the ruleset's options; raises CommandError naming the bad one."""
    from rules.core.model import Settings

    options: dict[str, Any] = {}
    for item in written:
        key, equals, text = item.partition("=")
        key = key.strip()
        if not equals or not key:
            raise CommandError(f"--option {item!r}: write KEY=VALUE, e.g. mayor=false")
        try:
            value = tomllib.loads(f"value = {text.strip()}")["value"]
        except tomllib.TOMLDecodeError:
            value = text.strip()
        options[key] = value
    try:
        Settings(options=options).check_options(known)
    except ValueError as error:
        raise CommandError(f"--option: {error}") from None
    return options


def _create(args: argparse.Namespace) -> None:
    from sqlalchemy.exc import IntegrityError

    from narrator.changes import announce_change
    from narrator.commands.db import config_from_args, database_session
    from narrator.commands.distributions import ruleset_or_error
    from narrator.models import NAME_LENGTH, Game, GameStatus, find_game, fold_name
    from narrator.service.work import Work
    from stories.words import languages_of

    config = config_from_args(args)
    name = parse_game_name(args.name)
    try:
        speed = parse_duration(args.speed)
    except ValueError as error:
        raise CommandError(f"--speed: {error}") from None
    ruleset_id = args.ruleset or config.narrator.ruleset
    ruleset = ruleset_or_error(ruleset_id)
    defaults = ruleset.settings_defaults
    strictness = args.strictness if args.strictness is not None else defaults.get("strictness")
    strictness = strictness if isinstance(strictness, int) else DEFAULT_STRICTNESS
    if strictness < 1:
        raise CommandError(f"--strictness must be 1 or more, not {strictness}")
    reveal = args.reveal_roles if args.reveal_roles is not None else defaults.get("reveal_roles")
    reveal_roles = reveal if isinstance(reveal, bool) else True
    options = parse_options(args.option, ruleset.options)
    language = args.lang or config.narrator.language
    if not _LANGUAGE.fullmatch(language):
        raise CommandError(f"--lang: not a language code: {language!r} (like nl or en)")
    told_in = languages_of(ruleset_id)
    if language not in told_in:
        raise CommandError(
            f"the {ruleset_id} ruleset has no story pack in {language!r} yet, so its mails "
            f"could not be written (packs: {', '.join(told_in) or 'none'}); choose --lang"
        )
    timezone = args.tz if args.tz is not None else config.narrator.timezone
    try:
        parse_timezone(timezone)
    except ValueError as error:
        raise CommandError(f"--tz: {error}") from None
    theme = args.theme or (config.narrator.theme if ruleset_id == config.narrator.ruleset else "")
    theme = theme or ruleset_id
    if not _THEME.fullmatch(theme) or len(theme) > NAME_LENGTH:
        raise CommandError(f"--theme: {theme!r} may contain only letters, digits, '-' and '_'")
    try:
        with database_session(config) as session:
            existing = find_game(session, name)
            if existing is not None:
                raise CommandError(f"a game called {existing.name!r} already exists")
            game = Game(
                name=name,
                name_key=fold_name(name),
                ruleset=ruleset_id,
                language=language,
                theme=theme,
                timezone=timezone,
                speed=speed,
                strictness=strictness,
                close_early=args.close_early,
                reveal_roles=reveal_roles,
                options=options,
                status=GameStatus.SIGNUP.value,
            )
            session.add(game)
            session.flush()
            view = game_view(Work(session), game)
            announce_change(session)
    except IntegrityError:  # created by someone else between our check and our insert
        raise CommandError(f"a game called {name!r} already exists") from None
    if args.json:
        print(json.dumps(view))
        return
    print(
        f"created game {name} ({ruleset_id}, {language}, theme {theme}, time zone {timezone}, "
        f"speed {format_duration(speed)}, strictness {strictness}); signups are open: "
        f"players mail {config.narrator.address} with subject {name}"
    )


# --- list -----------------------------------------------------------------------------------


def _add_list(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    listing = commands.add_parser("list", parents=[common], help="list every game")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(func=_list)


def _list(args: argparse.Namespace) -> None:
    from sqlalchemy import func, select

    from narrator.commands.db import config_from_args, database_session
    from narrator.models import Game, Player

    config = config_from_args(args)
    with database_session(config) as session:
        counts = dict(
            session.execute(select(Player.game_id, func.count()).group_by(Player.game_id)).all()
        )
        games = session.scalars(select(Game).order_by(Game.created_at, Game.id)).all()
    rows = [
        {
            "name": game.name,
            "ruleset": game.ruleset,
            "state": game.status,
            "step": game.step,
            "night": game.night,
            "day": game.day,
            "deadline": iso(game.deadline),
            "players": counts.get(game.id, 0),
        }
        for game in games
    ]
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return
    if not rows:
        print("no games (create one with `narrator game create NAME`)")
    for row in rows:
        where = f"step {row['step']}, deadline {row['deadline']}" if row["step"] else "-"
        print(f"{row['name']}  {row['ruleset']}  {row['state']}  {row['players']} players  {where}")


# --- show -----------------------------------------------------------------------------------


def _add_show(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    show = commands.add_parser("show", parents=[common], help="a game's state and players")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(func=_show)


def _show(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.models import game_players
    from narrator.service.work import Work

    config = config_from_args(args)
    with database_session(config) as session:
        game = open_game(session, args.name)
        view = game_view(Work(session), game)
        timezone = game.timezone
        unsubscribed = {p.name for p in game_players(session, game) if p.unsubscribed}
        settings = (
            f"{game.language}, theme {game.theme}, time zone {game.timezone}, "
            f"speed {format_duration(game.speed)}, "
            f"strictness {game.strictness}, close early {_yes(game.close_early)}, "
            f"reveal roles {_yes(game.reveal_roles)}"
        )
    if args.json:
        print(json.dumps(view))
        return
    print(f"{view['name']}  {view['ruleset']}  {view['state']}  ({settings})")
    if view["step"] is not None:
        print(f"step {view['step']} (night {view['night']}, day {view['day']})")
        asked = ", ".join(view["asked"]) or "nobody"
        print(f"deadline {_local(view['deadline'], timezone)}; asked: {asked}")
    if view["winners"] or view["teams"]:
        print(f"winners: {', '.join(view['winners'])} ({', '.join(view['teams'])})")
    print(f"players ({len(view['players'])}):")
    for seat, player in enumerate(view["players"], start=1):
        role = player["role"] or "-"
        life = "alive" if player["alive"] else "dead"
        mail = ", unsubscribed" if player["name"] in unsubscribed else ""
        print(
            f"  {seat}. {player['name']} <{player['email']}> {player['gender']}, "
            f"role {role}, {life}{mail}"
        )


def _local(deadline: str | None, timezone: str) -> str:
    """A UTC ISO deadline with its wall-clock time in the game's zone: "... (10:00 CET)"."""
    if deadline is None:
        return "none"
    local = datetime.fromisoformat(deadline).astimezone(zone_or_utc(timezone))
    return f"{deadline} ({local:%Y-%m-%d %H:%M} {local.tzname()}, {timezone})"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


# --- unsubscribe ----------------------------------------------------------------------------


def _add_unsubscribe(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    unsubscribe = commands.add_parser(
        "unsubscribe", parents=[common], help="a player stops receiving the group mails"
    )
    unsubscribe.add_argument("name", metavar="NAME", help="the game")
    unsubscribe.add_argument("player", metavar="PLAYER", help="the player's name")
    unsubscribe.set_defaults(func=_unsubscribe)


def _unsubscribe(args: argparse.Namespace) -> None:
    from narrator.changes import announce_change
    from narrator.commands.db import config_from_args, database_session
    from narrator.models import find_player, game_players

    config = config_from_args(args)
    with database_session(config) as session:
        game = open_game(session, args.name)
        player = find_player(session, game, args.player)
        if player is None:
            names = [p.name for p in game_players(session, game)]
            known = f" (players: {', '.join(names)})" if names else " (it has no players)"
            raise CommandError(f"game {game.name} has no player called {args.player!r}{known}")
        if player.unsubscribed:
            print(f"{player.name} of {game.name} was already unsubscribed")
            return
        player.unsubscribed = True
        announce_change(session)
    print(f"{player.name} <{player.email}> no longer receives the group mails of {game.name}")


# --- a player's personal link --------------------------------------------------------------


def _add_link(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    link = commands.add_parser(
        "link", parents=[common], help="a player's personal page address (docs/web.md)"
    )
    link.add_argument("name", metavar="NAME", help="the game")
    link.add_argument("player", metavar="PLAYER", help="the player's name")
    link.set_defaults(func=_link)
    revoke = commands.add_parser(
        "revoke-link",
        parents=[common],
        help="revoke a player's personal page address: the old one opens nothing (docs/web.md)",
    )
    revoke.add_argument("name", metavar="NAME", help="the game")
    revoke.add_argument("player", metavar="PLAYER", help="the player's name")
    revoke.set_defaults(func=_revoke_link)


def _link(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.models import find_player
    from narrator.web.tokens import page_token

    config = config_from_args(args)
    secret = config.web.secret
    if secret is None:
        raise CommandError(
            f"no personal pages: environment variable {config.web.secret_env} is not set "
            "('web.secret_env' names it)"
        )
    with database_session(config) as session:
        game = open_game(session, args.name)
        player = find_player(session, game, args.player)
        if player is None:
            raise CommandError(f"game {game.name} has no player called {args.player!r}")
        token = page_token(secret, game.id, player.id, player.page_generation)
    print(f"{config.web.base_url}/p/{token}")


def _revoke_link(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.models import find_player
    from narrator.service.games import revoke_link
    from narrator.service.work import work_in

    config = config_from_args(args)
    with database_session(config) as session, work_in(session) as work:
        game = open_game(session, args.name)
        player = find_player(session, game, args.player)
        if player is None:
            raise CommandError(f"game {game.name} has no player called {args.player!r}")
        generation = revoke_link(work, game, player, now=datetime.now(UTC))
        name = player.name
    print(
        f"revoked the personal link of {name} in {game.name}: his old link opens nothing, "
        f"his next mails carry the new one (generation {generation}; "
        f"'narrator game link {game.name} {name}' prints it)"
    )


# --- driving a game: start, close-step, pause, resume, extend --------------------------------


def _mailer(config: Config, session: Session) -> Mailer:
    from narrator.service.authenticity import reply_addresses_from_config
    from narrator.service.mailer import Mailer, page_links_from_config
    from stories import FileStore

    mailer = Mailer(
        FileStore(),
        config.narrator.address,
        reply_addresses=reply_addresses_from_config(config),
        pages=page_links_from_config(config),
        default_ruleset=config.narrator.ruleset,
        default_theme=config.narrator.theme,
        default_language=config.narrator.language,
    )
    mailer.reload(session)
    return mailer


def _drive(args: argparse.Namespace, action: Callable[[Work, Mailer, Game, datetime], str]) -> None:
    """Run one game-service action on the named game in one transaction; print the result."""
    from narrator.changes import announce_change
    from narrator.commands.db import config_from_args, database_session
    from narrator.service.games import GameError
    from narrator.service.work import work_in

    config = config_from_args(args)
    with database_session(config) as session, work_in(session) as work:
        game = open_game(session, args.name)
        try:
            message = action(work, _mailer(config, session), game, datetime.now(UTC))
        except GameError as error:
            raise CommandError(str(error)) from None
        view = game_view(work, game)
        work.flush()  # the action's states, before the change is announced
        # Last, so the counter's row is locked only for the commit: a running daemon sends
        # what the action queued and re-reads the deadline within a second.
        announce_change(session)
    if getattr(args, "json", False):
        print(json.dumps(view))
    else:
        print(message)


def _add_start(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    start = commands.add_parser(
        "start", parents=[common], help="close signups, deal the roles and start the game"
    )
    start.add_argument("name", metavar="NAME")
    start.add_argument("--seed", type=int, default=None, help="seed of every random choice")
    start.add_argument("--distribution", metavar="ID", default=None, help="role distribution id")
    start.add_argument("--json", action="store_true", help="print the game as JSON")
    start.set_defaults(func=_start)


def _start(args: argparse.Namespace) -> None:
    from narrator.service import games as service

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        service.start_game(
            work, mailer, game, now=now, seed=args.seed, distribution_id=args.distribution
        )
        return (
            f"started {game.name} with distribution {game.distribution_id} (seed {game.seed}); "
            f"step {game.step or '-'}, deadline {iso(game.deadline)}"
        )

    _drive(args, action)


def _add_close_step(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    close = commands.add_parser(
        "close-step", parents=[common], help="resolve the current step now, as at its deadline"
    )
    close.add_argument("name", metavar="NAME")
    close.add_argument("--json", action="store_true", help="print the game as JSON")
    close.set_defaults(func=_close_step)


def _close_step(args: argparse.Namespace) -> None:
    from narrator.models import GameStatus
    from narrator.service import games as service

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        step = game.step
        events = service.close_step(work, mailer, game, now=now)
        after = "the game is over" if game.status == GameStatus.ENDED.value else f"now {game.step}"
        return f"closed step {step} of {game.name} ({len(events)} events); {after}"

    _drive(args, action)


def _add_pause(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    for verb, handler, text in (
        ("pause", _pause, "stop a game's clock (votes wait until it resumes)"),
        ("resume", _resume, "restart a paused game's clock with the time that was left"),
    ):
        parser = commands.add_parser(verb, parents=[common], help=text)
        parser.add_argument("name", metavar="NAME")
        parser.add_argument("--json", action="store_true", help="print the game as JSON")
        parser.set_defaults(func=handler)


def _pause(args: argparse.Namespace) -> None:
    from narrator.service import games as service

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        service.pause_game(work, game, now=now)
        return f"paused {game.name}"

    _drive(args, action)


def _resume(args: argparse.Namespace) -> None:
    from narrator.service import games as service

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        service.resume_game(work, game, now=now)
        return f"resumed {game.name}; deadline {iso(game.deadline)}"

    _drive(args, action)


def _add_extend(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    extend = commands.add_parser("extend", parents=[common], help="move the deadline later")
    extend.add_argument("name", metavar="NAME")
    extend.add_argument("by", metavar="DURATION", help="how much later: 90s, 10m, 2h, 2d")
    extend.add_argument("--json", action="store_true", help="print the game as JSON")
    extend.set_defaults(func=_extend)


def _extend(args: argparse.Namespace) -> None:
    from narrator.service import games as service

    try:
        seconds = parse_duration(args.by)
    except ValueError as error:
        raise CommandError(f"DURATION: {error}") from None

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        service.extend_deadline(work, game, timedelta(seconds=seconds), now=now)
        return f"extended {game.name} by {format_duration(seconds)}; deadline {iso(game.deadline)}"

    _drive(args, action)


def _add_remove(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    remove = commands.add_parser(
        "remove",
        parents=[common],
        help="take a player out of a running game, the ruleset's way (Lupus: disqualified, an "
        "exile; the others: a death by removal); every player is told",
    )
    remove.add_argument("name", metavar="NAME", help="the game")
    remove.add_argument("player", metavar="PLAYER", help="the player's name")
    remove.add_argument("--json", action="store_true", help="print the game as JSON")
    remove.set_defaults(func=_remove)


def _remove(args: argparse.Namespace) -> None:
    from narrator.models import GameStatus, find_player
    from narrator.service.removal import remove_player

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        player = find_player(work.session, game, args.player)
        if player is None:
            raise CommandError(f"game {game.name} has no player called {args.player!r}")
        events = remove_player(work, mailer, game, player, now=now, by="cli")
        told = ", ".join(e["type"] for e in events)
        over = game.status == GameStatus.ENDED.value
        after = "the game is over" if over else f"still {game.step}"
        return f"removed {player.name} from {game.name} ({told}); {after}"

    _drive(args, action)


SUBCOMMANDS: Sequence[Callable[[Subparsers, argparse.ArgumentParser], None]] = (
    _add_create,
    _add_list,
    _add_show,
    _add_start,
    _add_close_step,
    _add_pause,
    _add_extend,
    _add_remove,
    _add_unsubscribe,
    _add_link,
)
