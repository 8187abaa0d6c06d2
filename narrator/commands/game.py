"""`narrator game …`: create, start, inspect and drive games, unsubscribe players (admin view).

Each subcommand is added by one ``_add_*`` function listed in `SUBCOMMANDS`.  The actions on a
game are shared with the admin panel (narrator/web/admin.py): :func:`create_game` and
:func:`drive` with the action builders (:func:`start_action`, :func:`close_step_action`, …) run
the same game-service call, record who did it (the ``admin_actions`` table and the log) and
tell a running daemon (:func:`~narrator.changes.announce_change`), from either side.
"""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from narrator.cli import CommandError, Subparsers
from narrator.durations import format_duration, parse_duration
from narrator.zones import parse_timezone, zone_or_utc

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from narrator.config import Config
    from narrator.models import Game, Player
    from narrator.service.mailer import Mailer
    from narrator.service.work import Work
    from rules.core.ruleset import Ruleset, RulesState

GAME_NAME = re.compile(r"[A-Za-z0-9_-]+")
_LANGUAGE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]+)*")
_THEME = re.compile(r"[A-Za-z0-9_-]+")
DEFAULT_SPEED = "2d"
DEFAULT_STRICTNESS = 2

log = logging.getLogger("narrator.admin")

#: One action on a game: a game-service call in the caller's unit of work; returns what it did.
Action = Callable[["Work", "Mailer", "Game", datetime], str]


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
        raise unknown_game(name, session.scalars(select(Game.name).order_by(Game.name)).all())
    return game


def unknown_game(name: str, names: Sequence[str]) -> CommandError:
    """The error for a game called `name` that is not there, naming the games there are."""
    known = f" (games: {', '.join(names)})" if names else " (there are no games yet)"
    return CommandError(f"no game called {name!r}{known}")


def iso(moment: datetime | None) -> str | None:
    """Return `moment` as ISO 8601 in UTC (``2026-11-18T09:00:00+00:00``), or None."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="seconds")


class ShownGame(Protocol):
    """What the admin view reads of a game: an ORM `Game` or a Core row of ``games``."""

    @property
    def name(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def step(self) -> str | None: ...
    @property
    def night(self) -> int: ...
    @property
    def day(self) -> int: ...
    @property
    def deadline(self) -> datetime | None: ...


class ShownPlayer(Protocol):
    """What the admin view reads of a player: an ORM `Player` or a Core row of ``players``."""

    @property
    def name(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def gender(self) -> str: ...


def game_view(work: Work, game: Game) -> dict[str, Any]:
    """Return the admin view of `game` (:func:`view_of`), its state as this unit of work left
    it."""
    from narrator.commands.distributions import ruleset_or_error

    rules = None
    if work.has_state(game):
        ruleset = ruleset_or_error(game.ruleset)
        rules = (ruleset, work.state(game))
    return view_of(game, work.players(game), rules)


def view_of(
    game: ShownGame,
    players: Sequence[ShownPlayer],
    rules: tuple[Ruleset[RulesState], RulesState] | None,
) -> dict[str, Any]:
    """Return the admin view of `game`: the exact ``game show --json`` object (interfaces §2).

    `players` are its players in seat order; `rules` its ruleset and rules state, None before
    the start, when every role is null and every player alive; afterwards roles, life, who is
    asked, winners and teams come from the ruleset's view of that state.
    """
    from narrator.tables import GameStatus

    roles: dict[str, str | None] = {player.name: None for player in players}
    alive: dict[str, bool] = {player.name: True for player in players}
    asked: list[str] = []
    winners: list[str] = []
    teams: list[str] = []
    if rules is not None:
        ruleset, state = rules
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


@dataclass(frozen=True)
class NewGame:
    """A game to create, as ``game create`` and the admin panel's form write it (None: the
    configuration's or the ruleset's default; `options` as ``KEY=VALUE`` texts)."""

    name: str
    ruleset: str | None = None
    speed: str = DEFAULT_SPEED
    strictness: int | None = None
    theme: str | None = None
    language: str | None = None
    timezone: str | None = None
    close_early: bool = False
    reveal_roles: bool | None = None
    options: Sequence[str] = ()


def create_game(
    session: Session, config: Config, new: NewGame, *, by: str, now: datetime
) -> tuple[str, dict[str, Any]]:
    """Open the game `new` for signups in `session`'s transaction, recorded as done `by` and
    announced to running daemons; returns what was done and the game's view.  Raises
    CommandError saying what is wrong (another process creating the same name meanwhile is
    the caller's IntegrityError)."""
    from narrator.changes import announce_change
    from narrator.commands.distributions import ruleset_or_error
    from narrator.models import NAME_LENGTH, Game, GameStatus, find_game, fold_name
    from narrator.service.work import Work
    from stories.words import languages_of

    name = parse_game_name(new.name)
    try:
        speed = parse_duration(new.speed)
    except ValueError as error:
        raise CommandError(f"--speed: {error}") from None
    ruleset_id = new.ruleset or config.narrator.ruleset
    ruleset = ruleset_or_error(ruleset_id)
    defaults = ruleset.settings_defaults
    strictness = new.strictness if new.strictness is not None else defaults.get("strictness")
    strictness = strictness if isinstance(strictness, int) else DEFAULT_STRICTNESS
    if strictness < 1:
        raise CommandError(f"--strictness must be 1 or more, not {strictness}")
    reveal = new.reveal_roles if new.reveal_roles is not None else defaults.get("reveal_roles")
    reveal_roles = reveal if isinstance(reveal, bool) else True
    options = parse_options(new.options, ruleset.options)
    language = new.language or config.narrator.language
    if not _LANGUAGE.fullmatch(language):
        raise CommandError(f"--lang: not a language code: {language!r} (like nl or en)")
    told_in = languages_of(ruleset_id)
    if language not in told_in:
        raise CommandError(
            f"the {ruleset_id} ruleset has no story pack in {language!r} yet, so its mails "
            f"could not be written (packs: {', '.join(told_in) or 'none'}); choose --lang"
        )
    timezone = new.timezone if new.timezone is not None else config.narrator.timezone
    try:
        parse_timezone(timezone)
    except ValueError as error:
        raise CommandError(f"--tz: {error}") from None
    theme = new.theme or (config.narrator.theme if ruleset_id == config.narrator.ruleset else "")
    theme = theme or ruleset_id
    if not _THEME.fullmatch(theme) or len(theme) > NAME_LENGTH:
        raise CommandError(f"--theme: {theme!r} may contain only letters, digits, '-' and '_'")
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
        close_early=new.close_early,
        reveal_roles=reveal_roles,
        options=options,
        status=GameStatus.SIGNUP.value,
    )
    session.add(game)
    session.flush()
    view = game_view(Work(session), game)
    message = (
        f"created game {name} ({ruleset_id}, {language}, theme {theme}, time zone {timezone}, "
        f"speed {format_duration(speed)}, strictness {strictness}); signups are open: "
        f"players mail {config.narrator.address} with subject {name}"
    )
    record_action(session, by=by, action="create", game=game, detail=message, now=now)
    announce_change(session)
    return message, view


def _create(args: argparse.Namespace) -> None:
    from sqlalchemy.exc import IntegrityError

    from narrator.commands.db import config_from_args, database_session

    config = config_from_args(args)
    new = NewGame(
        name=args.name,
        ruleset=args.ruleset,
        speed=args.speed,
        strictness=args.strictness,
        theme=args.theme,
        language=args.lang,
        timezone=args.tz,
        close_early=args.close_early,
        reveal_roles=args.reveal_roles,
        options=tuple(args.option),
    )
    parse_game_name(new.name)  # before the database is opened
    try:
        with database_session(config) as session:
            message, view = create_game(session, config, new, by=cli_user(), now=_now())
    except IntegrityError:  # created by someone else between our check and our insert
        raise CommandError(f"a game called {args.name!r} already exists") from None
    if args.json:
        print(json.dumps(view))
        return
    print(message)


# --- list -----------------------------------------------------------------------------------


def _add_list(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    listing = commands.add_parser("list", parents=[common], help="list every game")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(func=_list)


def _list(args: argparse.Namespace) -> None:
    # Only reads: SQLAlchemy Core on the tables, as `game show`.
    from sqlalchemy import func, select

    from narrator.commands.db import config_from_args, database_connection
    from narrator.tables import games as games_table
    from narrator.tables import players

    config = config_from_args(args)
    with database_connection(config) as connection:
        counts: dict[int, int] = {
            game_id: count
            for game_id, count in connection.execute(
                select(players.c.game_id, func.count()).group_by(players.c.game_id)
            )
        }
        games = connection.execute(
            select(games_table).order_by(games_table.c.created_at, games_table.c.id)
        ).all()
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
    # Only reads: SQLAlchemy Core on the tables, not the ORM (a fifth of a second to import).
    from sqlalchemy import select

    from narrator.commands.db import config_from_args, database_connection
    from narrator.commands.distributions import ruleset_or_error
    from narrator.tables import fold_name, games, players

    config = config_from_args(args)
    with database_connection(config) as connection:
        game = connection.execute(
            select(games).where(games.c.name_key == fold_name(args.name))
        ).one_or_none()
        if game is None:
            names = connection.scalars(select(games.c.name).order_by(games.c.name)).all()
            raise unknown_game(args.name, names)
        seats = connection.execute(
            select(players.c.name, players.c.email, players.c.gender, players.c.unsubscribed)
            .where(players.c.game_id == game.id)
            .order_by(players.c.seat, players.c.id)
        ).all()
    rules = None
    if game.state is not None:
        ruleset = ruleset_or_error(game.ruleset)
        rules = (ruleset, ruleset.load_state(game.state))
    view = view_of(game, seats, rules)
    timezone = game.timezone
    unsubscribed = {seat.name for seat in seats if seat.unsubscribed}
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


def find_seat(session: Session, game: Game, name: str) -> Player:
    """The player of `game` called `name`; CommandError naming the players when there is none."""
    from narrator.models import find_player, game_players

    player = find_player(session, game, name)
    if player is None:
        names = [p.name for p in game_players(session, game)]
        known = f" (players: {', '.join(names)})" if names else " (it has no players)"
        raise CommandError(f"game {game.name} has no player called {name!r}{known}")
    return player


def unsubscribe_action(name: str) -> Action:
    """Player `name` stops receiving the game's group mails."""

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        player = find_seat(work.session, game, name)
        if player.unsubscribed:
            return f"{player.name} of {game.name} was already unsubscribed"
        player.unsubscribed = True
        return f"{player.name} <{player.email}> no longer receives the group mails of {game.name}"

    return action


def _unsubscribe(args: argparse.Namespace) -> None:
    _drive(args, "unsubscribe", unsubscribe_action(args.player))


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


def revoke_link_action(name: str) -> Action:
    """Revoke player `name`'s personal link (the old one opens nothing from now on)."""

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        from narrator.service.games import revoke_link

        player = find_seat(work.session, game, name)
        generation = revoke_link(work, game, player, now=now)
        return (
            f"revoked the personal link of {player.name} in {game.name}: his old link opens "
            f"nothing, his next mails carry the new one (generation {generation}; "
            f"'narrator game link {game.name} {player.name}' prints it)"
        )

    return action


def _revoke_link(args: argparse.Namespace) -> None:
    _drive(args, "revoke-link", revoke_link_action(args.player))


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


def _now() -> datetime:
    return datetime.now(UTC)


def cli_user() -> str:
    """Who acts from the command line, as the admin actions record it: ``cli:<login name>``."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name (a container's nameless uid)
        return "cli"


def record_action(
    session: Session, *, by: str, action: str, game: Game, detail: str, now: datetime
) -> None:
    """Store and log that `by` did `action` on `game` (``detail``: what it printed)."""
    from narrator.models import AdminAction

    session.add(
        AdminAction(at=now, by=by, action=action, game_id=game.id, game=game.name, detail=detail)
    )
    log.info("admin action %s on %s by %s: %s", action, game.name, by, detail)


def drive(
    session: Session,
    mailer: Mailer,
    name: str,
    verb: str,
    action: Action,
    *,
    by: str,
    now: datetime,
) -> tuple[str, dict[str, Any]]:
    """Run `action` (named `verb`) on the game called `name` in `session`'s transaction, record
    that `by` did it, and tell running daemons at the commit (the CLI and the admin panel
    both act through here).  Returns what was done and the game's view afterwards; raises
    CommandError for an unknown game or what the game's status does not allow."""
    from narrator.changes import announce_change
    from narrator.service.games import GameError
    from narrator.service.work import work_in

    with work_in(session) as work:
        game = open_game(session, name)
        try:
            message = action(work, mailer, game, now)
        except GameError as error:
            raise CommandError(str(error)) from None
        view = game_view(work, game)
    # The action's states are written (work_in's end) before the change is announced; the
    # counter's row is locked last, only for the commit: a running daemon sends what the
    # action queued and re-reads the deadline within a second.
    record_action(session, by=by, action=verb, game=game, detail=message, now=now)
    announce_change(session)
    return message, view


def _drive(args: argparse.Namespace, verb: str, action: Action) -> None:
    """Run one action on the named game in one transaction; print what it did (or the view)."""
    from narrator.commands.db import config_from_args, database_session

    config = config_from_args(args)
    with database_session(config) as session:
        message, view = drive(
            session, _mailer(config, session), args.name, verb, action, by=cli_user(), now=_now()
        )
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


def start_action(seed: int | None = None, distribution: str | None = None) -> Action:
    """Close signups, deal the roles (with `seed`, by `distribution`) and open the first step."""

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        from narrator.service import games as service

        service.start_game(work, mailer, game, now=now, seed=seed, distribution_id=distribution)
        return (
            f"started {game.name} with distribution {game.distribution_id} (seed {game.seed}); "
            f"step {game.step or '-'}, deadline {iso(game.deadline)}"
        )

    return action


def _start(args: argparse.Namespace) -> None:
    _drive(args, "start", start_action(args.seed, args.distribution))


def _add_close_step(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    close = commands.add_parser(
        "close-step", parents=[common], help="resolve the current step now, as at its deadline"
    )
    close.add_argument("name", metavar="NAME")
    close.add_argument("--json", action="store_true", help="print the game as JSON")
    close.set_defaults(func=_close_step)


def close_step_action() -> Action:
    """Resolve the current step now, as at its deadline."""

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        from narrator.models import GameStatus
        from narrator.service import games as service

        step = game.step
        events = service.close_step(work, mailer, game, now=now)
        after = "the game is over" if game.status == GameStatus.ENDED.value else f"now {game.step}"
        return f"closed step {step} of {game.name} ({len(events)} events); {after}"

    return action


def _close_step(args: argparse.Namespace) -> None:
    _drive(args, "close-step", close_step_action())


def _add_pause(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    for verb, handler, text in (
        ("pause", _pause, "stop a game's clock (votes wait until it resumes)"),
        ("resume", _resume, "restart a paused game's clock with the time that was left"),
    ):
        parser = commands.add_parser(verb, parents=[common], help=text)
        parser.add_argument("name", metavar="NAME")
        parser.add_argument("--json", action="store_true", help="print the game as JSON")
        parser.set_defaults(func=handler)


def pause_action() -> Action:
    """Stop a running game's clock."""

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        from narrator.service import games as service

        service.pause_game(work, game, now=now)
        return f"paused {game.name}"

    return action


def resume_action() -> Action:
    """Restart a paused game's clock with the time that was left."""

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        from narrator.service import games as service

        service.resume_game(work, game, now=now)
        return f"resumed {game.name}; deadline {iso(game.deadline)}"

    return action


def _pause(args: argparse.Namespace) -> None:
    _drive(args, "pause", pause_action())


def _resume(args: argparse.Namespace) -> None:
    _drive(args, "resume", resume_action())


def _add_extend(commands: Subparsers, common: argparse.ArgumentParser) -> None:
    extend = commands.add_parser("extend", parents=[common], help="move the deadline later")
    extend.add_argument("name", metavar="NAME")
    extend.add_argument("by", metavar="DURATION", help="how much later: 90s, 10m, 2h, 2d")
    extend.add_argument("--json", action="store_true", help="print the game as JSON")
    extend.set_defaults(func=_extend)


def extend_action(by: str) -> Action:
    """Move the deadline later by the duration `by` (90s, 10m, 2h, 2d); CommandError when it
    is no duration (at once, before any game is read)."""
    try:
        seconds = parse_duration(by)
    except ValueError as error:
        raise CommandError(f"DURATION: {error}") from None

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        from narrator.service import games as service

        service.extend_deadline(work, game, timedelta(seconds=seconds), now=now)
        return f"extended {game.name} by {format_duration(seconds)}; deadline {iso(game.deadline)}"

    return action


def _extend(args: argparse.Namespace) -> None:
    _drive(args, "extend", extend_action(args.by))


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


def remove_action(player_name: str, by: str) -> Action:
    """Take `player_name` out of the running game the ruleset's way (Lupus: disqualified, an
    exile; the others: a death by removal), every player told; `by` did it."""

    def action(work: Work, mailer: Mailer, game: Game, now: datetime) -> str:
        from narrator.models import GameStatus, find_player
        from narrator.service.removal import remove_player

        player = find_player(work.session, game, player_name)
        if player is None:
            raise CommandError(f"game {game.name} has no player called {player_name!r}")
        events = remove_player(work, mailer, game, player, now=now, by=by)
        told = ", ".join(e["type"] for e in events)
        over = game.status == GameStatus.ENDED.value
        after = "the game is over" if over else f"still {game.step}"
        return f"removed {player.name} from {game.name} ({told}); {after}"

    return action


def _remove(args: argparse.Namespace) -> None:
    _drive(args, "remove", remove_action(args.player, cli_user()))


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
