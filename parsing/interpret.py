"""A parsed mail plus the game context to a command: signup, vote, help, ignore, or an error."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from parsing.autoreply import classify_ignore
from parsing.messages import render_message
from parsing.model import (
    Command,
    Correction,
    ErrorCode,
    GameInfo,
    Gender,
    Help,
    MailContext,
    ParsedMail,
    ParseError,
    Signup,
    Vote,
)
from parsing.names import BLANCO_WORDS, KEYWORDS, fold, letter_words
from parsing.subject import find_game, is_help_subject, subject_words

MAX_NAME_LENGTH = 30
_GENDERS = {
    "man": Gender.MAN,
    "m": Gender.MAN,
    "male": Gender.MAN,
    "jongen": Gender.MAN,
    "heer": Gender.MAN,
    "vrouw": Gender.VROUW,
    "v": Gender.VROUW,
    "f": Gender.VROUW,
    "w": Gender.VROUW,
    "female": Gender.VROUW,
    "woman": Gender.VROUW,
    "meisje": Gender.VROUW,
    "dame": Gender.VROUW,
}
_RESERVED_NAMES = KEYWORDS | BLANCO_WORDS | {"help", "hulp", "man", "vrouw"}
_NAME = re.compile(r"[^\W\d_]+")
_SIGNUP_LINE = re.compile(
    r"^\s*(?P<name>[^\W\d_]+)\s*(?:[,;:/|-]\s*|\s+)\(?\s*(?P<gender>[^\W\d_]+)\s*\)?\s*[.!]?\s*$"
)
_KEYWORD_ORDER = ("witte", "burgemeester")


def interpret(parsed: ParsedMail, context: MailContext) -> Command:
    """Decide what ``parsed`` asks for, in ``context``.

    Returns ``Ignore`` for mail that must never be answered, ``Help`` for the ``Help`` subject,
    ``Signup`` while the game named by the subject takes signups, else ``Vote``; or a
    ``ParseError`` with a stable code and the reply in the game's language.
    """
    ignore = classify_ignore(parsed, context.own_addresses)
    if ignore is not None:
        return ignore
    if is_help_subject(parsed.subject):
        return Help(parsed.body)
    names = [game.name for game in context.games]
    game_name = find_game(parsed.subject, names)
    if game_name is None:
        return make_error(ErrorCode.NO_GAME, context.language, None, games=tuple(names))
    game = next(game for game in context.games if game.name == game_name)
    if game.signup_open:
        return interpret_signup(parsed.body, game, context.sender_player)
    return interpret_vote(parsed, game, context.sender_player, context.name_counts)


def make_error(
    code: ErrorCode, language: str, game: str | None, **params: str | tuple[str, ...]
) -> ParseError:
    """A ``ParseError`` whose message is rendered in ``language`` from ``params``."""
    return ParseError(code, render_message(code, language, params), params, game)


def interpret_signup(body: str, game: GameInfo, sender_player: str | None = None) -> Command:
    """Read ``Name, man|vrouw`` (or ``male|female``) from the first line that has it."""
    lines = [line.strip() for line in body.split("\n") if line.strip()][:50]
    language = game.language
    for line in lines:
        match = _SIGNUP_LINE.match(line)
        if match and fold(match.group("gender")) in _GENDERS:
            return _signup(
                match.group("name"), _GENDERS[fold(match.group("gender"))], game, sender_player
            )
    for line in lines:
        if "," not in line:
            continue
        name_part, _, gender_part = line.partition(",")
        gender_words = _NAME.findall(fold(gender_part))
        name_ok = _valid_name(name_part.strip())
        if gender_words and gender_words[0] in _GENDERS and not name_ok:
            return make_error(ErrorCode.BAD_NAME, language, game.name, written=name_part.strip())
        if name_ok and len(gender_words) <= 2:
            return make_error(
                ErrorCode.BAD_GENDER,
                language,
                game.name,
                written=gender_part.strip(),
                name=name_part.strip(),
            )
    if len(lines) == 1 and _valid_name(lines[0]):
        return make_error(ErrorCode.BAD_GENDER, language, game.name, written="", name=lines[0])
    return make_error(ErrorCode.BAD_SIGNUP, language, game.name)


def _valid_name(name: str) -> bool:
    return (
        bool(_NAME.fullmatch(name))
        and 2 <= len(name) <= MAX_NAME_LENGTH
        and fold(name) not in _RESERVED_NAMES
    )


def _signup(name: str, gender: Gender, game: GameInfo, sender_player: str | None) -> Command:
    name = unicodedata.normalize("NFC", name)
    if not _valid_name(name):
        return make_error(ErrorCode.BAD_NAME, game.language, game.name, written=name)
    if name.islower() or name.isupper():
        name = name[:1].upper() + name[1:].lower()
    taken = game.matcher.lookup(name)
    if taken is not None and (sender_player is None or fold(taken) != fold(sender_player)):
        return make_error(ErrorCode.NAME_TAKEN, game.language, game.name, written=name, taken=taken)
    return Signup(game.name, name, gender)


def interpret_vote(
    parsed: ParsedMail,
    game: GameInfo,
    sender_player: str | None = None,
    name_counts: Mapping[str, tuple[int, int]] | None = None,
) -> Command:
    """Read a vote: player names (exact or understood from a misspelling), ``blanco``, and the
    keywords ``witte``/``burgemeester`` from subject and body.  Checks only the form (how many
    names, blanco with a name, ambiguity); legality is the rules engine's business."""
    language = game.language
    choices = game.players
    body = _without_own_signoff(parsed.body, sender_player)
    words = letter_words(body)
    folded_words = {fold(word) for word in words} | set(subject_words(parsed.subject))
    keywords = tuple(keyword for keyword in _KEYWORD_ORDER if keyword in folded_words)
    blanco = any(fold(word) in BLANCO_WORDS for word in words)
    hits = game.matcher.find(words)
    for hit in hits:
        if hit.player is None:
            return make_error(
                ErrorCode.AMBIGUOUS_NAME,
                language,
                game.name,
                written=hit.written,
                candidates=hit.candidates,
                choices=choices,
            )
    targets: list[str] = []
    corrections: list[Correction] = []
    for hit in hits:
        if hit.player is None:
            continue
        if hit.player not in targets:
            targets.append(hit.player)
        if not hit.exact:
            correction = Correction(hit.written, hit.player)
            if correction not in corrections:
                corrections.append(correction)
    if blanco and targets:
        return make_error(ErrorCode.BLANCO_AND_NAME, language, game.name, names=tuple(targets))
    if blanco:
        return Vote(game.name, (), True, keywords, ())
    low, high = (name_counts or {}).get(keywords[0] if keywords else "", (1, 1))
    expected = str(high) if low == high else f"{low}-{high}"
    if not targets:
        return make_error(
            ErrorCode.NO_NAME, language, game.name, choices=choices, expected=expected
        )
    if len(targets) > high:
        return make_error(
            ErrorCode.TOO_MANY_NAMES,
            language,
            game.name,
            names=tuple(targets),
            expected=expected,
            choices=choices,
        )
    if len(targets) < low:
        return make_error(
            ErrorCode.TOO_FEW_NAMES,
            language,
            game.name,
            names=tuple(targets),
            expected=expected,
            choices=choices,
        )
    return Vote(game.name, tuple(targets), False, keywords, tuple(corrections))


def _without_own_signoff(body: str, sender_player: str | None) -> str:
    """Drop a last line that is only the sender's own name, when something precedes it."""
    if not sender_player:
        return body
    lines = body.rstrip().split("\n")
    if len(lines) < 2 or not "".join(lines[:-1]).strip():
        return body
    if [fold(word) for word in letter_words(lines[-1])] == [fold(sender_player)]:
        return "\n".join(lines[:-1])
    return body
