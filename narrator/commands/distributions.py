"""`narrator distributions list|add`: role distributions (built into the ruleset, or added here)."""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from narrator.cli import CommandError, Subparsers

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from narrator.models import RoleDistribution

MIN_PLAYERS = 3
MAX_PLAYERS = 1000
_FILE_KEYS = ("id", "ruleset", "players", "roles")  # and the ruleset's options (mayor, …)
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator distributions list [--players N]` and `distributions add FILE`."""
    parser = subparsers.add_parser(
        "distributions", parents=[common], help="role distributions (Rolverdelingen)"
    )
    commands = parser.add_subparsers(
        title="distributions commands", metavar="COMMAND", required=True
    )

    listing = commands.add_parser(
        "list", parents=[common], help="list the built-in and added distributions"
    )
    listing.add_argument("--players", type=int, metavar="N", help="only those for N players")
    listing.add_argument("--ruleset", help="ruleset (default: [narrator] ruleset, wakkerdam)")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(func=_list)

    add = commands.add_parser(
        "add",
        parents=[common],
        help="add a distribution from a TOML file (players, roles, ruleset options: mayor; "
        "Mafia: negative, faceless, elite)",
    )
    add.add_argument("file", metavar="FILE", type=Path)
    add.set_defaults(func=_add)


def ruleset_or_error(ruleset_id: str) -> Any:
    """Return the rules engine's ruleset `ruleset_id`; CommandError when there is none."""
    from rules import get_ruleset  # imported here: only these commands need the rules engine

    try:
        return get_ruleset(ruleset_id)
    except LookupError as error:  # rules.UnknownRuleset
        raise CommandError(str(error)) from None


def stored_distributions(
    session: Session, ruleset_id: str, players: int | None = None
) -> list[RoleDistribution]:
    """Return the distributions admins added for `ruleset_id` (for `players` only, if given)."""
    from sqlalchemy import select

    from narrator.models import RoleDistribution

    query = select(RoleDistribution).where(RoleDistribution.ruleset == ruleset_id)
    if players is not None:
        query = query.where(RoleDistribution.players == players)
    return list(session.scalars(query.order_by(RoleDistribution.players, RoleDistribution.key)))


def _row(
    ruleset_id: str,
    key: str,
    players: int,
    roles: list[str],
    options: Mapping[str, Any],
    source: str,
) -> dict[str, Any]:
    """One distribution as `list --json` prints it: its options stand beside the roles, as in
    its file."""
    return {
        "id": key,
        "ruleset": ruleset_id,
        "players": players,
        "roles": dict(sorted(Counter(roles).items())),
        **dict(sorted(options.items())),
        "source": source,
    }


def distribution_rows(
    session: Session, ruleset_id: str, players: int | None = None
) -> list[dict[str, Any]]:
    """Every distribution of `ruleset_id` (for `players` only, if given), built-in and added,
    as `list --json` prints them, in its order (the admin panel shows the same)."""
    ruleset = ruleset_or_error(ruleset_id)
    rows = [
        _row(ruleset_id, d.id, d.players, list(d.roles), d.options, "builtin")
        for d in ruleset.distributions
        if players is None or d.players == players
    ]
    rows += [
        _row(ruleset_id, d.key, d.players, list(d.roles), d.options, "custom")
        for d in stored_distributions(session, ruleset_id, players)
    ]
    rows.sort(key=lambda row: (row["players"], row["source"], row["id"]))
    return rows


def _list(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session

    if args.players is not None and args.players < 1:
        raise CommandError("--players must be a positive number")
    config = config_from_args(args)
    args.ruleset = args.ruleset or config.narrator.ruleset
    ruleset_or_error(args.ruleset)
    with database_session(config) as session:
        rows = distribution_rows(session, args.ruleset, args.players)
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            roles = ", ".join(f"{count} {role}" for role, count in row["roles"].items())
            options = "".join(
                f", {key}={json.dumps(value)}"
                for key, value in row.items()
                if key not in ("id", "ruleset", "players", "roles", "source")
            )
            print(f"{row['id']}  {row['players']} players{options}, {row['source']}: {roles}")
    if not rows and not args.json:
        wanted = f" for {args.players} players" if args.players is not None else ""
        print(f"no distributions{wanted}")


def _add(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.models import RoleDistribution

    data = _read(args.file)
    config = config_from_args(args)
    ruleset_id = data.get("ruleset", config.narrator.ruleset)
    if not isinstance(ruleset_id, str):
        raise CommandError(f"{args.file}: 'ruleset' must be a string")
    ruleset = ruleset_or_error(ruleset_id)
    # The ruleset's options and the keys its distributions carry (Mafia: negative, elite, …).
    keys = {**ruleset.options, **ruleset.distribution_keys}
    key, players, roles, options = _validate(data, args.file, keys)
    unknown = sorted(set(roles) - set(ruleset.roles))
    if unknown:
        known = ", ".join(sorted(ruleset.roles))
        raise CommandError(
            f"{args.file}: unknown role(s) {', '.join(unknown)} for ruleset {ruleset_id} "
            f"(known: {known})"
        )
    builtin_ids = {d.id for d in ruleset.distributions}
    with database_session(config) as session:
        taken = builtin_ids | {d.key for d in stored_distributions(session, ruleset_id)}
        if key is None:
            number = 1
            while f"custom-{players}-{number}" in taken:
                number += 1
            key = f"custom-{players}-{number}"
        elif key in taken:
            raise CommandError(f"{args.file}: a distribution with id {key!r} already exists")
        session.add(
            RoleDistribution(
                ruleset=ruleset_id,
                key=key,
                players=players,
                roles=sorted(roles),
                options=options,
            )
        )
    print(f"added distribution {key} ({players} players) to {ruleset_id}")


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except OSError as error:
        raise CommandError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise CommandError(f"{path}: not valid TOML: {error}") from None


def _validate(
    data: Mapping[str, Any], path: Path, known_options: Mapping[str, Any]
) -> tuple[str | None, int, list[str], dict[str, Any]]:
    """Check a distribution file; return its id, players, roles and ruleset options."""
    from narrator.models import NAME_LENGTH
    from rules.core.model import Settings

    allowed = (*_FILE_KEYS, *known_options)
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise CommandError(
            f"{path}: unknown key(s) {', '.join(unknown)} (expected: {', '.join(allowed)})"
        )
    for required in ("players", "roles"):
        if required not in data:
            raise CommandError(f"{path}: missing key {required!r} (players, roles)")
    options = {name: data[name] for name in known_options if name in data}
    try:
        Settings(options=options).check_options(known_options)
    except ValueError as error:
        raise CommandError(f"{path}: {error}") from None
    key = data.get("id")
    if key is not None and (
        not isinstance(key, str) or not _ID.fullmatch(key) or len(key) > NAME_LENGTH
    ):
        raise CommandError(
            f"{path}: 'id' must be letters, digits, '-', '_' or '.' (at most {NAME_LENGTH})"
        )
    players = data["players"]
    if not isinstance(players, int) or isinstance(players, bool):
        raise CommandError(f"{path}: 'players' must be a whole number")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CommandError(
            f"{path}: 'players' must be between {MIN_PLAYERS} and {MAX_PLAYERS}, not {players}"
        )
    roles = _roles(data["roles"], path)
    if len(roles) != players:
        raise CommandError(f"{path}: {len(roles)} roles for {players} players (must be equal)")
    return key, players, roles, options


def _roles(value: Any, path: Path) -> list[str]:
    """Read roles as a table ``{weerwolf = 2, burger = 5}`` or a list of role ids."""
    if isinstance(value, dict):
        roles: list[str] = []
        for role, count in value.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise CommandError(f"{path}: roles.{role} must be a whole number >= 0")
            roles += [role] * count
        return roles
    if isinstance(value, list) and all(isinstance(role, str) for role in value):
        return list(value)
    raise CommandError(
        f"{path}: 'roles' must be a table like {{weerwolf = 2, burger = 5}} or a list of role ids"
    )
