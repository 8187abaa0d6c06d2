"""`narrator parse FILE.eml`: show how a raw mail would be understood, changing nothing.

The game context comes from the options: ``--players "Anna,Bram"`` stands in for the players
(no database); ``--game NAME`` names the game the subject must match and, without
``--players``, reads the mail as the narrator would now: that game's players, language and
signup state from the database and, for a player of a running game (the mail's sender, or
``--me``), how many names his moves take and his choices that are no names (a role, a team, a
number), exactly as the inbox reads it (when the database has no such game, the name alone is
used for subject matching).  ``--count``, ``--usable`` and ``--me`` override that reading;
``--ruleset`` chooses the words read (keywords, blank words, genders; default the game's).
Without ``--game`` any subject names the game.  The output is the object of interfaces §6
with ``--json``, else a few readable lines.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.cli import CommandError, Subparsers

if TYPE_CHECKING:
    from narrator.config import Config
    from parsing import (
        Command,
        GameInfo,
        MailContext,
        ParsedMail,
    )

MAX_FILE_BYTES = 64 * 1024 * 1024
DEFAULT_ADDRESS = "verteller@example.org"


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator parse`."""
    parser = subparsers.add_parser(
        "parse",
        parents=[common],
        help="show how a raw mail would be understood (changes nothing)",
        description="Show how a raw RFC 5322 mail would be understood: the command, its "
        "targets and keywords, or the error reply the player would get.",
    )
    parser.add_argument("file", metavar="FILE.eml", help="the raw mail ('-' for stdin)")
    parser.add_argument("--game", metavar="NAME", help="the game the subject must name")
    parser.add_argument(
        "--players", metavar="NAMES", help='comma-separated player names, e.g. "Anna,Bram"'
    )
    parser.add_argument("--signup", action="store_true", help="treat the game as open for signups")
    parser.add_argument(
        "--ruleset",
        metavar="ID",
        help="the ruleset whose words are read (default: the game's, else [narrator] ruleset)",
    )
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help="language of the words and error messages (default: the game's; any language "
        "the ruleset has a story pack for: nl, en, it, ru)",
    )
    parser.add_argument(
        "--count",
        metavar="[KEYWORD=]MIN-MAX",
        action="append",
        help="how many names the sender must give (default 1; e.g. 2 for cupido, 0-2 for heks); "
        "with KEYWORD= for that keyword's vote (0 lets it come without a name); repeatable",
    )
    parser.add_argument(
        "--usable",
        metavar="KEYWORDS",
        help="comma-separated keyword ids the sender may use now; others are dropped "
        "(default: all)",
    )
    parser.add_argument("--me", metavar="NAME", help="the sender's own player name")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Parse the file, route it and read it in the context the options give, print the result."""
    from parsing import MailContext, Route, command_to_dict, parse_mail, read_command, route
    from stories.lexicon import explainer_for, help_words, lexicon_for

    name_counts = dict(_count(text) for text in args.count or ())
    raw = _read(args.file)
    parsed = parse_mail(raw)
    config = _config(args)
    own = frozenset({(config.narrator.address or DEFAULT_ADDRESS).lower()})
    default_language = args.lang or config.narrator.language
    found = _game_info(args, parsed, config, default_language)
    names = (found.info.name,) if found is not None else ()
    explain = explainer_for(config.narrator.ruleset, default_language)
    routed = route(parsed, names, own, explain, help_words())
    command: Command
    if isinstance(routed, Route):
        assert found is not None  # its name was the only one to route to
        if found.context is not None:  # the narrator's own reading of the stored game
            context = found.context
            if args.count:
                context = replace(context, name_counts=name_counts)
            if args.usable is not None:
                context = replace(context, usable_keywords=_usable(args.usable))
        else:
            context = MailContext(
                lexicon=lexicon_for(found.ruleset, found.language),
                sender_player=args.me,
                name_counts=name_counts,
                usable_keywords=_usable(args.usable),
                explain=explainer_for(found.ruleset, found.language),
            )
        command = read_command(parsed, found.info, context)
    else:
        command = routed
    result = command_to_dict(command, parsed)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        _print_readable(result, parsed)
    return 0


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read(MAX_FILE_BYTES)
    path = Path(name)
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE_BYTES)
    except OSError as error:
        raise CommandError(f"cannot read {name}: {error.strerror or error}") from None


def _count(text: str) -> tuple[str, tuple[int, int]]:
    """``--count``: the keyword id (``""`` for the plain vote) and its (min, max) names."""
    keyword, _, counts = text.rpartition("=")
    low, _, high = counts.partition("-")
    try:
        bounds = (int(low), int(high or low))
    except ValueError:
        raise CommandError(
            f"--count {text!r}: expected [KEYWORD=]N or [KEYWORD=]MIN-MAX, e.g. 2 or 0-2"
        ) from None
    if bounds[0] < 0 or bounds[1] < bounds[0]:
        raise CommandError(f"--count {text!r}: expected 0 <= MIN <= MAX")
    return keyword.strip(), bounds


def _usable(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    return frozenset(word.strip() for word in text.split(",") if word.strip())


def _players(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise CommandError("--players: give at least one name, e.g. --players 'Anna,Bram'")
    return names


def _config(args: argparse.Namespace) -> Config:
    """The configuration (only the address, language and database are used)."""
    from narrator.config import ConfigError, load_config

    try:
        return load_config(getattr(args, "config", None))
    except ConfigError as error:
        raise CommandError(str(error)) from None


@dataclass(frozen=True)
class _Game:
    """The game a mail is read for: the parser's view, its language and its ruleset."""

    info: GameInfo
    language: str
    ruleset: str
    context: MailContext | None = None  # a stored game: the narrator's reading of the sender


class _BadOption(CommandError):
    """An option the game refuses (``--lang`` it has no words for, ``--me`` no player)."""


def _language(args: argparse.Namespace, ruleset: str, default: str) -> str:
    """``--lang``, refused politely when the ruleset has no story pack in it."""
    from stories.words import languages_of

    if args.lang is None:
        return default
    known = languages_of(ruleset)
    if args.lang not in known:
        raise _BadOption(
            f"--lang {args.lang}: the {ruleset} ruleset speaks {', '.join(known) or 'no language'}"
        )
    return str(args.lang)


def _game_info(
    args: argparse.Namespace, parsed: ParsedMail, config: Config, language: str
) -> _Game | None:
    from parsing import GameInfo

    ruleset = args.ruleset or config.narrator.ruleset
    if args.players is not None:
        name = args.game or _subject_game(parsed.subject)
        info = GameInfo(name, args.signup, _players(args.players))
        return _Game(info, _language(args, ruleset, language), ruleset) if name else None
    if args.game is None:
        name = _subject_game(parsed.subject)
        game = _Game(GameInfo(name, args.signup), _language(args, ruleset, language), ruleset)
        return game if name else None
    stored = _stored_game(args, parsed.sender, config)
    if stored is None:
        print(
            f"narrator: note: game {args.game!r} not found in the database; "
            "matching the subject only (give --players to test names)",
            file=sys.stderr,
        )
        return _Game(GameInfo(args.game, args.signup), _language(args, ruleset, language), ruleset)
    return stored


def _subject_game(subject: str) -> str:
    """Without ``--game``, the subject's first word names the game (game names have no
    spaces), unless it is ``Help``."""
    match = re.match(r"[\w-]+", subject.strip())
    return match.group(0) if match else ""


def _stored_game(args: argparse.Namespace, sender: str, config: Config) -> _Game | None:
    """The game ``--game`` names, read from the database as the inbox reads a mail from
    ``sender`` (or from the player ``--me`` names), or None when there is no database (an
    absent SQLite file is not created) or no such game.  ``--ruleset`` and ``--lang`` choose
    other words than the game's."""
    from sqlalchemy.engine import make_url

    from narrator.commands.db import database_session
    from narrator.models import GameStatus, find_game
    from narrator.service.inbox import reading_for
    from narrator.service.table import table_of
    from narrator.service.work import Work
    from stories.lexicon import explainer_for, lexicon_for

    url = make_url(config.database_url)
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if not database or database == ":memory:" or not Path(database).exists():
            return None
    try:
        with database_session(config) as session:
            game = find_game(session, args.game)
            if game is None:
                return None
            work = Work(session)
            players = work.players(game)
            if args.me is not None:
                me = next((p for p in players if p.name.casefold() == args.me.casefold()), None)
                if me is None:
                    raise _BadOption(f"--me {args.me}: no player of {game.name} has that name")
                sender = me.email
            reading = reading_for(table_of(work, game), sender)
            ruleset = args.ruleset or game.ruleset
            language = _language(args, ruleset, game.language)
            context = reading.context
            if (ruleset, language) != (game.ruleset, game.language):
                context = replace(
                    context,
                    lexicon=lexicon_for(ruleset, language),
                    explain=explainer_for(ruleset, language),
                )
            if reading.player is None and args.me is None:
                context = replace(context, sender_player=None)
            signup_open = game.status == GameStatus.SIGNUP.value
            info = replace(reading.info, signup_open=signup_open or args.signup)
            return _Game(info, language, ruleset, context)
    except _BadOption:
        raise
    except CommandError:  # no database to read: match the subject only
        return None


def _print_readable(result: Mapping[str, object], parsed: ParsedMail) -> None:
    kind = result["kind"]
    print(f"from:    {parsed.sender_name} <{parsed.sender}>".replace(":     <", ":    <"))
    print(f"subject: {parsed.raw_subject!r} -> {parsed.subject!r}")
    print(f"text:    {parsed.body!r}")
    moves = result.get("moves")
    if kind == "vote" and isinstance(moves, list):  # a mail of several moves: each
        print(f"{len(moves)} moves in {result['game']}:")
        for move in moves:
            if isinstance(move, dict) and move.get("kind") == "vote":
                what = "blanco" if move["blanco"] else ", ".join(move["targets"])
                extra = f" [{', '.join(move['keywords'])}]" if move["keywords"] else ""
                print(f"  {move['written']!r}: {what}{extra}")
            elif isinstance(move, dict):
                print(f"  {move['written']!r}: error {move['code']}: {move['message']}")
    elif kind == "vote":
        targets = ", ".join(result["targets"]) if isinstance(result["targets"], list) else ""
        what = "blanco" if result["blanco"] else targets
        keywords = result.get("keywords") or []
        extra = f" [{', '.join(keywords)}]" if isinstance(keywords, list) and keywords else ""
        print(f"vote in {result['game']}: {what}{extra}")
        corrections = result.get("corrections")
        if isinstance(corrections, list):
            for item in corrections:
                if isinstance(item, dict):
                    print(f"  understood {item['written']!r} as {item['understood']}")
    elif kind == "signup":
        print(f"signup for {result['game']}: {result['name']}, {result['gender']}")
    elif kind == "help":
        print("help: forwarded to the admins")
    elif kind == "ignore":
        print(f"ignored ({result['reason']}): never answered")
    else:
        print(f"error {result['code']}: {result['message']}")
