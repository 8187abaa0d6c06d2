"""Pure mail parsing: a raw message to a command or a clear error (no database, no I/O).

Public API (all pure; ``parse_mail`` never raises for any bytes)::

    parse_mail(raw: bytes) -> ParsedMail
        sender, sender_name, reply_to, to, message_id, in_reply_to, references, subject
        (reply/forward prefixes removed), raw_subject, body (what the player wrote), full_text,
        facts (HeaderFacts for loop detection), defects
    classify_ignore(parsed, own_addresses) -> Ignore | None      # auto-reply|bounce|list|loop
    interpret(parsed, MailContext(own_addresses, games, language, sender_player, name_counts))
        -> Signup(game, name, gender) | Vote(game, targets, blanco, keywords, corrections)
         | Help(text) | Ignore(reason) | ParseError(code, message, params, game)
    find_game(subject, game_names) -> str | None
    NameMatcher(players).find(words) / fold(text)
    command_to_dict(command, parsed) -> the ``narrator parse --json`` object

The layers: ``mime`` (bytes → headers and text), ``html`` (HTML → text), ``quotes`` (text →
what the player wrote), ``subject``, ``autoreply``, ``names``, ``interpret``, ``messages``.
"""

from parsing.autoreply import classify_ignore, is_auto_reply, is_bounce
from parsing.html import html_to_text
from parsing.interpret import interpret, interpret_signup, interpret_vote
from parsing.mime import parse_mail
from parsing.model import (
    Command,
    Correction,
    ErrorCode,
    GameInfo,
    Gender,
    HeaderFacts,
    Help,
    Ignore,
    IgnoreReason,
    MailContext,
    ParsedMail,
    ParseError,
    Signup,
    Vote,
)
from parsing.names import NameMatcher, fold
from parsing.quotes import strip_quotes
from parsing.report import command_to_dict
from parsing.subject import find_game, is_help_subject, strip_subject_prefixes

__all__ = [
    "Command",
    "Correction",
    "ErrorCode",
    "GameInfo",
    "Gender",
    "HeaderFacts",
    "Help",
    "Ignore",
    "IgnoreReason",
    "MailContext",
    "NameMatcher",
    "ParseError",
    "ParsedMail",
    "Signup",
    "Vote",
    "classify_ignore",
    "command_to_dict",
    "find_game",
    "fold",
    "html_to_text",
    "interpret",
    "interpret_signup",
    "interpret_vote",
    "is_auto_reply",
    "is_bounce",
    "is_help_subject",
    "parse_mail",
    "strip_quotes",
    "strip_subject_prefixes",
]
