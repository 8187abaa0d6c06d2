"""Value objects of mail parsing: the parsed mail, the game context, routes and commands."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from parsing.lexicon import DEFAULT_LEXICON, Lexicon
from parsing.lexicon import Gender as Gender  # re-exported (it lives beside its words)
from parsing.messages import ErrorParams, Explain, explain_plainly
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
    NAME_LOOKALIKE = "name-lookalike"


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
    structure or what was cut for safety (size, depth, part count).  ``header_fields`` are the
    header's fields in order, as written (encoded words and 8-bit bytes undecoded), names
    lower-cased, values unfolded (at most :data:`parsing.mime.MAX_HEADER_FIELDS`): what the
    narrator's authenticity checks read.
    """

    sender: str
    sender_name: str = ""
    reply_to: str = ""
    message_id: str = ""
    in_reply_to: str = ""
    references: tuple[str, ...] = ()
    subject: str = ""
    raw_subject: str = ""
    body: str = ""
    full_text: str = ""
    facts: HeaderFacts = field(default_factory=HeaderFacts)
    defects: tuple[str, ...] = ()
    header_fields: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class GameInfo:
    """What the parser needs to know of one game.

    ``players`` are the canonical names (as signed up).  ``signup_open`` is true while the game
    takes signups.  Keep one ``GameInfo`` per game across mails to reuse its name index
    (:attr:`matcher`).
    """

    name: str
    signup_open: bool = False
    players: tuple[str, ...] = ()

    @cached_property
    def matcher(self) -> NameMatcher:
        """The name matcher of this game's players, built once per ``GameInfo``."""
        return NameMatcher(self.players)


@dataclass(frozen=True)
class MailContext:
    """Everything :func:`parsing.read_command` needs besides the mail and its game.

    ``lexicon``: the words of the game's ruleset and language (keywords, blank words, genders,
    stop words); see :class:`parsing.Lexicon`.
    ``sender_player``: the sender's canonical name in the game, if known (a lone closing line
    with it is taken as a signature; a re-signup keeps it free).
    ``name_counts``: allowed (min, max) number of names for the sender's vote, keyed by keyword
    id (``""`` for the plain vote); missing keys mean (1, 1).  A keyword whose min is 0 may
    come without a name (a keyword-only vote); a plain vote always needs a name or a blank word.
    ``usable_keywords``: the keyword ids the sender may use now; the others are dropped from
    the vote as ordinary words (``None``: keep every keyword, the rules engine judges them).
    ``explain``: ``(code, params) -> message``, the wording of errors in the game's language
    (default: a neutral English sentence).
    ``choice_words``: the sender's current choices that are not player names (a role, a team,
    a number in words), keyed like ``name_counts`` by the keyword id of the vote that offers
    them (``""``: the plain vote); each an id -> the words or phrases naming it in the game's
    language.  A vote whose first keyword (else, or when that keyword is no key of
    ``name_counts``, the plain vote) offers choices has every one it writes (folded, accents
    ignored, whole words; the id itself too) among its targets, as its id; such a word is
    read as the choice, never as a player's name.  Empty: names only.
    ``number_keywords``: the keyword ids (``""``: the plain vote) whose vote names a number
    (``buy 1.5``): its numbers written in digits are targets too, as written (a decimal comma
    becomes a point).
    ``moves``: the move each of the sender's votes is one of, keyed like ``name_counts`` (votes
    of one move replace each other: a Mafia ``check`` and ``verify``).  With two moves or more
    a mail may hold several, one per line (:func:`parsing.moves.read_moves`); empty: one.
    """

    lexicon: Lexicon = DEFAULT_LEXICON
    sender_player: str | None = None
    name_counts: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    usable_keywords: frozenset[str] | None = None
    explain: Explain = explain_plainly
    choice_words: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    number_keywords: frozenset[str] = frozenset()
    moves: Mapping[str, str] = field(default_factory=dict)

    @property
    def keywords(self) -> Mapping[str, str]:
        """Written word (folded) -> keyword id, from the lexicon."""
        return self.lexicon.keywords

    @property
    def blanco_words(self) -> frozenset[str]:
        """The blank words (folded), from the lexicon."""
        return self.lexicon.blanco_words


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

    ``keywords`` holds the ids of the keywords written in subject or body, in the lexicon's
    order (a keyword-only vote has no targets and is not blanco).  Legality against the game
    state is the rules engine's business, not the parser's.
    """

    game: str
    targets: tuple[str, ...] = ()
    blanco: bool = False
    keywords: tuple[str, ...] = ()
    corrections: tuple[Correction, ...] = ()


@dataclass(frozen=True)
class Move:
    """One move of a mail of several: the words that wrote it (``written``, its lines joined)
    and how they read, as a mail of that one move would (a ``Vote`` or a ``ParseError``)."""

    written: str
    read: Vote | ParseError


@dataclass(frozen=True)
class Moves:
    """A mail of several moves in ``game`` (one per line; ``heal Alan, kill Dora``), in the
    order written, each read on its own."""

    game: str
    moves: tuple[Move, ...]


@dataclass(frozen=True)
class Route:
    """The mail is for ``game`` (named by its subject): read it with :func:`read_command`."""

    game: str


@dataclass(frozen=True)
class Help:
    """A question for the admins (subject ``Help``); ``text`` is what the player wrote,
    ``game`` the game the subject also names, if any (for the reply's language)."""

    text: str = ""
    game: str | None = None


@dataclass(frozen=True)
class Ignore:
    """A mail that must never be answered."""

    reason: IgnoreReason


@dataclass(frozen=True)
class ParseError:
    """A player mistake: stable ``code``, the ``params`` it was found with (e.g. ``choices``:
    the valid names), and the reply ``message`` the context's explainer made of them."""

    code: ErrorCode
    message: str
    params: ErrorParams = field(default_factory=dict)
    game: str | None = None


Routed = Route | Help | Ignore | ParseError
"""What :func:`parsing.route` decides: the game, Help, never answered, or ``no-game``."""

Read = Signup | Vote | Moves | ParseError
"""What :func:`parsing.read_command` reads in a game's mail."""

Command = Signup | Vote | Moves | Help | Ignore | ParseError
"""Anything a mail comes to (the ``narrator parse --json`` kinds)."""
