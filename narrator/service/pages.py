"""The game pages' stories built once from the log, for a game told before they were stored.

The game pages read what the post office stored as it mailed it (:class:`narrator.models.
PageChapter`): since migration 0008 the village's story of every step, since 0009 each
player's private stories and the epilogue too.  A game older than either has
``chapters_stored`` or ``news_stored`` false and lacks those rows.  :func:`build_pages`
tells its stories again from its log with the story pack, exactly as the service told them
(same events as told, same story facts, same seed: :func:`narrator.service.games.close`,
``start``, :func:`narrator.service.removal.remove_player`), stores the missing rows and sets
both flags: once.  The daemon calls :func:`build_missing_pages` at its start, before it serves
a page or closes a step; no request replays a log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from narrator.models import (
    ChapterKind,
    Game,
    GameLogEntry,
    GameStatus,
    PageChapter,
    PlayerInfo,
    Step,
)
from narrator.service.games import public_tallies
from narrator.service.story_context import (
    audience_dicts,
    epilogue_chapters,
    recipient_cast,
    story_cast,
    story_game,
    with_story_facts,
)
from narrator.service.table import table_of
from narrator.service.threads import moment_subject
from narrator.service.work import Work, unit_of_work
from narrator.zones import zone_or_utc
from rules.core import Rejected, Resolution, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.ruleset import Ruleset
from rules.core.view import GameView
from stories import Cast, Renderer, StoryKey, StoryNotFound
from stories import Event as StoryEvent
from stories import Game as StoryGame
from stories.context import event_schema
from stories.render import moment_of
from stories.words import Words, load_words

log = logging.getLogger("narrator.pages")


@dataclass(frozen=True)
class Told:
    """One story as it was told: its moment, its text, the public events whose votes the page
    tallies, and the player it was told to alone (None: the whole village)."""

    moment: str
    text: str
    tallies: tuple[Mapping[str, Any], ...] = ()
    reader: int | None = None


def has_pages(game: Game) -> bool:
    """Whether every story of `game` the pages show is stored (see the module docstring)."""
    return bool(game.chapters_stored and game.news_stored)


def build_missing_pages(
    factory: sessionmaker[Session], renderer: Renderer, clock: Callable[[], datetime]
) -> list[str]:
    """Build the stored stories of every started game that lacks them (:func:`build_pages`),
    each game in a transaction of its own; return the names of the games built.  A game
    changed meanwhile by another process, or whose stories fail to render (a broken story in
    the stories table), is left for the next start (logged)."""
    with unit_of_work(factory) as work:
        missing = work.session.scalars(
            select(Game.id)
            .where(Game.status != GameStatus.SIGNUP.value)
            .where(or_(Game.chapters_stored.is_(False), Game.news_stored.is_(False)))
            .order_by(Game.id)
        ).all()
    built = []
    for game_id in missing:
        try:
            with unit_of_work(factory) as work:
                game = work.session.get(Game, game_id)
                if game is None or has_pages(game):
                    continue
                rows = build_pages(work, game, renderer, clock())
                name = game.name
        except StaleDataError:
            log.warning("game %d changed while its pages were built: at the next start", game_id)
            continue
        except Exception:  # a story that fails to render must not keep the daemon from starting
            log.exception(
                "building the pages of game %d failed: retried at the next start", game_id
            )
            continue
        log.info("built the pages of game %s from its log (%d stories stored)", name, rows)
        built.append(name)
    return built


def build_pages(work: Work, game: Game, renderer: Renderer, now: datetime) -> int:
    """Tell `game`'s stories again from its log and store those its pages lack: the village's
    (unless ``chapters_stored``), its players' private ones and the epilogue (unless
    ``news_stored``); then mark both stored.  Returns the rows stored (0 before the start)."""
    table = table_of(work, game)
    if not table.started or has_pages(game):
        return 0
    session = work.session
    village = PageChapter.player_id.is_(None) & (PageChapter.kind == ChapterKind.STORY.value)
    mine = PageChapter.game_id == game.id
    # What a step told since the migration is stored already; told again, once, with the rest.
    if not game.chapters_stored:
        session.execute(delete(PageChapter).where(mine & village))
    if not game.news_stored:
        session.execute(delete(PageChapter).where(mine & ~village))
    work.flush()  # the log's entries this transaction made, if any
    entries = session.execute(
        select(GameLogEntry.kind, GameLogEntry.payload)
        .where(GameLogEntry.game_id == game.id)
        .order_by(GameLogEntry.seq)
    ).all()
    words = load_words(game.ruleset, game.language)
    told = _Teller(work, game, table.players, renderer, words).tell(entries)
    rows = [
        PageChapter(
            game_id=game.id,
            player_id=story.reader,
            kind=ChapterKind.STORY.value,
            moment=story.moment,
            story=story.text,
            tallies=[dict(event) for event in story.tallies],
            told_at=now,
        )
        for story in told
        if (story.reader is None and not game.chapters_stored)
        or (story.reader is not None and not game.news_stored)
    ]
    if not game.news_stored and game.status == GameStatus.ENDED.value:
        text = _epilogue(game, table.cast(reveal_all=True), table.view, entries, renderer)
        if text is not None:
            rows.append(
                PageChapter(
                    game_id=game.id,
                    kind=ChapterKind.EPILOGUE.value,
                    moment="",
                    story=text,
                    tallies=[],
                    told_at=now,
                )
            )
    session.add_all(rows)
    game.chapters_stored = game.news_stored = True
    return len(rows)


class _Teller:
    """Tells a game's stories again from its log, step by step (see the module)."""

    def __init__(
        self,
        work: Work,
        game: Game,
        players: Sequence[PlayerInfo],
        renderer: Renderer,
        words: Words,
    ) -> None:
        self.game = game
        self.players = players
        self.renderer = renderer
        self.words = words
        self.rules: Ruleset[Any] = table_of(work, game).rules
        self.key = StoryKey(game.ruleset, game.language, game.theme, "night_result")
        self.schema = event_schema(game.ruleset)  # its events' fields, for every step told
        query = select(Step.number, Step.deadline).where(Step.game_id == game.id)
        self._cast: tuple[tuple[tuple[str, bool], ...], Cast] | None = None
        self.deadlines = {number: at for number, at in work.session.execute(query)}
        self.told: list[Told] = []

    def tell(self, entries: Sequence[Any]) -> list[Told]:
        """Every story of the log's steps, in the order the mails told them."""
        rs, state, number = self.rules, None, 0
        for entry in entries:
            payload = entry.payload
            if entry.kind == "start":
                seats = [Seat(s["name"], s["role"], s.get("gender")) for s in payload["seats"]]
                state = rs.new_game(seats, Settings.from_dict(payload["settings"]))
                self._start(state)
            elif entry.kind == "vote" and state is not None:
                result = rs.apply(state, _vote(payload))
                if not isinstance(result, Rejected):
                    state = result.state
            elif entry.kind == "resolve" and state is not None:
                number += 1
                resolution = rs.resolve(state)
                self._resolved(state, resolution, number)
                state = resolution.state
            elif entry.kind == "remove" and state is not None:
                removal = rs.remove(state, payload["player"])
                self._removed(state, removal, number + 1, payload["player"])
                state = removal.state
        return self.told

    def _start(self, state: Any) -> None:
        """The story of the start (Lupus: the first Sindaco), as `games.start` told it."""
        rs = self.rules
        events = [
            e for e in rs.start_events(state) if e.type != "role" and e.type in rs.event_types
        ]
        if not events:
            return
        told = audience_dicts(state, events, rs, told=True)
        view = rs.view(state)
        public = story_game(self.game, None, phase="start", view=view)
        seed = f"{self.game.id}/story/start"
        self._chapter(state, told, public, seed, send_empty=False)

    def _resolved(
        self, before: Any, resolution: Resolution[Any], number: int, seed: str = ""
    ) -> None:
        """The story of step `number`, as `games.close` told it (with `seed`: a removal during
        that step, as `removal.remove_player` told it)."""
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
        if seed:  # a removal: the step goes on, told as the game master's announcement
            self._chapter(after, told, public, seed, send_empty=False, announcement=True)
            return
        # Told also when quiet: a dawn or dusk, the end, or a step after which the moment
        # turns in the players' words (as `games.close` decides it).
        turning = view.over or (seen.phase is not None and view.phase not in (None, seen.phase))
        following = story_game(game, None, view.step, view=view)
        turning = turning or moment_subject(game, {"game": public}) != moment_subject(
            game, {"game": following}
        )
        self._chapter(after, told, public, f"{game.id}/story/{number}", send_empty=turning)

    def _removed(self, before: Any, removal: Resolution[Any], number: int, name: str) -> None:
        """The story of `name`'s removal during step `number`, as the village was told it."""
        player = next(p for p in self.players if p.name == name)
        self._resolved(before, removal, number, f"{self.game.id}/removal/{player.id}")

    def _chapter(
        self,
        state: Any,
        told: list[dict[str, Any]],
        public: Mapping[str, Any],
        seed: str,
        *,
        send_empty: bool,
        announcement: bool = False,
    ) -> None:
        game = self.game
        view = self.rules.view(state)
        cast = self._cast_of(state, view)
        told_as = {"announcement": True} if announcement else {}
        context = {"game": public, "players": cast, "recipient": None, **told_as}
        story_events = [StoryEvent.from_dict(e, game.ruleset, self.schema) for e in told]
        moment = moment_of(StoryGame.from_any(public), self.words)
        rendered = self.renderer.render_story(
            self.key, context, story_events, seed, send_empty=send_empty, part="public"
        )
        if rendered is not None:
            self.told.append(Told(moment, rendered.text, public_tallies(told)))
        private = [e.audience for e in story_events if "public" not in e.audience]
        if private:
            story = _Story(state, view, cast, story_events, public, seed, moment, told_as)
            self._private(story, private)

    def _private(self, story: _Story, private: Sequence[Sequence[str]]) -> None:
        """Each player's private story of the step, as his private story mail told it (to the
        team he was in while alive; to those the story tells more than the village, but the
        unsubscribed dead, as `games._story_letters` mails them)."""
        view = story.view
        for player in self.players:
            seat = view.find(player.name)
            if player.unsubscribed and (seat is None or not seat.alive):
                continue
            groups = frozenset({seat.team} if seat is not None and seat.alive else ())
            if not any(player.name in readers or groups & set(readers) for readers in private):
                continue
            players = recipient_cast(self.rules, story.cast, story.state, player.name)
            context = {
                "game": story.public,
                "players": players,
                "recipient": player.name,
                **story.told_as,
            }
            rendered = self.renderer.render_story(
                self.key, context, story.events, story.seed, groups=groups, part="private"
            )
            if rendered is not None:
                self.told.append(Told(story.moment, rendered.text, reader=player.id))

    def _cast_of(self, state: Any, view: GameView) -> Cast:
        """The village's cast at `view` (the one of the step before while nobody died since:
        one game tells many steps, and a cast of a hundred players is not free)."""
        lives = tuple((seat.name, seat.alive) for seat in view.players)
        if self._cast is None or self._cast[0] != lives:
            cast = story_cast(self.game, self.players, state, rules=self.rules, view=view)
            self._cast = (lives, cast)
        return self._cast[1]


@dataclass(frozen=True)
class _Story:
    """One step's story being told to its private readers: the state and view after it, the
    village's cast, its events, its public game, seed, moment and how it is told."""

    state: Any
    view: GameView
    cast: Cast
    events: Sequence[StoryEvent]
    public: Mapping[str, Any]
    seed: str
    moment: str
    told_as: Mapping[str, Any]


def _vote(payload: Mapping[str, Any]) -> RulesVote:
    return RulesVote(
        player=payload["player"],
        targets=tuple(payload["targets"]),
        blanco=bool(payload["blanco"]),
        keywords=frozenset(payload["keywords"]),
    )


def _epilogue(
    game: Game, cast: Cast, view: GameView, entries: Sequence[Any], renderer: Renderer
) -> str | None:
    """The epilogue mail's text, as `games` mailed it at the end (None where the language has
    no epilogue)."""
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
    return renderer.render_mail(key, context, f"epilogue/{game.id}").text
