"""Value objects of mail parsing: the parsed mail, the game context, and the commands."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from parsing.names import NameMatcher


class IgnoreReason(StrEnum):
    """Why a mail must never be answered (interfaces §5/§6)."""

    AUTO_REPLY = "auto-reply"
    BOUNCE = "bounce"
    LIST = "list"
    LOOP = "loop"


class ErrorCode(StrEnum):
    """Stable codes of the player mistakes the parser reports (interfaces §6)."""

    NO_GAME = "no-game"
    NO_NAME = "no-name"
    TOO_MANY_NAMES = "too-many-names"
    TOO_FEW_NAMES = "too-few-names"
    BLANCO_AND_NAME = "blanco-and-name"
    AMBIGUOUS_NAME = "ambiguous-name"
    BAD_SIGNUP = "bad-signup"
    BAD_GENDER = "bad-gender"
    BAD_NAME = "bad-name"
    NAME_TAKEN = "name-taken"


class Gender(StrEnum):
    """Gender as stored for the stories (Dutch ids, as in the scenario files)."""

    MAN = "man"
    VROUW = "vrouw"


@dataclass(frozen=True)
class HeaderFacts:
    """The raw header facts needed to decide whether a mail may be answered (RFC 3834)."""

    auto_submitted: str = ""
    precedence: str = ""
    list_id: str = ""
    list_headers: bool = False
    return_path: str | None = None
    content_type: str = ""
    report_type: str = ""
    vendor_auto_reply: tuple[str, ...] = ()
    x_loop: tuple[str, ...] = ()
    failed_recipients: bool = False


@dataclass(frozen=True)
class ParsedMail:
    """A raw mail reduced to what the narrator needs; see :func:`parsing.parse_mail`.

    ``sender`` is the lowercased address of From (falling back to Sender, then Reply-To);
    ``subject`` has its reply/forward prefixes removed; ``body`` is the text the player wrote
    (quotes, reply headers, forwarded parts and signatures removed); ``full_text`` is the whole
    decoded text part before that stripping.  ``defects`` lists what was wrong with the MIME
    structure or what was cut for safety (size, depth, part count).
    """

    sender: str
    sender_name: str = ""
    reply_to: str = ""
    to: tuple[str, ...] = ()
    message_id: str = ""
    in_reply_to: str = ""
    references: tuple[str, ...] = ()
    subject: str = ""
    raw_subject: str = ""
    body: str = ""
    full_text: str = ""
    facts: HeaderFacts = field(default_factory=HeaderFacts)
    defects: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameInfo:
    """What the parser needs to know of one game.

    ``players`` are the canonical names (as signed up).  ``signup_open`` is true while the game
    takes signups.  ``language`` is ``nl`` or ``en`` and selects the error messages.  Keep one
    ``GameInfo`` per game across mails to reuse its name index (:attr:`matcher`).
    """

    name: str
    signup_open: bool = False
    players: tuple[str, ...] = ()
    language: str = "nl"

    @cached_property
    def matcher(self) -> NameMatcher:
        """The name matcher of this game's players, built once per ``GameInfo``."""
        return NameMatcher(self.players)


@dataclass(frozen=True)
class MailContext:
    """Everything :func:`parsing.interpret` needs besides the mail.

    ``own_addresses``: the narrator's addresses (mail from them is a loop).
    ``games``: every known game; only the one the subject names needs its players filled in.
    ``language``: of error messages when no game matched.
    ``sender_player``: the sender's canonical name in the matched game, if known (a lone
    closing line with it is taken as a signature; a re-signup keeps it free).
    ``name_counts``: allowed number of names for the sender's vote, keyed by keyword
    (``""`` for the plain vote, ``"witte"``, ``"burgemeester"``); missing keys mean (1, 1).
    """

    own_addresses: frozenset[str] = frozenset()
    games: tuple[GameInfo, ...] = ()
    language: str = "nl"
    sender_player: str | None = None
    name_counts: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Correction:
    """A name understood from a misspelling: ``written`` in the mail, ``understood`` player."""

    written: str
    understood: str


@dataclass(frozen=True)
class Signup:
    """Sign up (or re-sign up) for ``game`` as ``name`` (accents kept) with ``gender``."""

    game: str
    name: str
    gender: Gender


@dataclass(frozen=True)
class Vote:
    """A vote in ``game``: canonical ``targets`` in the order found, or ``blanco``.

    ``keywords`` holds ``witte`` and/or ``burgemeester`` when present in subject or body.
    Legality against the game state is the rules engine's business, not the parser's.
    """

    game: str
    targets: tuple[str, ...] = ()
    blanco: bool = False
    keywords: tuple[str, ...] = ()
    corrections: tuple[Correction, ...] = ()


@dataclass(frozen=True)
class Help:
    """A question for the admins (subject ``Help``); ``text`` is what the player wrote."""

    text: str = ""


@dataclass(frozen=True)
class Ignore:
    """A mail that must never be answered."""

    reason: IgnoreReason


@dataclass(frozen=True)
class ParseError:
    """A player mistake: stable ``code``, the reply ``message`` in the game's language, and the
    ``params`` it was built from (e.g. ``choices``: the valid names)."""

    code: ErrorCode
    message: str
    params: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    game: str | None = None


Command = Signup | Vote | Help | Ignore | ParseError
