"""Pure mail parsing: a raw message to a command or a clear error (no database, no I/O).

Public API (all pure; ``parse_mail`` never raises for any bytes)::

    parse_mail(raw: bytes) -> ParsedMail
        sender, sender_name, reply_to, message_id, in_reply_to, references, subject
        (reply/forward prefixes removed), raw_subject, body (what the player wrote), full_text,
        facts (HeaderFacts for loop detection), defects, header_fields (as written, unfolded)
    route(parsed, game_names, own_addresses, explain=explain_plainly, help_words=frozenset())
        -> Route(game) | Help(text, game) | Ignore(reason) | ParseError(no-game)
    read_command(parsed, GameInfo(name, signup_open, players),
                 MailContext(lexicon, sender_player, name_counts, usable_keywords, explain))
        -> Signup(game, name, gender) | Vote(game, targets, blanco, keywords, corrections)
         | Moves(game, (Move(written, Vote | ParseError), ...))   # several, one per line
         | ParseError(code, message, params, game)
    parse_and_route(raw, game_names, own_addresses, explain, help_words)
        -> (ParsedMail, Routed)                          # parse_mail then route, in one call
    read_for(parsed, GameInfo, lexicon=, explain=, sender_player=, name_counts=, choice_words=,
             number_keywords=, moves=) -> Read           # read_command, its context by parts
    Lexicon.from_words(words_toml_mapping, keyword_ids) -> Lexicon   # a pack's words
    classify_ignore(parsed, own_addresses) -> Ignore | None      # auto-reply|bounce|list|loop
    find_game(subject, game_names) -> str | None
    NameMatcher(players).find(words, stop_words) / fold(text)
    command_to_dict(command, parsed) -> the ``narrator parse --json`` object

No word of any ruleset or language is built in: keywords, blank words, genders and stop words
come from the game's :class:`Lexicon`, the Help words from ``route``'s caller, error wording
from the context's explainer (:data:`DEFAULT_LEXICON` is empty; :func:`explain_plainly`
names the code and its parameters).

The layers: ``mime`` (bytes → headers and text), ``html`` (HTML → text), ``quotes`` (text →
what the player wrote, by the mail clients' tables of ``clients``), ``subject``,
``autoreply``, ``names``, ``lexicon``, ``interpret`` (``moves``: a mail of several), ``messages``.
"""

from parsing.autoreply import classify_ignore, is_auto_reply, is_bounce
from parsing.html import html_to_text
from parsing.interpret import (
    parse_and_route,
    read_command,
    read_for,
    read_signup,
    read_vote,
    route,
)
from parsing.lexicon import DEFAULT_LEXICON, Gender, Lexicon
from parsing.messages import ErrorParams, Explain, ParamTexts, explain_plainly
from parsing.mime import parse_mail
from parsing.model import (
    Command,
    Correction,
    ErrorCode,
    GameInfo,
    HeaderFacts,
    Help,
    Ignore,
    IgnoreReason,
    MailContext,
    Move,
    Moves,
    ParsedMail,
    ParseError,
    Read,
    Route,
    Routed,
    Signup,
    Vote,
)
from parsing.names import NameMatcher, fold
from parsing.quotes import strip_quotes
from parsing.report import command_to_dict
from parsing.subject import find_game, is_help_subject, strip_subject_prefixes

__all__ = [
    "DEFAULT_LEXICON",
    "Command",
    "Correction",
    "ErrorCode",
    "ErrorParams",
    "Explain",
    "GameInfo",
    "Gender",
    "HeaderFacts",
    "Help",
    "Ignore",
    "IgnoreReason",
    "Lexicon",
    "MailContext",
    "Move",
    "Moves",
    "NameMatcher",
    "ParamTexts",
    "ParseError",
    "ParsedMail",
    "Read",
    "Route",
    "Routed",
    "Signup",
    "Vote",
    "classify_ignore",
    "command_to_dict",
    "explain_plainly",
    "find_game",
    "fold",
    "html_to_text",
    "is_auto_reply",
    "is_bounce",
    "is_help_subject",
    "parse_and_route",
    "parse_mail",
    "read_command",
    "read_for",
    "read_signup",
    "read_vote",
    "route",
    "strip_quotes",
    "strip_subject_prefixes",
]
