"""Several moves in one mail: one per line (and ``heal Alan, kill Dora`` on one), each read alone.

A player with more than one move in a step (a Mafia player who is also the Doctor, the White
Werewolf, a Lupus Sindaco) writes them as a forum player writes his host: one move a line.  A
mail is read as several moves only when its lines name two of the sender's moves or more
(``MailContext.moves``); every other mail is one move, read as it always was.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from parsing.model import ErrorCode, GameInfo, MailContext, Move, Moves, ParseError, Vote
from parsing.names import fold, letter_words

#: Where a line may hold a second move: after a comma or a semicolon, when a keyword follows.
_SEPARATOR = re.compile(r"[,;]")
#: The most lines read as moves (a mail of more is read as one move, as before).
MAX_PIECES = 50
#: The longest text of one move quoted back in a receipt.
MAX_WRITTEN = 80

Reader = Callable[[str], Vote | ParseError]
"""Reads a text as a mail of one move (no subject) would be read."""


@dataclass
class _Group:
    """One move being gathered: its texts, the keywords they write, and whether it is a bare
    keyword still waiting for its names (``witte`` on a line, the name on the next)."""

    texts: list[str] = field(default_factory=list)
    keywords: tuple[str, ...] = ()
    bare: bool = False


def read_moves(
    body: str, subject_keywords: bool, game: GameInfo, context: MailContext, read: Reader
) -> Moves | None:
    """The moves of a mail whose `body` (the player's own words) holds several, each read by
    `read` as a mail of that move alone would be; None when the mail is one move.

    A line (or a part of one after a comma or semicolon that starts with a keyword) is a move;
    a line with no keyword carries on a bare keyword above it (``witte`` / ``Dora``) and the
    plain move of the lines just above it (``Anna`` / ``Bram``), else it is the plain move; a
    line that names nobody and no keyword (a greeting) is no move.  Two moves of one kind
    (``MailContext.moves``: ``check`` and ``verify``) are one, read together, as ever.  It is
    several moves only when that leaves moves of two kinds or more, none came from the
    subject (`subject_keywords`), and, when the mail starts with the only keyword it writes,
    it does not read as one valid move on the whole (``heal Anna`` / ``Bram``: the Doctor's
    two names; ``kill Anna`` / ``Bram``: the Maniac's).
    """
    if subject_keywords or len(set(context.moves.values())) < 2:
        return None
    pieces = _pieces(body, context)
    if len(pieces) < 2 or len(pieces) > MAX_PIECES:
        return None
    groups: list[_Group] = []
    for text, keywords in pieces:
        reading = read(text)
        nameless = isinstance(reading, ParseError) and reading.code is ErrorCode.NO_NAME
        if not keywords:
            if nameless:
                continue  # a greeting, a thank-you: no move
            last = groups[-1] if groups else None
            if last is not None and (last.bare or not last.keywords):
                last.texts.append(text)
                last.bare = False
                continue
        groups.append(_Group([text], keywords, bare=bool(keywords) and nameless))
    kinds = [_kind(group.keywords, context) for group in groups]
    merged: dict[str, list[str]] = {}
    for kind, group in zip(kinds, groups, strict=True):
        merged.setdefault(kind, []).extend(group.texts)
    if len(merged) < 2:
        return None
    written = {keyword for group in groups for keyword in group.keywords}
    if len(written) <= 1 and groups[0].keywords and isinstance(read(body), Vote):
        return None  # a keyword, then lines of names: one move when it reads as one
    moves = tuple(Move(_shown(texts), read("\n".join(texts))) for texts in merged.values())
    return Moves(game.name, moves)


def _pieces(body: str, context: MailContext) -> list[tuple[str, tuple[str, ...]]]:
    """The mail's lines, those holding a second move cut where it starts (``heal Alan, kill
    Dora``), each with the keywords it writes (only those the sender may use)."""
    pieces: list[tuple[str, tuple[str, ...]]] = []
    for line in body.split("\n"):
        if not line.strip():
            continue
        parts = [part for part in _SEPARATOR.split(line) if part.strip()]
        current: list[str] = []
        current_keywords: tuple[str, ...] = ()
        for part in parts:
            keywords = _keywords(part, context)
            if current and keywords:
                pieces.append((", ".join(current), current_keywords))
                current, current_keywords = [], ()
            current.append(part.strip())
            current_keywords = tuple(dict.fromkeys((*current_keywords, *keywords)))
        if current:
            pieces.append((", ".join(current), current_keywords))
        if len(pieces) > MAX_PIECES:
            break
    return pieces


def _keywords(text: str, context: MailContext) -> tuple[str, ...]:
    found = context.lexicon.find_keywords(fold(word) for word in letter_words(text))
    usable = context.usable_keywords
    return tuple(k for k in found if usable is None or k in usable)


def _kind(keywords: tuple[str, ...], context: MailContext) -> str:
    """The move a group's keywords select: its first keyword's vote (a keyword that names
    none of the sender's votes is his plain vote's, as a mail of one move reads it)."""
    vote = next((k for k in keywords if k in context.name_counts), "")
    return context.moves.get(vote, vote)


def _shown(texts: list[str]) -> str:
    """A move's text as a receipt quotes it: its lines joined, cut to :data:`MAX_WRITTEN`."""
    text = " / ".join(" ".join(t.split()) for t in texts)
    return text if len(text) <= MAX_WRITTEN else text[: MAX_WRITTEN - 1].rstrip() + "…"
