"""A parsed mail to a command, in two steps: :func:`route` (which game, or why not) and
:func:`read_command` (what the body asks of that game); the narrator's two entry points take
each step from what it holds: :func:`parse_and_route` (the raw mail) and :func:`read_for` (the
game and the sender's context as its parts)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace

from parsing.autoreply import classify_ignore
from parsing.lexicon import DEFAULT_LEXICON, Gender, Lexicon
from parsing.messages import Explain, explain_plainly
from parsing.mime import parse_mail
from parsing.model import (
    Correction,
    ErrorCode,
    GameInfo,
    Help,
    MailContext,
    Moves,
    ParsedMail,
    ParseError,
    Read,
    Route,
    Routed,
    Signup,
    Vote,
)
from parsing.moves import read_moves
from parsing.names import fold, is_mixed_script, letter_words, looks_like
from parsing.subject import find_game, is_help_subject, subject_words

MAX_NAME_LENGTH = 30
_NAME = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"(?<![0-9A-Za-z.,])[0-9]+(?:[.,][0-9]+)?(?![0-9A-Za-z]|[.,][0-9])")
_SIGNUP_LINE = re.compile(
    r"^\s*(?P<name>[^\W\d_]+)\s*(?:[,;:/|-]\s*|\s+)\(?\s*(?P<gender>[^\W\d_]+)\s*\)?\s*[.!]?\s*$"
)


def route(
    parsed: ParsedMail,
    game_names: Iterable[str],
    own_addresses: Iterable[str] = (),
    explain: Explain = explain_plainly,
    help_words: AbstractSet[str] = frozenset(),
) -> Routed:
    """Decide where ``parsed`` goes, before any game's words are known.

    Returns ``Ignore`` for mail that must never be answered (``own_addresses``: the narrator's,
    mail from them is a loop), ``Help`` when the subject's first word is one of ``help_words``
    (with the game the subject also names, if any; the caller passes the Help words of every
    language it speaks, none by default), ``Route(game)`` for the game of ``game_names`` the
    subject names, else a ``no-game`` ``ParseError`` (``games``: the names)
    worded by ``explain`` (in the narrator's default language: no game is known).
    """
    ignore = classify_ignore(parsed, own_addresses)
    if ignore is not None:
        return ignore
    names = tuple(game_names)
    game = find_game(parsed.subject, names)
    if is_help_subject(parsed.subject, help_words):
        return Help(parsed.body, game)
    if game is None:
        return _error(explain, ErrorCode.NO_GAME, None, games=names)
    return Route(game)


def parse_and_route(
    raw: bytes,
    game_names: Iterable[str],
    own_addresses: Iterable[str] = (),
    explain: Explain = explain_plainly,
    help_words: AbstractSet[str] = frozenset(),
) -> tuple[ParsedMail, Routed]:
    """The mail `raw` parsed (:func:`parsing.parse_mail`) and routed (:func:`route`, with the
    other arguments): one call for the inbox, which holds the bytes and needs both."""
    parsed = parse_mail(raw)
    return parsed, route(parsed, game_names, own_addresses, explain, help_words)


def read_for(
    parsed: ParsedMail,
    game: GameInfo,
    *,
    lexicon: Lexicon = DEFAULT_LEXICON,
    explain: Explain = explain_plainly,
    sender_player: str | None = None,
    name_counts: Mapping[str, tuple[int, int]] | None = None,
    choice_words: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
    number_keywords: frozenset[str] = frozenset(),
    moves: Mapping[str, str] | None = None,
) -> Read:
    """:func:`read_command` in the :class:`MailContext` of these parts (each as that class
    documents it): the narrator names the game's words and the sender's context, and the parser
    builds its own value of them."""
    context = MailContext(
        lexicon=lexicon,
        sender_player=sender_player,
        name_counts=name_counts or {},
        explain=explain,
        choice_words=choice_words or {},
        number_keywords=number_keywords,
        moves=moves or {},
    )
    return read_command(parsed, game, context)


def read_command(parsed: ParsedMail, game: GameInfo, context: MailContext) -> Read:
    """Read what ``parsed`` asks of ``game``: a ``Signup`` while the game takes signups, else a
    ``Vote`` (``Moves`` for a mail of several, see :func:`parsing.moves.read_moves`); or a
    ``ParseError`` with a stable code, worded by ``context.explain``."""
    if game.signup_open:
        return read_signup(parsed.body, game, context)
    if context.moves:
        moves = _read_moves(parsed, game, context)
        if moves is not None:
            return moves
    return read_vote(parsed, game, context)


def _read_moves(parsed: ParsedMail, game: GameInfo, context: MailContext) -> Moves | None:
    """The moves of a mail of several (each read as a mail of it alone), else None."""
    found = context.lexicon.find_keywords(subject_words(parsed.subject))
    usable = context.usable_keywords
    subject_keywords = any(usable is None or keyword in usable for keyword in found)
    bare = replace(parsed, subject="")

    def read(text: str) -> Vote | ParseError:
        return read_vote(replace(bare, body=text), game, context)

    body = _without_own_signoff(parsed.body, context.sender_player)
    return read_moves(body, subject_keywords, game, context, read)


def _error(
    explain: Explain, code: ErrorCode, game: str | None, **params: str | tuple[str, ...]
) -> ParseError:
    """A ``ParseError`` whose message ``explain`` words from ``params``."""
    return ParseError(code, explain(code.value, params), params, game)


def read_signup(body: str, game: GameInfo, context: MailContext) -> Read:
    """Read ``Name, gender`` (a gender word of the lexicon: ``man``, ``uomo``, ...) from the
    first line that has it; a name must be letters only and not a reserved word."""
    genders = context.lexicon.genders
    # One form of every accent ("Zoë" typed as e + U+0308 is "Zoë"), before any check.
    body = unicodedata.normalize("NFC", body)
    lines = [line.strip() for line in body.split("\n") if line.strip()][:50]
    for line in lines:
        match = _SIGNUP_LINE.match(line)
        if match and fold(match.group("gender")) in genders:
            gender = genders[fold(match.group("gender"))]
            return _signup(match.group("name"), gender, game, context)
    for line in lines:
        if "," not in line:
            continue
        name_part, _, gender_part = line.partition(",")
        gender_words = _NAME.findall(fold(gender_part))
        name_ok = _valid_name(name_part.strip(), context)
        if gender_words and gender_words[0] in genders and not name_ok:
            return _error(context.explain, ErrorCode.BAD_NAME, game.name, written=name_part.strip())
        if name_ok and len(gender_words) <= 2:
            return _error(
                context.explain,
                ErrorCode.BAD_GENDER,
                game.name,
                written=gender_part.strip(),
                name=name_part.strip(),
            )
    if len(lines) == 1 and _valid_name(lines[0], context):
        return _error(context.explain, ErrorCode.BAD_GENDER, game.name, written="", name=lines[0])
    return _error(context.explain, ErrorCode.BAD_SIGNUP, game.name)


def _valid_name(name: str, context: MailContext) -> bool:
    return (
        bool(_NAME.fullmatch(name))
        and 2 <= len(name) <= MAX_NAME_LENGTH
        and fold(name) not in context.lexicon.reserved
    )


def _signup(name: str, gender: Gender, game: GameInfo, context: MailContext) -> Read:
    name = unicodedata.normalize("NFC", name)
    if not _valid_name(name, context):
        return _error(context.explain, ErrorCode.BAD_NAME, game.name, written=name)
    if name.islower() or name.isupper():
        name = name[:1].upper() + name[1:].lower()
    taken = game.matcher.lookup(name)
    sender = context.sender_player
    if taken is not None and (sender is None or fold(taken) != fold(sender)):
        return _error(context.explain, ErrorCode.NAME_TAKEN, game.name, written=name, taken=taken)
    # A name that reads like another player's (Latin, Cyrillic or Greek "Anna") would make
    # rosters and receipts ambiguous (UTS #39: mixed scripts, confusable letters).
    if is_mixed_script(name):
        return _error(context.explain, ErrorCode.NAME_LOOKALIKE, game.name, written=name)
    own = fold(sender) if sender is not None else None
    lookalike = next((p for p in game.players if fold(p) != own and looks_like(name, p)), None)
    if lookalike is not None:
        return _error(
            context.explain, ErrorCode.NAME_LOOKALIKE, game.name, written=name, taken=lookalike
        )
    return Signup(game.name, name, gender)


def read_vote(parsed: ParsedMail, game: GameInfo, context: MailContext) -> Vote | ParseError:
    """Read a vote: player names (exact or understood from a misspelling), a blank word, and
    the lexicon's keywords from subject and body (only ``usable_keywords``, when given); and,
    when the vote (its first keyword, else the plain vote) offers them, the sender's choices
    that are no names (``choice_words``: their ids, first) and numbers (``number_keywords``).

    Checks only the form: how many names (``name_counts`` of the first keyword, else of the
    plain vote), a blank word with a name, ambiguity.  A vote with no name is ``no-name``
    unless it is blank or carries a keyword whose minimum is 0 (a keyword-only vote).
    Legality is the rules engine's business.
    """
    lexicon = context.lexicon
    explain = context.explain
    choices = game.players
    body = _without_own_signoff(parsed.body, context.sender_player)
    words = letter_words(body)
    folded = [fold(word) for word in words]
    subject_found = set(lexicon.find_keywords(subject_words(parsed.subject)))
    usable = context.usable_keywords

    def keywords_in(text: list[str]) -> tuple[str, ...]:
        found = set(lexicon.find_keywords(text)) | subject_found
        if usable is not None:
            found &= usable
        return tuple(keyword for keyword in lexicon.keyword_order if keyword in found)

    def vote_of(keyword: str) -> str:
        # A keyword that names no vote of the sender's (name_counts) is his plain vote's,
        # written with its keyword (the rules accept that too).
        return keyword if keyword in context.name_counts else ""

    keywords = keywords_in(folded)
    blanco = lexicon.is_blanco(folded)
    # Choices that are no names: first those of every vote a keyword names, so that the words
    # of a choice ("request Drug dealer") are no keyword of their own; then only the choices
    # of the vote the first remaining keyword names (else the plain vote's) are kept.
    chosen: list[str] = []
    used: set[int] = set()
    if context.choice_words:
        written: dict[str, tuple[str, ...]] = {}
        for vote in {vote_of(keyword) for keyword in keywords} | {""}:
            written.update(context.choice_words.get(vote, {}))
        chosen, used = _find_choices(folded, written)
        if used:
            keywords = keywords_in(["" if i in used else word for i, word in enumerate(folded)])
    offered = vote_of(keywords[0]) if keywords else ""
    chosen = [choice for choice in chosen if choice in context.choice_words.get(offered, {})]
    if offered in context.number_keywords:
        for number in _NUMBER.findall(body):
            if number.replace(",", ".") not in chosen:
                chosen.append(number.replace(",", "."))
    rest = [word for index, word in enumerate(words) if index not in used]
    hits = game.matcher.find(rest, lexicon.name_stop_words)
    for hit in hits:
        if hit.player is None:
            return _error(
                explain,
                ErrorCode.AMBIGUOUS_NAME,
                game.name,
                written=hit.written,
                candidates=hit.candidates,
                choices=choices,
            )
    targets: list[str] = list(chosen)
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
        return _error(explain, ErrorCode.BLANCO_AND_NAME, game.name, names=tuple(targets))
    if blanco:
        return Vote(game.name, (), True, keywords, ())
    low, high = context.name_counts.get(keywords[0] if keywords else "", (1, 1))
    expected = str(high) if low == high else f"{low}-{high}"
    if not targets and keywords and low == 0:
        return Vote(game.name, (), False, keywords, ())
    if not targets:
        return _error(explain, ErrorCode.NO_NAME, game.name, choices=choices, expected=expected)
    if len(targets) > high:
        return _error(
            explain,
            ErrorCode.TOO_MANY_NAMES,
            game.name,
            names=tuple(targets),
            expected=expected,
            choices=choices,
        )
    if len(targets) < low:
        return _error(
            explain,
            ErrorCode.TOO_FEW_NAMES,
            game.name,
            names=tuple(targets),
            expected=expected,
            choices=choices,
        )
    return Vote(game.name, tuple(targets), False, keywords, tuple(corrections))


def _find_choices(
    folded: list[str], choice_words: Mapping[str, tuple[str, ...]]
) -> tuple[list[str], set[int]]:
    """The choice ids that ``folded`` (a mail's folded words) names, in order, and the indexes
    of the words that named them (the longest phrase wins where several start at a word)."""
    if not choice_words:
        return [], set()
    phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for choice, written in choice_words.items():
        for text in (choice, *written):
            phrase = tuple(fold(word) for word in letter_words(text))
            if phrase:
                phrases.setdefault(phrase[0], []).append((phrase, choice))
    for found in phrases.values():
        found.sort(key=lambda item: -len(item[0]))
    chosen: list[str] = []
    used: set[int] = set()
    index = 0
    while index < len(folded):
        match = next(
            (
                (phrase, choice)
                for phrase, choice in phrases.get(folded[index], ())
                if tuple(folded[index : index + len(phrase)]) == phrase
            ),
            None,
        )
        if match is None:
            index += 1
            continue
        phrase, choice = match
        if choice not in chosen:
            chosen.append(choice)
        used.update(range(index, index + len(phrase)))
        index += len(phrase)
    return chosen, used


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
