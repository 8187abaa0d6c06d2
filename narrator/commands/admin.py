"""`narrator admin add|list|remove`: who receives the players' Help mails."""

from __future__ import annotations

import argparse
import json
import re

from narrator.cli import CommandError, Subparsers

_ADDRESS = re.compile(r"[^@\s<>\"(),;:]+@[^@\s<>\"(),;:]+\.[^@\s<>\"(),;:.]+")


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator admin add EMAIL`, `admin list`, `admin remove EMAIL`."""
    parser = subparsers.add_parser(
        "admin", parents=[common], help="administrators (they receive Help mails)"
    )
    commands = parser.add_subparsers(title="admin commands", metavar="COMMAND", required=True)

    add = commands.add_parser("add", parents=[common], help="add an administrator")
    add.add_argument("email", metavar="EMAIL")
    add.set_defaults(func=_add)

    listing = commands.add_parser("list", parents=[common], help="list the administrators")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")
    listing.set_defaults(func=_list)

    remove = commands.add_parser("remove", parents=[common], help="remove an administrator")
    remove.add_argument("email", metavar="EMAIL")
    remove.set_defaults(func=_remove)


def parse_email(text: str) -> str:
    """Return the stored form of an address typed on the command line; CommandError if bad."""
    from narrator.models import EMAIL_LENGTH, fold_email

    email = fold_email(text)
    if len(email) > EMAIL_LENGTH or not _ADDRESS.fullmatch(email):
        raise CommandError(f"not an e-mail address: {text!r} (expected like name@example.org)")
    return email


def _add(args: argparse.Namespace) -> None:
    from sqlalchemy import select

    from narrator.commands.db import config_from_args, database_session
    from narrator.models import Admin

    email = parse_email(args.email)
    with database_session(config_from_args(args)) as session:
        if session.scalars(select(Admin).where(Admin.email == email)).first() is not None:
            raise CommandError(f"{email} is already an administrator")
        session.add(Admin(email=email))
    print(f"added administrator {email}")


def _remove(args: argparse.Namespace) -> None:
    from sqlalchemy import select

    from narrator.commands.db import config_from_args, database_session
    from narrator.models import Admin

    email = parse_email(args.email)
    config = config_from_args(args)
    with database_session(config) as session:
        admin = session.scalars(select(Admin).where(Admin.email == email)).first()
        if admin is None:
            if email in config.admins.emails:
                raise CommandError(
                    f"{email} is an administrator by the configuration file; remove it there"
                )
            raise CommandError(f"{email} is not an administrator")
        session.delete(admin)
    print(f"removed administrator {email}")


def _list(args: argparse.Namespace) -> None:
    from sqlalchemy import select

    from narrator.commands.db import config_from_args, database_session
    from narrator.models import Admin

    config = config_from_args(args)
    with database_session(config) as session:
        stored = list(session.scalars(select(Admin).order_by(Admin.email)))
    rows = [{"email": email, "source": "config"} for email in config.admins.emails]
    rows += [
        {"email": admin.email, "source": "database"}
        for admin in stored
        if admin.email not in config.admins.emails
    ]
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            note = "  (from the configuration file)" if row["source"] == "config" else ""
            print(f"{row['email']}{note}")
    if not rows and not args.json:
        print("no administrators (add one with `narrator admin add EMAIL`)")
