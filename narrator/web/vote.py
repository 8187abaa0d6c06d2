"""A vote in the form of a player's page goes exactly the way of a mail: it becomes one.

The form's choice is written as a player writes it (the names, the action's keyword, or the
blank word, in the game's words) into a mail from his address to the narrator, titled with the
game's name, and that mail is stored in the inbox like any other (source ``web``): the
inbox worker reads it with the same parser, checks it with the same rules, answers it with the
same receipt (or error) mail, and stores the same records.  The token vouches for the sender,
so the mail carries what the narrator's own checks ask of a player's mail: his personal reply
address (``plus_addressing``) and a passing ``Authentication-Results`` of the configured
authserv-id (``sender_auth``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.utils import format_datetime, formataddr

from narrator.models import Game, Player

#: The largest form body read (a form of a thousand names is far smaller).
MAX_FORM_BYTES = 64 * 1024


@dataclass(frozen=True)
class Envelope:
    """How the narrator's checks want a player's mail: the address to write to (his personal
    reply address, else the narrator's) and the authserv-id to vouch with (None: none asked)."""

    narrator: str
    reply_address: Callable[[Game, str], str] | None = None
    authserv_id: str | None = None


#: The most words a form may send (names, blank word, keyword), and the longest word.
MAX_WORDS = 200
MAX_WORD = 64


def ballot_body(form: Mapping[str, Sequence[str]]) -> str | None:
    """The body a player would write for the form's choice: the names he ticked (or the blank
    word), then the action's keyword word, as the form wrote them.  Nothing is checked here
    but their shape (the parser and the rules judge the mail, as any mail): a form from an
    earlier step is answered as a late mail is.  None: words no form writes (spaces or
    control characters in one, too many, too long)."""
    names = list(form.get("name", []))
    blank = list(form.get("blank", [])) if not names else []
    words = [*names, *blank[:1], *form.get("keyword", [])[:1]]
    if len(words) > MAX_WORDS:
        return None
    if not all(_is_word(word) for word in words):
        return None
    return " ".join(words)


def _is_word(word: str) -> bool:
    """One word, as a form writes it: no space, no control character, not too long."""
    return 0 < len(word) <= MAX_WORD and not any(c.isspace() or not c.isprintable() for c in word)


def vote_mail(
    envelope: Envelope, game: Game, player: Player, body: str, now: datetime
) -> tuple[bytes, str]:
    """The mail `player` would send with `body`; returns its raw bytes and Message-ID."""
    domain = envelope.narrator.rpartition("@")[2] or "localhost"
    message_id = f"<web.{secrets.token_hex(16)}@{domain}>"
    to = envelope.narrator
    if envelope.reply_address is not None:
        to = envelope.reply_address(game, player.email)
    headers = []
    if envelope.authserv_id is not None:
        sender_domain = player.email.rpartition("@")[2]
        headers.append(
            f"Authentication-Results: {envelope.authserv_id}; "
            f"dmarc=pass header.from={sender_domain}"
        )
    headers += [
        f"From: {formataddr((player.name, player.email))}",
        f"To: {to}",
        f"Subject: {' '.join(game.name.split())}",
        f"Message-ID: {message_id}",
        f"Date: {format_datetime(now)}",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: 8bit",
    ]
    raw = ("\r\n".join(headers) + "\r\n\r\n" + body + "\r\n").encode("utf-8")
    return raw, message_id
