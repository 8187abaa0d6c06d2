"""The public read model of a game: what the village's mails told, for the public pages.

:func:`public_game` reads one game in a unit of work, through its game table (the ruleset's
view, the players, the story cast), and returns a :class:`PublicGame`: plain data, nothing a
living player's role, a private event, an address or a token could leak into.  The story so
far is the public story mails of each step: the post office stores each story the whole
village is told as it renders it for the mails (:class:`narrator.models.PageChapter`, with its
public tallies), and the page reads those rows (:func:`stored_chapters`), rendering nothing
again.  A game started before they were stored (``chapters_stored`` false), and a player's
own page (his private news besides), are told again from the game log with the story pack,
exactly as :func:`narrator.service.games.close` rendered them (same events as told, same
story facts, same seed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup
from sqlalchemy import select

from narrator.models import Game, GameLogEntry, GameStatus, PageChapter, Player, Step
from narrator.service.story_context import (
    audience_dicts,
    epilogue_chapters,
    recipient_cast,
    story_cast,
    story_game,
    with_story_facts,
)
from narrator.service.table import table_of
from narrator.service.work import Work
from narrator.zones import zone_or_utc
from rules.core import Rejected, Resolution, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.ruleset import Ruleset
from rules.core.view import GameView
from stories import Cast, Renderer, StoryKey, StoryNotFound
from stories import Event as StoryEvent
from stories import Game as StoryGame
from stories.layout import ROSTER_SEPARATOR, public_roles
from stories.render import moment_of, story_markup
from stories.vocab import when
from stories.words import WebWords, Words, WordsError, load_words


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


def web_words(words: Words) -> WebWords:
    """The page labels of `words`; a pack without ``[web]`` borrows its ruleset's English
    labels.  Raises WordsError when neither has them."""
    if words.web is not None:
        return words.web
    english = load_words(words.ruleset, "en").web
    if english is None:
        raise WordsError(f"{words.origin}: [web]: missing table")
    return english


def role_name(role: str | None, words: Words) -> str | None:
    """A role id in the game's words (a composite Mafia role: each part's name)."""
    if role is None:
        return None
    parts = [words.roles[part].name for part in role.split("+") if part in words.roles]
    return ", ".join(parts) if parts else None


def public_game(work: Work, game: Game, renderer: Renderer) -> PublicGame:
    """`game` as the public mails tell it: roster, current step and deadline, the story so far
    grouped by night and day with every public tally, and after the end the epilogue and
    every role."""
    return told_game(work, game, renderer)[0]


def told_game(
    work: Work, game: Game, renderer: Renderer, reader: str | None = None
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
    sections: tuple[Section, ...] = ()
    news: tuple[Section, ...] = ()
    epilogue = None
    if started and reader is None and game.chapters_stored:
        sections = _sections(stored_chapters(work, game, words))
        if over and view is not None:
            epilogue = _epilogue(game, cast, view, _log(work, game), renderer)
    elif started:
        entries = _log(work, game)
        teller = _Teller(game, table.players, renderer, words, work, reader)
        sections = _sections(teller.chapters(entries))
        news = _sections(teller.news)
        if over and view is not None:
            epilogue = _epilogue(game, cast, view, entries, renderer)
    told = PublicGame(
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
        sections=sections,
        epilogue=epilogue,
        words=words,
    )
    return told, news


def stored_chapters(work: Work, game: Game, words: Words) -> list[Chapter]:
    """The village's stories of `game` as the post office stored them when it mailed them
    (:class:`narrator.models.PageChapter`), oldest first: what the page shows of a game whose
    chapters are stored, read as they are (no replay, no rendering)."""
    query = (
        select(PageChapter.moment, PageChapter.story, PageChapter.tallies)
        .where(PageChapter.game_id == game.id)
        .order_by(PageChapter.id)
    )
    return [
        Chapter(moment, _story(story), tuple(t for t in (tally_of(e, words) for e in tallies) if t))
        for moment, story, tallies in work.session.execute(query)
    ]


def tally_of(event: Mapping[str, Any], words: Words) -> tuple[TallyLine, ...]:
    """A public event's votes voter by voter (as its story tells them), else ()."""
    labels = web_words(words)
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


def _log(work: Work, game: Game) -> Sequence[Any]:
    """The game's log, oldest first: rows of (kind, payload) (read-only: no ORM objects)."""
    query = (
        select(GameLogEntry.kind, GameLogEntry.payload)
        .where(GameLogEntry.game_id == game.id)
        .order_by(GameLogEntry.seq)
    )
    return work.session.execute(query).all()


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


class _Teller:
    """Tells a game's public story again from its log, step by step (see the module)."""

    def __init__(
        self,
        game: Game,
        players: Sequence[Player],
        renderer: Renderer,
        words: Words,
        work: Work,
        reader: str | None = None,
    ) -> None:
        self.game = game
        # With a `reader`, his private news are told besides (his page): :attr:`news`.
        self.reader = reader
        self.news: list[Chapter] = []
        self.players = players
        self.renderer = renderer
        self.words = words
        self.rules: Ruleset[Any] = table_of(work, game).rules
        self.key = StoryKey(game.ruleset, game.language, game.theme, "night_result")
        query = select(Step.number, Step.deadline).where(Step.game_id == game.id)
        self._cast: tuple[tuple[tuple[str, bool], ...], Cast] | None = None
        self.deadlines = {number: at for number, at in work.session.execute(query)}

    def chapters(self, entries: Sequence[Any]) -> list[Chapter]:
        rs, state, number = self.rules, None, 0
        chapters: list[Chapter] = []
        for entry in entries:
            payload = entry.payload
            if entry.kind == "start":
                seats = [Seat(s["name"], s["role"], s.get("gender")) for s in payload["seats"]]
                state = rs.new_game(seats, Settings.from_dict(payload["settings"]))
                chapters.extend(self._start(state))
            elif entry.kind == "vote" and state is not None:
                result = rs.apply(state, _vote(payload))
                if not isinstance(result, Rejected):
                    state = result.state
            elif entry.kind == "resolve" and state is not None:
                number += 1
                resolution = rs.resolve(state)
                chapters.extend(self._resolved(state, resolution, number))
                state = resolution.state
            elif entry.kind == "remove" and state is not None:
                removal = rs.remove(state, payload["player"])
                chapters.extend(self._removed(state, removal, number + 1, payload["player"]))
                state = removal.state
        return chapters

    def _start(self, state: Any) -> list[Chapter]:
        """The story of the start (Lupus: the first Sindaco), as `games.start` told it."""
        rs = self.rules
        events = [
            e for e in rs.start_events(state) if e.type != "role" and e.type in rs.event_types
        ]
        if not events:
            return []
        told = audience_dicts(state, events, rs, told=True)
        view = rs.view(state)
        public = story_game(self.game, None, phase="start", view=view)
        seed = f"{self.game.id}/story/start"
        return self._chapter(state, view, told, public, seed, send_empty=False)

    def _resolved(
        self, before: Any, resolution: Resolution[Any], number: int, seed: str = ""
    ) -> list[Chapter]:
        """The story of step `number`, as `games.close` told it to the village (with `seed`:
        a removal during that step, as `removal.remove_player` told it)."""
        rs, game, after = self.rules, self.game, resolution.state
        seen, view = rs.view(before), rs.view(after)
        told = with_story_facts(
            audience_dicts(after, resolution.events, rs, told=True),
            rs,
            before,
            after,
            reveal_roles=game.reveal_roles,
        )
        public = story_game(game, None, seen.step, seen.phase, view=view)
        zone = zone_or_utc(game.timezone)
        deadline = self.deadlines.get(number)
        public["deadline"] = deadline.astimezone(zone) if deadline is not None else None
        turning = view.over or (seen.phase is not None and view.phase not in (None, seen.phase))
        if seed:  # a removal: the step goes on, told as the game master's announcement
            return self._chapter(
                after, view, told, public, seed, send_empty=False, announcement=True
            )
        seed = f"{game.id}/story/{number}"
        return self._chapter(after, view, told, public, seed, send_empty=turning)

    def _removed(
        self, before: Any, removal: Resolution[Any], number: int, name: str
    ) -> list[Chapter]:
        """The story of `name`'s removal during step `number`, as the village was told it."""
        player = next(p for p in self.players if p.name == name)
        return self._resolved(before, removal, number, f"{self.game.id}/removal/{player.id}")

    def _chapter(
        self,
        state: Any,
        view: GameView,
        told: list[dict[str, Any]],
        public: Mapping[str, Any],
        seed: str,
        *,
        send_empty: bool,
        announcement: bool = False,
    ) -> list[Chapter]:
        game = self.game
        cast = self._cast_of(state, view)
        told_as = {"announcement": True} if announcement else {}
        context = {"game": public, "players": cast, "recipient": None, **told_as}
        story_events = [StoryEvent.from_dict(e, game.ruleset) for e in told]
        moment = moment_of(StoryGame.from_any(public), self.words)
        if self.reader is not None and any(e.get("audience") != "public" for e in told):
            self._private(state, view, cast, story_events, public, seed, moment, told_as)
        rendered = self.renderer.render_story(
            self.key, context, story_events, seed, send_empty=send_empty, part="public"
        )
        if rendered is None:
            return []
        public_events = [e for e in told if e.get("audience") == "public"]
        tallies = tuple(t for t in (tally_of(e, self.words) for e in public_events) if t)
        return [Chapter(moment, _story(rendered.text), tallies)]

    def _private(
        self,
        state: Any,
        view: GameView,
        cast: Cast,
        events: Sequence[StoryEvent],
        public: Mapping[str, Any],
        seed: str,
        moment: str,
        told_as: Mapping[str, Any],
    ) -> None:
        """The reader's private story of the step, as his private story mail told it (to the
        team he was in while alive), added to :attr:`news`."""
        reader = self.reader
        assert reader is not None
        seat = view.find(reader)
        groups = frozenset({seat.team} if seat is not None and seat.alive else ())
        players = recipient_cast(self.rules, cast, state, reader)
        context = {"game": public, "players": players, "recipient": reader, **told_as}
        rendered = self.renderer.render_story(
            self.key, context, events, seed, groups=groups, part="private"
        )
        if rendered is not None:
            self.news.append(Chapter(moment, _story(rendered.text)))

    def _cast_of(self, state: Any, view: GameView) -> Cast:
        """The village's cast at `view` (the one of the step before while nobody died since:
        one page tells many steps, and a cast of a hundred players is not free)."""
        lives = tuple((seat.name, seat.alive) for seat in view.players)
        if self._cast is None or self._cast[0] != lives:
            cast = story_cast(self.game, self.players, state, rules=self.rules, view=view)
            self._cast = (lives, cast)
        return self._cast[1]


def _story(text: str) -> Markup:
    """A story mail's text as the page shows it: above its roster, as HTML."""
    told = text.replace("\r\n", "\n").partition(f"\n\n{ROSTER_SEPARATOR}\n")[0]
    return story_markup(told.strip())


def _vote(payload: Mapping[str, Any]) -> RulesVote:
    return RulesVote(
        player=payload["player"],
        targets=tuple(payload["targets"]),
        blanco=bool(payload["blanco"]),
        keywords=frozenset(payload["keywords"]),
    )


def _epilogue(
    game: Game, cast: Cast, view: GameView, entries: Sequence[Any], renderer: Renderer
) -> Markup | None:
    """The epilogue mail's story, as `games` mailed it at the end (None where the language
    has no epilogue)."""
    key = StoryKey(game.ruleset, game.language, game.theme, "epilogue")
    try:
        renderer.variants(key)
    except StoryNotFound:
        return None
    public = story_game(game, None, view=view)
    context: dict[str, Any] = {"game": public, "players": cast, "recipient": None}
    context.update(epilogue_chapters(game, entries))
    roles = {seat.name: seat.role for seat in view.players}
    context.update({"roles": roles, "winners": list(view.winners), "teams": list(view.teams)})
    rendered = renderer.render_mail(key, context, f"epilogue/{game.id}")
    return story_markup(rendered.text.strip())
