"""`narrator admin add|list|remove|password`: who receives the players' Help mails, and the
admins' passwords of the admin panel (``/admin``, docs/web.md)."""

from __future__ import annotations

import argparse
import getpass
import json
import re
import sys

from narrator.cli import CommandError, Subparsers

_ADDRESS = re.compile(r"[^@\s<>\"(),;:]+@[^@\s<>\"(),;:]+\.[^@\s<>\"(),;:.]+")


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator admin add EMAIL`, `admin list`, `admin remove EMAIL`,
    `admin password EMAIL`."""
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

    password = commands.add_parser(
        "password",
        parents=[common],
        help="set an administrator's password of the admin panel (/admin)",
        description="Set the password EMAIL logs in to the admin panel with (stored as an "
        "argon2 hash; his open sessions end). Asked twice on the terminal, or read from the "
        "first line of standard input with --stdin.",
    )
    password.add_argument("email", metavar="EMAIL")
    password.add_argument(
        "--stdin", action="store_true", help="read the password from standard input's first line"
    )
    password.set_defaults(func=_password)


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
    from narrator.models import Admin, AdminPassword

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
        password = session.get(AdminPassword, email)
        if password is not None:  # added again one day, he sets a new one
            session.delete(password)
    print(f"removed administrator {email}")


def _read_password(from_stdin: bool) -> str:
    """The new password: standard input's first line, or typed twice on the terminal."""
    from narrator.web.auth import MIN_PASSWORD_LENGTH

    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        try:
            password = getpass.getpass("New password: ")
            again = getpass.getpass("The same again: ")
        except (EOFError, KeyboardInterrupt):
            raise CommandError("no password set") from None
        if password != again:
            raise CommandError("the two passwords differ; nothing set")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise CommandError(
            f"a password needs at least {MIN_PASSWORD_LENGTH} characters; nothing set"
        )
    return password


def _password(args: argparse.Namespace) -> None:
    from narrator.commands.db import config_from_args, database_session
    from narrator.models import AdminPassword, admin_emails, utcnow
    from narrator.web.auth import hash_password

    email = parse_email(args.email)
    config = config_from_args(args)
    with database_session(config) as session:
        if email not in admin_emails(session, config.admins.emails):
            raise CommandError(
                f"{email} is not an administrator (add one with `narrator admin add EMAIL` "
                "or in [admins] emails)"
            )
    hashed = hash_password(_read_password(args.stdin))
    with database_session(config) as session:
        row = session.get(AdminPassword, email)
        if row is None:
            session.add(AdminPassword(email=email, hash=hashed, updated_at=utcnow()))
        else:
            row.hash, row.updated_at = hashed, utcnow()
    print(f"set the admin panel password of {email} (his open sessions end)")


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
