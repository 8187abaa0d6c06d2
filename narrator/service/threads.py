"""Mail threads of a game: its root Message-ID, the subject of each game day, reply subjects.

Every mail of a game carries ``References: <root>``, where the root is a Message-ID derived
from the game (never sent itself): clients that thread by references (Apple Mail, Thunderbird)
show one thread per game.  Clients that also need equal subjects (Gmail, Outlook) show one
conversation per game day, since every mail of one day and night is titled alike:
``WW5 — Nacht 3``, ``WW5 — Dag 2`` (the moment in the pack's words), never a role.
Receipts and errors answer the player's own mail: ``Re: <his subject>``, ``In-Reply-To`` his
mail, his ``References`` kept.  See docs/operations.md, "Mail threads".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from narrator.models import Game
from stories.render import moment_in

#: The longest subject we write in answer to a player (his own subject, shortened).
MAX_SUBJECT = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_REPLY_PREFIX = re.compile(r"\s*re\s*(?:\[\d+\])?\s*:", re.IGNORECASE)
_DOMAIN = re.compile(r"[A-Za-z0-9.-]+")


def root_message_id(game: Game, domain: str) -> str:
    """The Message-ID every mail of `game` References: ``<narrator.game-42.20261118T090000@d>``.

    Stable across restarts (the game's id and creation time, both stored); the creation time
    keeps a game of a new database from joining the thread of an old game with the same id.
    """
    domain = domain.strip().lower()
    if not _DOMAIN.fullmatch(domain):
        raise ValueError(f"not a domain name: {domain!r}")
    created = f".{game.created_at:%Y%m%dT%H%M%S}" if game.created_at is not None else ""
    return f"<narrator.game-{game.id}{created}@{domain}>"


def day_subject(game_name: str, moment: str) -> str:
    """The subject of every mail of one game day or night: ``WW5 — Nacht 3``."""
    return f"{game_name} — {moment}" if moment else game_name


def moment_subject(game: Game, context: Mapping[str, Any]) -> str:
    """The day subject of a mail whose story context is `context` (its `game` says the moment:
    the step the mail is about, the night and day), in the game's language."""
    story_game = context.get("game")
    if story_game is None:
        return game.name
    return day_subject(game.name, moment_in(story_game, game.ruleset, game.language))


def reply_subject(subject: str) -> str:
    """``Re: <subject>`` for an answer to a player's mail ("" when his subject is empty).

    Header-safe: control characters and line breaks become spaces, runs of spaces one; a
    subject that already starts with ``Re:`` keeps its one prefix (RFC 5322 §3.6.5); at most
    :data:`MAX_SUBJECT` characters, cut at a space.
    """
    text = " ".join(_CONTROL.sub(" ", subject).split())
    if not text:
        return ""
    if not _REPLY_PREFIX.match(text):
        text = f"Re: {text}"
    if len(text) > MAX_SUBJECT:
        cut = text[: MAX_SUBJECT - 1]
        space = cut.rfind(" ")
        text = (cut[:space] if space > MAX_SUBJECT // 2 else cut).rstrip() + "…"
    return text
