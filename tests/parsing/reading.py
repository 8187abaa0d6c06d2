"""Test helper: route a mail and read it for its game as the inbox does (a ruleset's words)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from parsing import Command, GameInfo, Lexicon, MailContext, ParsedMail, Route, read_command, route
from stories.lexicon import explainer_for, help_words, lexicon_for

NARRATOR = "verteller@example.org"


def wakkerdam(language: str = "nl") -> Lexicon:
    """The words of Wakkerdam games in ``language``, as the narrator reads them."""
    return lexicon_for("wakkerdam", language)


def read_mail(
    parsed: ParsedMail,
    games: Sequence[GameInfo],
    *,
    language: str = "nl",
    sender_player: str | None = None,
    name_counts: Mapping[str, tuple[int, int]] | None = None,
    usable_keywords: frozenset[str] | None = None,
    lexicon: Lexicon | None = None,
    ruleset: str = "wakkerdam",
) -> Command:
    """``route`` among ``games``, then ``read_command`` for the game routed to, a game of
    ``ruleset`` in ``language`` (its words; errors worded as the narrator words them)."""
    explain = explainer_for(ruleset, language)
    routed = route(parsed, [game.name for game in games], {NARRATOR}, explain, help_words())
    if not isinstance(routed, Route):
        return routed
    game = next(game for game in games if game.name == routed.game)
    context = MailContext(
        lexicon=lexicon or lexicon_for(ruleset, language),
        sender_player=sender_player,
        name_counts=name_counts or {},
        usable_keywords=usable_keywords,
        explain=explain,
    )
    return read_command(parsed, game, context)
