"""The read model of a game's pages: what its mails told, as the post office stored it.

:func:`public_game` reads one game in a unit of work, through its game table (the ruleset's
view, the players, the story cast), and returns a :class:`PublicGame`: plain data, nothing a
living player's role, a private event, an address or a token could leak into.  The story so
far is the public story mails of each step: the post office stores each story the whole
village is told as it renders it for the mails (:class:`narrator.models.PageChapter`, with its
public tallies), and each player's private story and the epilogue likewise; the page reads
those rows (:func:`told_game`, with a reader his own besides), rendering nothing again and
replaying no log.  A game told before they were stored has them built once from its log at
the daemon's start (:mod:`narrator.service.pages`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup
from sqlalchemy import select

from narrator.models import ChapterKind, Game, GameStatus, PageChapter, Player
from narrator.service.story_context import story_game
from narrator.service.table import table_of
from narrator.service.work import Work
from narrator.zones import zone_or_utc
from stories import Game as StoryGame
from stories.layout import ROSTER_SEPARATOR, public_roles
from stories.render import moment_of, story_markup
from stories.vocab import when
from stories.words import Words, load_words


@dataclass(frozen=True)
class PublicPlayer:
    """A player as the village knows him: a role only where the game made it public."""

    name: str
    alive: bool
    role: str | None  # the role id, or None while it is a secret
    role_name: str | None  # the role in the game's words


@dataclass(frozen=True)
class TallyLine:
    """One voter of a public vote and what he voted (names, or the blank word)."""

    voter: str
    vote: str


@dataclass(frozen=True)
class Chapter:
    """One told step: its moment ("Nacht 2"), the village's story, and its public tallies."""

    moment: str
    story: Markup
    tallies: tuple[tuple[TallyLine, ...], ...] = ()


@dataclass(frozen=True)
class Section:
    """The chapters of one night or one day."""

    moment: str
    chapters: tuple[Chapter, ...]


@dataclass(frozen=True)
class PublicGame:
    """A game as its public mails tell it (see the module docstring)."""

    name: str
    ruleset: str
    language: str
    status: str
    step: str | None
    moment: str
    step_name: str | None
    deadline: datetime | None  # in the game's time zone
    deadline_text: str
    timezone: str
    players: tuple[PublicPlayer, ...]
    winners: tuple[str, ...]
    sections: tuple[Section, ...] = ()
    epilogue: Markup | None = None
    words: Words | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The keys of ``/games/{name}.json`` (docs/web.md: kept stable)."""
        return {
            "name": self.name,
            "ruleset": self.ruleset,
            "state": self.status,
            "step": self.step,
            "deadline": self.deadline.isoformat() if self.deadline is not None else None,
            "players": [{"name": p.name, "alive": p.alive, "role": p.role} for p in self.players],
            "winners": list(self.winners),
        }


def words_of(ruleset: str, language: str) -> Words:
    """The words of `ruleset` in `language`."""
    return load_words(ruleset, language)


def role_name(role: str | None, words: Words) -> str | None:
    """A role id in the game's words (a composite Mafia role: each part's name)."""
    if role is None:
        return None
    parts = [words.roles[part].name for part in role.split("+") if part in words.roles]
    return ", ".join(parts) if parts else None


def public_game(work: Work, game: Game) -> PublicGame:
    """`game` as the public mails tell it: roster, current step and deadline, the story so far
    grouped by night and day with every public tally, and after the end the epilogue and
    every role."""
    return told_game(work, game)[0]


def told_game(
    work: Work, game: Game, reader: Player | None = None
) -> tuple[PublicGame, tuple[Section, ...]]:
    """:func:`public_game`, and with a `reader` (a player) his private news besides, each
    step's as his private story mail told it, grouped by night and day."""
    table = table_of(work, game)
    words = words_of(game.ruleset, game.language)
    zone = zone_or_utc(game.timezone)
    started = table.started
    view = table.view if started else None
    over = game.status == GameStatus.ENDED.value
    cast = table.cast(reveal_all=over)
    roles = public_roles(cast)
    players = tuple(
        PublicPlayer(p.name, p.alive, roles.get(p.name), role_name(roles.get(p.name), words))
        for p in cast
    )
    deadline = game.deadline.astimezone(zone) if game.deadline is not None else None
    deadline_text = f"{when(deadline, words.when, words.locale)} ({zone.key})" if deadline else ""
    moment = ""
    if started and view is not None and not over:
        moment = moment_of(StoryGame.from_any(story_game(game, None, view=view)), words)
    step_words = words.steps.get(game.step) if game.step is not None else None
    told = _Told()
    if started:
        told = stored_stories(work, game, words, reader)
    page = PublicGame(
        name=game.name,
        ruleset=game.ruleset,
        language=game.language,
        status=game.status,
        step=None if over else game.step,
        moment=moment,
        step_name=step_words.name if step_words is not None and not over else None,
        deadline=None if over else deadline,
        deadline_text="" if over else deadline_text,
        timezone=zone.key,
        players=players,
        winners=tuple(view.winners) if over and view is not None else (),
        sections=_sections(told.village),
        epilogue=told.epilogue if over else None,
        words=words,
    )
    return page, _sections(told.news)


@dataclass
class _Told:
    """A game's stored stories as its pages show them: the village's, a reader's own, the
    epilogue."""

    village: list[Chapter] = field(default_factory=list)
    news: list[Chapter] = field(default_factory=list)
    epilogue: Markup | None = None


def stored_stories(work: Work, game: Game, words: Words, reader: Player | None = None) -> _Told:
    """The stories of `game` as the post office stored them when it mailed them
    (:class:`narrator.models.PageChapter`), oldest first: the village's, with `reader` his own
    private ones, and the epilogue; read as they are (no replay, no rendering but the
    text's markup)."""
    village = PageChapter.player_id.is_(None)
    told_to = village if reader is None else village | (PageChapter.player_id == reader.id)
    query = (
        select(
            PageChapter.player_id,
            PageChapter.kind,
            PageChapter.moment,
            PageChapter.story,
            PageChapter.tallies,
        )
        .where(PageChapter.game_id == game.id, told_to)
        .order_by(PageChapter.id)
    )
    told = _Told()
    for player_id, kind, moment, story, tallies in work.session.execute(query):
        if kind == ChapterKind.EPILOGUE.value:
            told.epilogue = story_markup(story.strip())
        elif player_id is not None:
            told.news.append(Chapter(moment, _story(story)))
        else:
            lines = tuple(t for t in (tally_of(e, words) for e in tallies) if t)
            told.village.append(Chapter(moment, _story(story), lines))
    return told


def tally_of(event: Mapping[str, Any], words: Words) -> tuple[TallyLine, ...]:
    """A public event's votes voter by voter (as its story tells them), else ()."""
    labels = words.web
    votes = event.get("votes")
    if isinstance(votes, dict):
        return tuple(
            TallyLine(voter, ", ".join(names) if names else labels.blank)
            for voter, names in votes.items()
        )
    ballots = event.get("ballots")
    if isinstance(ballots, dict):
        keywords = words.keywords
        return tuple(
            TallyLine(voter, keywords.get(kw, (kw,))[0] if kw else labels.abstain)
            for voter, kw in ballots.items()
        )
    return ()


def _sections(chapters: Sequence[Chapter]) -> tuple[Section, ...]:
    """Consecutive chapters of one moment (the steps of one night) as one section."""
    sections: list[Section] = []
    for chapter in chapters:
        if sections and sections[-1].moment == chapter.moment:
            last = sections[-1]
            sections[-1] = Section(last.moment, (*last.chapters, chapter))
        else:
            sections.append(Section(chapter.moment, (chapter,)))
    return tuple(sections)


def _story(text: str) -> Markup:
    """A story mail's text as the page shows it: above its roster, as HTML."""
    told = text.replace("\r\n", "\n").partition(f"\n\n{ROSTER_SEPARATOR}\n")[0]
    return story_markup(told.strip())
