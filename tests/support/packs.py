"""What the story-pack tests (``tests/stories/test_*_pack*.py``) share: a pack's templates and
their rendered sample mails, the words a sample mail may ask a player to write and whether the
parser reads them, the helpers a pack's templates see, and the moves a step mail names without
asking for them yet."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from narrator.service.words import choice_words_for
from parsing.lexicon import Lexicon, phrase_key
from stories import FileStore, Renderer
from stories.helpers import Helpers
from stories.samples import event_samples, mail_samples, sample_players
from stories.store import StorySource
from stories.words import load_words

#: How a mail quotes what the player is to write: «blank», «kill Anna».
QUOTED = re.compile(r"«([^«»]+)»")

#: The Mafia events every player may learn (docs/rules/mafia.md §13); the others are private.
MAFIA_PUBLIC_EVENTS = frozenset(
    {
        "setup",
        "mayor",
        "no_mayor",
        "secretary",
        "mayor_lost",
        "secretary_lost",
        "vote_start",
        "lynch",
        "revote",
        "death",
        "public_result",
        "hero_save",
        "explosion",
        "detonator",
        "forgiven",
        "destroyed",
        "agent_left",
        "slash",
        "faceless_left",
        "draw",
        "win",
    }
)


def pack_sources(ruleset: str, language: str | None = None) -> list[StorySource]:
    """The shipped templates of a ruleset (of one language, when given)."""
    return [
        s
        for s in FileStore().all()
        if s.key.ruleset == ruleset and (language is None or s.key.language == language)
    ]


def rendered_mails(
    renderer: Renderer, sources: list[StorySource]
) -> Iterator[tuple[StorySource, dict[str, Any], Any]]:
    """(source, sample context, RenderedMail) for every mail template and every sample."""
    for source in sources:
        if not source.key.is_mail:
            continue
        for number, context in enumerate(mail_samples(source.key)):
            rng = random.Random(number)
            yield source, context, renderer.render_source_mail(source, context, rng)


def render_every_event(renderer: Renderer, sources: list[StorySource]) -> int:
    """Render every event template with every sample, each to some text; how many renders."""
    renders = 0
    for source in sources:
        if source.key.is_mail or source.key.is_partial:
            continue
        for number, (context, event) in enumerate(event_samples(source.key)):
            text = renderer.render_event(source.key, context, event, number)
            assert text.strip(), (source.origin, context["recipient"], event)
            renders += 1
    return renders


def sample_names(context: dict[str, Any], ruleset: str, language: str) -> set[str]:
    """What a sample mail may ask a player to name, folded: the cast, the player, and each
    action's choices, by the words the narrator gives the parser for them (a player's name;
    a role or a team by its name in the pack: «request Doctor», «сторона красные»)."""
    found = {str(getattr(p, "name", p)) for p in context.get("players", ())}
    for action in [*context.get("actions", ()), context.get("action")]:
        if action is None:
            continue
        choices = action.choices if hasattr(action, "choices") else action.get("choices", ())
        for choice in choices:
            found.update(choice_words_for(ruleset, language, choice))
    player = context.get("player")
    if player is not None:
        found.add(str(getattr(player, "name", player)))
    return {phrase_key(name) for name in found}


def parser_reads(lexicon: Lexicon, phrase: str, names: set[str]) -> bool:
    """Whether the parser reads every part of ``phrase``: keywords (also of two words: «fake
    red», «без страховки»), blank words, genders, Help, and ``names`` (a choice of several
    words, «Мирный житель», ends the phrase)."""
    words = phrase.split()
    known = (
        set(lexicon.keywords)
        | set(lexicon.blanco_words)
        | set(lexicon.genders)
        | set(lexicon.help_words)
        | names
    )
    index = 0
    while index < len(words):
        if phrase_key(" ".join(words[index:])) in names:
            return True
        pair = phrase_key(" ".join(words[index : index + 2]))
        if index + 1 < len(words) and pair in lexicon.keywords:
            index += 2
        elif phrase_key(words[index]) in known:
            index += 1
        else:
            return False
    return True


def pack_helpers(ruleset: str, language: str) -> Helpers:
    """The template helpers of a pack, over its sample players (``helpers.choice("doctor")``)."""
    return Helpers(load_words(ruleset, language), sample_players(ruleset), random.Random(0))


def not_yet(action: Any) -> bool:
    """A move the step mail names but tells the player not to send yet: a Mafia Investigator's
    shot while a Commissar or a Detective lives (one sent now is refused, ``not-now``)."""
    extra = action.extra or {}
    return action.kind == "kill" and extra.get("role") == "investigator" and not extra.get("now")
