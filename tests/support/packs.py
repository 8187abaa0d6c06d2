"""What the story-pack tests (``tests/stories/test_*_pack*.py``) share: a pack's templates and
their rendered sample mails, the words a sample mail may ask a player to write and whether the
parser reads them, the helpers a pack's templates see, and the moves a step mail names without
asking for them yet."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from parsing.lexicon import Lexicon, phrase_key
from rules import get_ruleset
from rules.lupus.removal import CAUSE as LUPUS_REMOVAL
from rules.mafia.ids import Cause as MafiaCause
from rules.vampiri.engine import RIMOSSO
from rules.wakkerdam.removal import CAUSE as WAKKERDAM_REMOVAL
from stories import FileStore, Renderer, StoryKey
from stories.helpers import Helpers
from stories.lexicon import choice_words_for
from stories.samples import event_samples, mail_samples, sample_players
from stories.store import StorySource
from stories.words import load_words

#: The cause of each ruleset's record of a player removed by an admin (his ``death``, Lupus's
#: ``exile``): the game master's notice (``removed``) tells the removal, and the record adds
#: only the role where the game reveals one (docs/stories.md, "An announcement in the middle
#: of a step").
REMOVAL_CAUSES = frozenset({WAKKERDAM_REMOVAL, LUPUS_REMOVAL, RIMOSSO, MafiaCause.REMOVED.value})


def tells_nothing_new(event: Any) -> bool:
    """Whether `event` (transcript form) is a removal's record that shows no role: the notice
    before it told all there is, so its story is empty (and the story mail leaves it out)."""
    revealed = event.get("revealed") or {}
    return (
        event.get("type") in ("death", "exile")
        and event.get("cause") in REMOVAL_CAUSES
        and not event.get("role")
        and not revealed.get("role")
    )


#: How a mail quotes what the player is to write: «blank», «kill Anna».
QUOTED = re.compile(r"«([^«»]+)»")

#: The Mafia events every player may learn (docs/rules/mafia.md §13); the others are private.
MAFIA_PUBLIC_EVENTS = frozenset(
    {
        "setup",
        "mayor",
        "no_mayor",
        "election_tie",
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
    """Render every event template with every sample, each to some text (a removal's record
    that shows no role to none: :func:`tells_nothing_new`); how many renders."""
    renders = 0
    for source in sources:
        if source.key.is_mail or source.key.is_partial:
            continue
        for number, (context, event) in enumerate(event_samples(source.key)):
            text = renderer.render_event(source.key, context, event, number)
            assert bool(text.strip()) != tells_nothing_new(event), (
                source.origin,
                context["recipient"],
                event,
                text,
            )
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


#: The chapter of :func:`epilogue_of_every_event`, and the event types told in two lines (the
#: ballots, then the outcome).
EPILOGUE_MOMENT = "Chapter of every event"
TWO_LINES = ("lynch", "revote")


def epilogue_of_every_event(key: StoryKey) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An epilogue context (`key` is the epilogue's key) with one chapter holding one event of
    every event type of the ruleset (the first sample of each), and those events."""
    events = []
    for kind in get_ruleset(key.ruleset).event_types:
        samples = event_samples(StoryKey(key.ruleset, key.language, "_base", kind))
        events.append(next(iter(samples))[1])
    context = next(iter(mail_samples(key)))
    chapter = {"moment": EPILOGUE_MOMENT, "step": "night", "phase": "night", "votes": []}
    return {**context, "chapters": [{**chapter, "events": events}]}, events


def epilogue_lines_of(text: str, events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """Each event of :func:`epilogue_of_every_event` with its lines in the rendered `text`:
    the chapter's lines, in order, one per event (two for a vote's ballots and outcome)."""
    body = text.split(f"\n{EPILOGUE_MOMENT}\n", 1)[1].split("\n\n", 1)[0]
    lines = body.strip("\n").splitlines()
    assert len(lines) == sum(2 if e["type"] in TWO_LINES else 1 for e in events), body
    told = iter(lines)
    return [
        (e, "\n".join(next(told) for _ in range(2 if e["type"] in TWO_LINES else 1)))
        for e in events
    ]


def players_of(event: dict[str, Any], players: set[str]) -> set[str]:
    """The players an event names: its player(s), target(s), winners (sample names only)."""
    named: set[str] = set()
    for field in ("player", "players", "target", "targets", "winners"):
        value = event.get(field)
        for name in [value] if isinstance(value, str) else (value or []):
            if name in players:
                named.add(name)
    return named
