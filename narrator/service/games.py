"""The game lifecycle: signups, the start, votes, deadlines, pauses, applied to stored games.

Every operation works on a game's table in the caller's unit of work (:class:`~narrator.
service.table.GameTable`, one transaction): it asks the pure rules engine, stores the new state
and the game log, and *decides* the mails that follow: it returns them as letters
(:mod:`narrator.service.letters`) and never mails anything itself.  The entry points the CLI
and the scheduler call (:func:`start_game`, :func:`close_step`, :func:`send_reminders`) hand
those letters to :func:`~narrator.service.letters.post`.  What the mails say comes from
:mod:`narrator.service.story_context`.  The clock (`now`) is always passed in.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from narrator.models import (
    ChapterKind,
    Game,
    GameLogEntry,
    GameStatus,
    Player,
    PlayerInfo,
    RoleDistribution,
    Step,
    Vote,
    fold_email,
    fold_name,
)
from narrator.service.letters import Draft, Letter, PageTelling, Recipient, Story, post
from narrator.service.mailer import Mailer, ReplyTo
from narrator.service.story_context import (
    action_context,
    audience_dicts,
    epilogue_chapters,
    living_mates,
    step_actions,
    story_cast,
    story_game,
    story_names,
)
from narrator.service.table import GameTable, table_of
from narrator.service.threads import moment_subject, reply_subject
from narrator.service.work import NotStarted, Work, ruleset_of, state_of
from narrator.tables import votes
from rules.core import Distribution, Rejected, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.events import AudienceKind
from rules.core.ruleset import RulesState
from rules.core.view import GameView
from stories import Event as StoryEvent
from stories import Game as StoryGame
from stories.context import story_events
from stories.layout import DEATH_EVENTS, is_unlisted
from stories.render import moment_of
from stories.words import load_words

log = logging.getLogger("narrator.games")

__all__ = ["GameError", "ruleset_of", "state_of"]  # and the lifecycle functions below


class GameError(Exception):
    """A request that the game's status does not allow (the CLI shows it, mail gets a reply).

    ``code`` is a stable string (``game-started``, ``not-running``, ``too-few-players``, …);
    the message is for admins and logs.  ``reply_text`` is what a player's error reply says,
    already in the game's language; when empty, the reply template's text for ``code`` is used.
    """

    def __init__(self, code: str, message: str, *, reply_text: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.reply_text = reply_text


MIN_PLAYERS = 3


def load_state(work: Work, game: Game) -> RulesState:
    """The rules state of a started game in this unit of work; GameError before the start."""
    try:
        return table_of(work, game).state
    except NotStarted as error:
        raise GameError("not-started", str(error)) from None


def replay(game: Game, entries: Iterable[GameLogEntry]) -> RulesState | None:
    """Rebuild the rules state of `game` from its log (start, votes, resolutions)."""
    rs = ruleset_of(game)
    state: RulesState | None = None
    for entry in entries:
        payload = entry.payload
        if entry.kind == "start":
            seats = [Seat(s["name"], s["role"], s.get("gender")) for s in payload["seats"]]
            state = rs.new_game(seats, Settings.from_dict(payload["settings"]))
        elif entry.kind == "vote" and state is not None:
            result = rs.apply(state, _rules_vote(payload))
            if isinstance(result, Rejected):
                raise ValueError(f"log entry {entry.seq}: replayed vote rejected: {result.code}")
            state = result.state
        elif entry.kind == "resolve" and state is not None:
            state = rs.resolve(state).state
        elif entry.kind == "remove" and state is not None:
            state = rs.remove(state, payload["player"]).state
    return state


def _rules_vote(payload: Mapping[str, Any]) -> RulesVote:
    return RulesVote(
        player=payload["player"],
        targets=tuple(payload["targets"]),
        blanco=bool(payload["blanco"]),
        keywords=frozenset(payload["keywords"]),
    )


# --- letters to players ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Batch:
    """The mails of one moment of a game: they share the `public` game of their stories and
    so the game day's `subject` (worked out once, :func:`_batch`)."""

    table: GameTable
    public: Mapping[str, Any]
    subject: str

    def context(self, recipient: str | None, *, reveal_all: bool = False) -> dict[str, Any]:
        """`recipient`'s story context (see :meth:`GameTable.context`)."""
        return self.table.context(recipient, self.public, reveal_all=reveal_all)


def _batch(table: GameTable, public: Mapping[str, Any]) -> _Batch:
    """The batch of mails whose stories' `game` is `public`, titled with its game day."""
    return _Batch(table, public, moment_subject(table.game, {"game": public}))


def _letter(
    batch: _Batch,
    player: PlayerInfo,
    mail: str,
    context: Mapping[str, Any],
    identity: str,
    reply: ReplyTo | None = None,
) -> Letter:
    """The non-event mail `mail` to `player`: `identity` seeds its variant and names it once and
    for all; titled with the batch's game day, or ``Re: <his subject>`` (`reply`)."""
    game = batch.table.game
    return Letter(
        kind=mail,
        draft=Draft(mail, context, identity, game=game),
        to=(Recipient(player.email, player.name, identity),),
        game=game,
        subject=batch.subject,
        reply=reply,
    )


def _personal(letter: Letter, player: PlayerInfo) -> Letter:
    """`letter` (his role mail, a mail asking him to act) with `player`'s personal link, when
    the pages are configured (:func:`narrator.service.letters.post` adds it)."""
    return replace(letter, page=player)


def _mail(work: Work, mailer: Mailer, letters: Sequence[Letter], now: datetime) -> None:
    post(work.session, mailer, letters, now, outgoing=work.outgoing)


# --- creating and signing up ----------------------------------------------------------------


@dataclass(frozen=True)
class Applicant:
    """Who signs up: his address, the name he plays under, his gender (the game's words)."""

    email: str
    name: str
    gender: str


@dataclass(frozen=True)
class SignupResult:
    """A stored signup: the player row, whether it replaced the sender's earlier one, and the
    confirmation to mail."""

    player: Player
    replaced: bool
    letters: tuple[Letter, ...] = ()


def signup(
    table: GameTable, applicant: Applicant, now: datetime, reply: ReplyTo | None = None
) -> SignupResult:
    """Sign `applicant` up for the table's game; a second signup from one address replaces the
    first.  Returns the player and the confirmation letter (to :func:`post`).

    Raises GameError ``game-started`` after the start and ``name-taken`` when another address
    already uses the name (case and accents ignored).
    """
    game, work = table.game, table.work
    if game.status != GameStatus.SIGNUP.value:
        raise GameError("game-started", f"game {game.name} has already started")
    email, name, gender = fold_email(applicant.email), applicant.name, applicant.gender
    players = table.players
    key = fold_name(name)
    for other in players:
        if other.name_key == key and other.email != email:
            raise GameError("name-taken", f"the name {other.name} is already taken in {game.name}")
    known = next((p for p in players if p.email == email), None)
    replaced = known is not None
    if known is None:
        seat = max((p.seat for p in players), default=0) + 1
        mine = Player(
            game_id=game.id, seat=seat, email=email, name=name, name_key=key, gender=gender
        )
        work.session.add(mine)
    else:
        mine = work.session.get_one(Player, known.id)
        mine.name, mine.name_key, mine.gender = name, key, gender
    work.session.flush()
    table.player_changed(mine)
    players = table.players
    table.log("signup", {"email": email, "name": name, "gender": gender}, now)
    cast = story_cast(game, players, None, rules=table.rules)
    context: dict[str, Any] = {
        "game": story_game(game, None),
        "players": cast,
        "recipient": mine.name,
    }
    context.update(
        {"player": mine.name, "signups": [p.name for p in players], "replaced": replaced}
    )
    identity = (
        f"signup/{reply.inbox_id}"
        if reply is not None and reply.inbox_id is not None
        else f"signup/{game.id}/{mine.id}/{now.isoformat()}"
    )
    letter = _letter(
        _batch(table, context["game"]), mine, "signup_confirmed", context, identity, reply
    )
    return SignupResult(mine, replaced, (letter,))


# --- the start ------------------------------------------------------------------------------


def distributions_for(session: Session, game: Game) -> list[Distribution]:
    """The admin-added distributions of the game's ruleset (the built-in ones are the engine's)."""
    rows = session.scalars(select(RoleDistribution).where(RoleDistribution.ruleset == game.ruleset))
    return [
        Distribution(id=r.key, players=r.players, roles=tuple(r.roles), options=r.options)
        for r in rows
    ]


def start_game(
    work: Work,
    mailer: Mailer,
    game: Game,
    *,
    now: datetime,
    seed: int | None = None,
    distribution_id: str | None = None,
) -> None:
    """Close signups, deal the roles (seeded), mail every player his role, and open the first step.

    Raises GameError ``game-started``, ``too-few-players`` or ``unknown-distribution``.
    """
    table = table_of(work, game)
    _mail(work, mailer, start(table, now, seed, distribution_id), now)


def start(
    table: GameTable, now: datetime, seed: int | None = None, distribution_id: str | None = None
) -> list[Letter]:
    """Close signups, deal the roles (seeded) and open the first step; return the letters (each
    player's role, the start's story, the first step's)."""
    game = table.game
    if game.status != GameStatus.SIGNUP.value:
        raise GameError("game-started", f"game {game.name} has already started")
    players = table.players
    if len(players) < MIN_PLAYERS:
        raise GameError(
            "too-few-players",
            f"game {game.name} has {len(players)} players; at least {MIN_PLAYERS} are needed",
        )
    seed = secrets.randbits(48) if seed is None else seed
    distribution = _distribution(table, seed, distribution_id)
    seats, state, settings = _deal(table, distribution, seed)
    game.seed = seed
    game.distribution_id = distribution.id
    game.status = GameStatus.RUNNING.value
    game.started_at = now
    game.chapters_stored = True  # its stories are kept for its pages from the start
    game.news_stored = True
    table.work.games_changed()
    seated = [{"name": s.name, "role": s.role, "gender": s.gender} for s in seats]
    payload = {"distribution": distribution.id, "seats": seated, "settings": settings.to_dict()}
    table.log("start", payload, now)
    table.store(state)
    letters = _role_letters(table)
    letters.extend(_start_story(table))
    letters.extend(_open_step(table, now))
    return letters


def _distribution(table: GameTable, seed: int, distribution_id: str | None) -> Distribution:
    """The distribution a start deals: the one named, else the ruleset's pick for the players."""
    rs = table.rules
    extra = distributions_for(table.work.session, table.game)
    if distribution_id is None:
        return rs.pick_distribution(len(table.players), seed, extra)
    known = {d.id: d for d in (*rs.distributions, *extra)}
    if distribution_id not in known:
        raise GameError("unknown-distribution", f"no role distribution called {distribution_id!r}")
    return known[distribution_id]


def _deal(
    table: GameTable, distribution: Distribution, seed: int
) -> tuple[Sequence[Seat], RulesState, Settings]:
    """Deal `distribution` to the players (seeded): the seats, the first state, its settings."""
    rs, game, players = table.rules, table.game, table.players
    try:  # the ruleset counts the seats (a Mafia table's elite players sit beside the others)
        seats = rs.deal([(p.name, p.gender) for p in players], distribution, seed)
    except ValueError as error:
        raise GameError(
            "unknown-distribution",
            f"distribution {distribution.id} does not fit {len(players)} players: {error}",
        ) from None
    settings = Settings(
        seed=seed,
        strictness=game.strictness,
        close_early=game.close_early,
        reveal_roles=game.reveal_roles,
        # The ruleset's defaults, then what the distribution brings, then the admin's choice.
        options={**rs.options, **distribution.options, **(game.options or {})},
    )
    try:
        state = rs.new_game(seats, settings)
    except ValueError as error:  # an admin's distribution the rules refuse
        raise GameError(
            "unknown-distribution", f"distribution {distribution.id} cannot start: {error}"
        ) from None
    return seats, state, settings


def _role_letters(table: GameTable) -> list[Letter]:
    """Every player's role mail.  The start's public events that are no events of the ruleset
    (the Vampiri's composition) are told in every role mail, as `announced`."""
    rs, game = table.rules, table.game
    start_events = rs.start_events(table.state)
    announced = [
        e.to_dict()
        for e in start_events
        if e.type != "role"
        and e.type not in rs.event_types
        and e.audience.kind is AudienceKind.PUBLIC
    ]
    by_name = {p.name: p for p in table.players}
    batch = _batch(table, table.public())  # one public game for every mail of the batch
    letters = []
    for info in start_events:
        data = info.to_dict()
        if info.type != "role" or data.get("player") not in by_name:
            continue
        player = by_name[data["player"]]
        context = batch.context(player.name)
        context.update(
            {
                "player": player.name,
                "role": data["role"],
                "team": data.get("team"),
                "mates": list(data.get("mates", ())),
                "announced": announced,
                # the role event's other fields (the vampiri's category, undercover)
                "facts": {
                    k: v
                    for k, v in data.items()
                    if k not in ("type", "player", "role", "team", "mates")
                },
            }
        )
        identity = f"role/{game.id}/{player.id}"
        letters.append(_personal(_letter(batch, player, "role", context, identity), player))
    return letters


def _start_story(table: GameTable) -> list[Letter]:
    """The start's events that are events of the ruleset (Lupus: the class mates' roles, the
    Divinatore's statements, the first Sindaco), told as the story of the start, each to its
    audience."""
    rs, game = table.rules, table.game
    events = [
        e for e in rs.start_events(table.state) if e.type != "role" and e.type in rs.event_types
    ]
    if not events:
        return []
    told = audience_dicts(table.state, events, rs, told=True)
    return _story_letters(
        table,
        story_events(told, game.ruleset),
        table.public(phase="start"),  # the moment: the beginning
        # one telling for everybody
        _Telling(
            seed=f"{game.id}/story/start",
            identity=f"story/{game.id}/start",
            tallies=public_tallies(told),
        ),
    )


@dataclass(frozen=True)
class _Telling:
    """How a story is told: the `seed` of its one telling, the `identity` its mails are named
    after, whether it is mailed when empty, and the players who get none (`skip`).

    `announcement`: told as the game master's announcement in the middle of the step (a
    removal), not as the step's dawn or dusk: the story mails' ``announcement`` is true."""

    seed: str
    identity: str
    send_empty: bool = False
    skip: frozenset[str] = frozenset()
    tallies: tuple[Mapping[str, Any], ...] = ()
    announcement: bool = False


def public_tallies(told: Sequence[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    """The public events of a story (told form) that carry a vote voter by voter (``votes``
    or ``ballots``): what the public game page tallies beside the story."""
    return tuple(
        e
        for e in told
        if e.get("audience") == "public"
        and (isinstance(e.get("votes"), dict) or isinstance(e.get("ballots"), dict))
    )


def _story_letters(
    table: GameTable,
    story_events: Sequence[StoryEvent],
    public: Mapping[str, Any],
    telling: _Telling,
) -> list[Letter]:
    """A step's story in two parts: the public story, one text for the whole village (one
    draft, rendered once, for no recipient: no line says "you" to anyone), and to each player
    who may know more a private mail with only that (his own events, his team's).

    Players named in `skip` get neither (the unsubscribed dead).  The village's story is also
    the public game page's chapter (`Draft.page`: stored as rendered, with its tallies), and
    each private one a chapter of its player's own page."""
    game, seed, identity = table.game, telling.seed, telling.identity
    subject = moment_subject(game, {"game": public})  # the day of every mail of the story
    moment = moment_of(StoryGame.from_any(public), load_words(game.ruleset, game.language))
    told_as = {"announcement": True} if telling.announcement else {}
    village = Draft(
        "night_result",
        {**table.context(None, public), **told_as},
        seed,
        game=game,
        story=Story(story_events, "public", send_empty=telling.send_empty),
        page=PageTelling(moment, telling.tallies),
    )
    private = [e.audience for e in story_events if "public" not in e.audience]
    seats = {seat.name: seat for seat in table.view.players} if private else {}
    letters = []
    for player in table.players:
        if player.name in telling.skip:
            continue
        to = Recipient(player.email, player.name, f"{identity}/{player.id}")
        letters.append(Letter("story", village, (to,), game=game, subject=subject))
        seat = seats.get(player.name)
        groups = frozenset({seat.team} if seat is not None and seat.alive else ())
        if any(player.name in readers or groups & set(readers) for readers in private):
            # a private mail only to whom the story tells more than the village
            context = {**table.context(player.name, public), **told_as}
            story = Story(story_events, "private", groups=groups)
            page = PageTelling(moment, reader=player.id)
            own = Draft("night_result", context, seed, game=game, story=story, page=page)
            to = Recipient(player.email, player.name, f"{identity}/{player.id}/private")
            letters.append(Letter("story", own, (to,), game=game, subject=subject))
    return letters


def _open_step(table: GameTable, now: datetime, fallen: Sequence[str] = ()) -> list[Letter]:
    """Record the step the state is at, set its deadline; return the mail of every player who
    is asked (or, when the game is over, the end's).  `fallen`: who died in the step just
    resolved (a big game's step mail names them in its summed-up roster)."""
    game, view = table.game, table.view
    if view.over:
        return _finish(table, now)
    game.step_number += 1
    game.deadline = now + timedelta(seconds=game.speed)
    game.reminded_at = None
    table.work.session.add(
        Step(
            game_id=game.id,
            number=game.step_number,
            step=view.step,
            night=view.night,
            day=view.day,
            started_at=now,
            deadline=game.deadline,
        )
    )
    by_name = {p.name: p for p in table.players}
    batch = _batch(table, table.public())  # one public game for every mail of the batch
    mates = living_mates(table.rules, table.state, view)
    names = story_names(table.players)  # once for every mail of the step
    letters = []
    for name in table.rules.asked(table.state):
        player = by_name[name]
        context = batch.context(name)
        actions = step_actions(table.rules, table.state, name, mates.get(name, ()), names)
        context.update({"player": name, "actions": actions})
        if fallen:
            context["fallen"] = fallen
        identity = f"step/{game.id}/{game.step_number}/{player.id}"
        letter = _letter(batch, player, "step", context, identity)
        letters.append(_personal(letter, player) if actions else letter)
    return letters


def _finish(table: GameTable, now: datetime) -> list[Letter]:
    """End the game: everybody's ``game_over`` mail, then the epilogue."""
    game = table.game
    game.status = GameStatus.ENDED.value
    game.ended_at = now
    table.work.games_changed()
    game.deadline = None
    game.step = None
    view = table.view
    roles = {seat.name: seat.role for seat in view.players}
    batch = _batch(table, table.public())  # one public game for every mail of the batch
    over = {
        "winners": list(view.winners),
        "teams": list(view.teams),
        "roles": roles,
        "alive": list(view.alive),
        "mayor": view.facts.get("mayor"),
    }
    letters = []
    for player in table.players:
        if player.unsubscribed:
            continue
        context = batch.context(player.name, reveal_all=True)
        context.update(over)
        identity = f"over/{game.id}/{player.id}"
        letters.append(_letter(batch, player, "game_over", context, identity))
    letters.append(_epilogue(batch, roles))
    return letters


def _epilogue(batch: _Batch, roles: Mapping[str, str]) -> Letter:
    """Everybody's epilogue: the whole game, night by night, from the game log, with every
    role: the game is over, so it is told also when the game revealed no roles while it ran.
    One text for all; none where the game's language has no ``epilogue`` template."""
    table = batch.table
    game, view = table.game, table.view
    table.work.flush()  # the log's entries of this transaction (its last votes, this step's)
    entries = table.work.session.scalars(
        select(GameLogEntry).where(GameLogEntry.game_id == game.id).order_by(GameLogEntry.seq)
    ).all()
    context = batch.context(None, reveal_all=True)
    context.update(epilogue_chapters(game, entries))
    context.update({"roles": dict(roles), "winners": list(view.winners), "teams": list(view.teams)})
    page = PageTelling("", kind=ChapterKind.EPILOGUE.value)  # the ended game's page shows it
    draft = Draft("epilogue", context, f"epilogue/{game.id}", game=game, optional=True, page=page)
    to = tuple(
        Recipient(p.email, p.name, f"epilogue/{game.id}/{p.id}")
        for p in table.players
        if not p.unsubscribed
    )
    # titled with the game's day, as every mail of the game (threads)
    return Letter("epilogue", draft, to, game=game, subject=batch.subject)


# --- votes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ballot:
    """A player's vote as he sent it: names, blank, keywords; the names the parser corrected
    (written, understood); and the inbox row it came in (its id names the receipt)."""

    targets: Sequence[str]
    blanco: bool
    keywords: Iterable[str]
    corrections: Sequence[tuple[str, str]] = ()
    inbox_id: int | None = None


@dataclass(frozen=True)
class VoteOutcome:
    """What became of a vote: accepted (and whether the step then closed early) or rejected;
    the letters to mail (the receipt or the error reply, and what the early close tells)."""

    accepted: bool
    code: str | None = None
    detail: str = ""
    closed_early: bool = False
    letters: tuple[Letter, ...] = ()


def cast_vote(
    table: GameTable,
    player: PlayerInfo,
    ballot: Ballot,
    now: datetime,
    reply: ReplyTo | None = None,
) -> VoteOutcome:
    """Apply `player`'s vote; return its receipt, or an error reply stating why and what is
    valid, as letters (to :func:`post`)."""
    game = table.game
    state = voting_state(table)
    keywords = sorted(set(ballot.keywords))
    vote = RulesVote(
        player=player.name,
        targets=tuple(ballot.targets),
        blanco=ballot.blanco,
        keywords=frozenset(keywords),
    )
    result = table.rules.apply(state, vote)
    # A vote changes no seat, step or public fact: one view serves the reply, whatever it is
    # (and the other votes of the batch in this game: only its votes could differ).
    voting = _Voting(table, player, table.view_but_votes, keywords, ballot, now, reply)
    if isinstance(result, Rejected):
        letter = voting.refusal(state, result.code)
        return VoteOutcome(False, result.code, result.detail, letters=(letter,))
    letters = voting.accept(result.state)
    if game.close_early and table.rules.all_voted(result.state):
        letters.extend(close(table, now).letters)
        return VoteOutcome(True, closed_early=True, letters=tuple(letters))
    return VoteOutcome(True, letters=tuple(letters))


def voting_state(table: GameTable) -> Any:
    """The rules state votes are cast in; GameError when the game takes no votes now."""
    game = table.game
    if game.status != GameStatus.RUNNING.value:
        if game.status == GameStatus.PAUSED.value:
            raise GameError("game-paused", f"game {game.name} is paused")
        raise GameError("not-running", f"game {game.name} is not running")
    try:
        return table.state
    except NotStarted as error:
        raise GameError("not-started", str(error)) from None


# Every accepted vote adds its row: a Core statement built once, not an ORM unit of work,
# executed for all of a transaction's votes at once (Work.write).
_VOTE_ROW = insert(votes)


@dataclass(frozen=True)
class _Voting:
    """One vote being answered: the table, the voter, the view of the state he voted in (but
    for its votes: :attr:`GameTable.view_but_votes`)."""

    table: GameTable
    player: PlayerInfo
    view: GameView
    keywords: Sequence[str]
    ballot: Ballot
    now: datetime
    reply: ReplyTo | None

    @property
    def identity(self) -> str:
        ballot, game = self.ballot, self.table.game
        if ballot.inbox_id is not None:
            return f"vote/{ballot.inbox_id}"
        return f"vote/{game.id}/{self.player.id}/{self.now.isoformat()}"

    def batch(self, *, titled: bool) -> _Batch:
        """The vote's mails: the public game of the view it was cast in; titled with its game
        day when a mail of them is not titled ``Re: <his subject>`` (``titled``)."""
        public = self.table.votes_public(self.view)  # one for the batch's votes in the game
        if titled:
            return _batch(self.table, public)
        return _Batch(self.table, public, "")

    @property
    def answered(self) -> bool:
        """Whether his answer is titled ``Re: <his subject>`` (he wrote a subject)."""
        return self.reply is not None and bool(reply_subject(self.reply.subject))

    def receipt(self, state: RulesState) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
        """The action the vote was for in `state` (as he was told it; None: he has none now),
        and who else reads its receipt (``Ruleset.receipt``)."""
        told = self.table.rules.receipt(state, self.player.name, self.keywords)
        return (action_context(told.action) if told.action else None), told.readers

    def refusal(self, state: RulesState, code: str) -> Letter:
        """The error reply to a vote the rules refused: `code`, and what he may choose."""
        batch = self.batch(titled=not self.answered)
        context = batch.context(self.player.name)
        action, _ = self.receipt(state)
        context.update(
            {
                "player": self.player.name,
                "code": code,
                "message": "",  # the template words each code in the game's language
                "action": action,
                "choices": action["choices"] if action else [],
            }
        )
        letter = _letter(batch, self.player, "error", context, self.identity, self.reply)
        if is_unlisted(context["choices"], context["players"]):
            return _personal(letter, self.player)  # a big game's: his choices are on his page
        return letter

    def accept(self, state: RulesState) -> list[Letter]:
        """Store the vote (state, log, vote row); return its receipt and the group's copies."""
        self.record(state)
        player = self.player
        action, readers = self.receipt(state)
        batch = self.batch(titled=bool(readers) or not self.answered)
        context = batch.context(player.name)
        context.update(self.said(action))
        receipt = _letter(batch, player, "receipt", context, self.identity, self.reply)
        return [receipt, *self.relay(batch, context, readers)]

    def told(self, state: RulesState) -> dict[str, Any]:
        """What a receipt says of the vote, once it is in `state`: the action, the names, blank
        and the names the parser corrected."""
        return self.said(self.receipt(state)[0])

    def said(self, action: dict[str, Any] | None) -> dict[str, Any]:
        """What a receipt says of the vote for `action` (None: the step's, as he has none)."""
        ballot = self.ballot
        targets = list(ballot.targets)
        return {
            "player": self.player.name,
            "action": action or {"kind": self.view.step},
            "targets": targets,
            "blanco": ballot.blanco or not targets,
            "corrected": [list(c) for c in ballot.corrections],
            "keywords": list(self.keywords),  # every word of the move it recorded
        }

    def record(self, state: RulesState) -> None:
        """Store the vote: the new `state`, the game log's entry and the vote row."""
        table, player, ballot, now = self.table, self.player, self.ballot, self.now
        game = table.game
        table.cast()  # of the seats voted in (a vote changes none): no view of the new state
        table.store(state, vote_only=True)
        targets = list(ballot.targets)
        payload = {
            "player": player.name,
            "targets": targets,
            "blanco": ballot.blanco,
            "keywords": list(self.keywords),
        }
        table.log("vote", payload, now)
        row = {"game_id": game.id, "step_number": game.step_number, "player_id": player.id}
        table.work.write(  # with the transaction's other votes, when the unit of work flushes
            _VOTE_ROW,
            {
                **row,
                "targets": targets,
                "blanco": ballot.blanco,
                "keywords": list(self.keywords),
                "inbox_id": ballot.inbox_id,
                "cast_at": now,
            },
        )

    def relay(
        self, batch: _Batch, receipt: Mapping[str, Any], readers: Sequence[str]
    ) -> list[Letter]:
        """Copies of a receipt to the other `readers` the ruleset relays it to
        (``Ruleset.relay``: the vampiri's hunters, who converge by these copies as they would by
        gestures at the table).  A copy is the voter's receipt mailed to another reader:
        ``player`` is the voter, ``recipient`` the member told."""
        if not readers:  # most votes: nobody else reads it (no index of the players built)
            return []
        voter = receipt["player"]
        table = self.table
        by_name = {p.name: p for p in table.players}
        letters = []
        for name in readers:
            member = by_name.get(name)
            if member is None:
                continue
            context = batch.context(name)
            context.update({key: receipt[key] for key in ("action", "targets", "blanco")})
            context.update({"player": voter, "corrected": []})
            identity = f"{self.identity}/group/{member.id}"
            letters.append(_letter(batch, member, "receipt", context, identity))
        return letters


# --- deadlines ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Closed:
    """A resolved step: its events in transcript form (with audiences) and the letters."""

    events: list[dict[str, Any]]
    letters: list[Letter]


def close_step(work: Work, mailer: Mailer, game: Game, *, now: datetime) -> list[dict[str, Any]]:
    """Resolve the current step (its deadline passed), mail the story, open the next step.

    Returns the step's events in transcript form (with audiences).
    """
    closed = close(table_of(work, game), now)
    _mail(work, mailer, closed.letters, now)
    return closed.events


def close(table: GameTable, now: datetime) -> Closed:
    """Resolve the current step; return its events and the letters (the story, the next
    step's mails, or the end's)."""
    game, rs = table.game, table.rules
    if game.status != GameStatus.RUNNING.value:
        raise GameError("not-running", f"game {game.name} is not running")
    try:
        state = table.state
    except NotStarted as error:
        raise GameError("not-started", str(error)) from None
    before = table.view
    step, phase = before.step, before.phase  # the resolved step's, told with the new counters
    resolution = rs.resolve(state)
    told = rs.tell_step(state, resolution.state, resolution.events, reveal_roles=game.reveal_roles)
    table.log("resolve", {"step": step, "events": told.log}, now)
    current = table.work.session.scalar(
        select(Step).where(Step.game_id == game.id, Step.number == game.step_number)
    )
    if current is not None:
        current.resolved_at = now
    table.store(resolution.state)
    after = table.view
    seen_dead = {seat.name for seat in after.players if not seat.alive}
    # Every dawn and dusk (the phase turns, or the game ends) is told to the whole village,
    # also when nothing happened ("Het bleef stil"): a quiet night is news too.
    turning = after.over or (phase is not None and after.phase not in (None, phase))
    public = table.public(step, phase)  # shared by every mail
    # So does a step after which the game's moment turns in the players' words though the
    # rules' phase goes on (Wakkerdam's Mayor is elected at dawn, "Dag 1", in the night's
    # phase): a quiet "Nacht 1" is told before the election's mail.
    turning = turning or moment_subject(game, {"game": public}) != moment_subject(
        game, {"game": table.public()}
    )
    told_events = story_events(told.story, game.ruleset)  # parsed once for every recipient
    letters = _story_letters(
        table,
        told_events,
        public,
        _Telling(
            seed=f"{game.id}/story/{game.step_number}",  # one telling of the step for everybody
            identity=f"story/{game.id}/{game.step_number}",
            send_empty=turning,
            skip=frozenset(p.name for p in table.players if p.unsubscribed and p.name in seen_dead),
            tallies=public_tallies(told.story),
        ),
    )
    fallen = tuple(
        str(e.fields["player"])
        for e in told_events
        if e.type in DEATH_EVENTS and "public" in e.audience and e.fields.get("player")
    )
    letters.extend(_open_step(table, now, fallen))
    return Closed(told.log, letters)


def send_reminders(work: Work, mailer: Mailer, game: Game, *, now: datetime) -> list[str]:
    """Mail a ``reminder`` to every player asked in the current step who has not voted yet.

    Marks the step as reminded (``reminded_at``). Returns the names of the players reminded.
    """
    reminded = remind(table_of(work, game), now)
    _mail(work, mailer, reminded.letters, now)
    return reminded.names


@dataclass(frozen=True)
class Reminded:
    """The players reminded (names) and their reminders."""

    names: list[str]
    letters: list[Letter]


def remind(table: GameTable, now: datetime) -> Reminded:
    """The ``reminder`` of every player asked in the current step who has not voted yet; marks
    the step as reminded (``reminded_at``)."""
    game, rs = table.game, table.rules
    try:
        state = table.state
    except NotStarted as error:
        raise GameError("not-started", str(error)) from None
    table.work.flush()  # the votes this transaction recorded count
    voted = set(
        table.work.session.scalars(
            select(Vote.player_id).where(
                Vote.game_id == game.id, Vote.step_number == game.step_number
            )
        )
    )
    by_name = {p.name: p for p in table.players}
    seats = {seat.name: seat for seat in table.view.players}
    batch = _batch(table, table.public())  # one public game for every mail of the batch
    letters, names = [], []
    mates = living_mates(rs, state, table.view)
    spelt = story_names(table.players)  # once for every reminder of the step
    for name in rs.asked(state):
        player = by_name[name]
        if player.id in voted:
            continue
        names.append(name)
        context = batch.context(name)
        context.update(
            {
                "player": name,
                "actions": step_actions(rs, state, name, mates.get(name, ()), spelt),
                "missed": seats[name].missed,
            }
        )
        identity = f"reminder/{game.id}/{game.step_number}/{player.id}"
        letter = _letter(batch, player, "reminder", context, identity)
        letters.append(_personal(letter, player))
    game.reminded_at = now
    return Reminded(names, letters)


def due_games(session: Session, now: datetime) -> list[Game]:
    """Running games whose deadline has passed."""
    query = select(Game).where(
        Game.status == GameStatus.RUNNING.value, Game.deadline.is_not(None), Game.deadline <= now
    )
    return list(session.scalars(query.order_by(Game.deadline)))


def pause_game(work: Work, game: Game, *, now: datetime) -> None:
    """Stop the clock of a running game; votes are refused until it resumes."""
    if game.status != GameStatus.RUNNING.value:
        raise GameError("not-running", f"game {game.name} is not running")
    game.status = GameStatus.PAUSED.value
    game.paused_at = now
    work.games_changed()
    table_of(work, game).log("pause", {}, now)


def resume_game(work: Work, game: Game, *, now: datetime) -> None:
    """Restart the clock of a paused game with the time that was left of its step."""
    if game.status != GameStatus.PAUSED.value:
        raise GameError("not-paused", f"game {game.name} is not paused")
    if game.deadline is not None and game.paused_at is not None:
        game.deadline = now + max(game.deadline - game.paused_at, timedelta(0))
    game.status = GameStatus.RUNNING.value
    game.paused_at = None
    work.games_changed()
    table_of(work, game).log("resume", {}, now)


def revoke_link(work: Work, game: Game, player: Player, *, now: datetime) -> int:
    """Revoke `player`'s personal link (narrator/web/tokens.py): raise his ``page_generation``,
    so the links of the old one open nothing and his next mails carry the new one.  Logged in
    the game's log (his name and the new generation, never a token).  Returns the generation."""
    player.page_generation += 1
    table_of(work, game).player_changed(player)
    table_of(work, game).log(
        "revoke-link", {"player": player.name, "generation": player.page_generation}, now
    )
    log.info(
        "revoked the personal link of %s in %s (generation %d)",
        player.name,
        game.name,
        player.page_generation,
    )
    return player.page_generation


def extend_deadline(work: Work, game: Game, by: timedelta, *, now: datetime) -> None:
    """Move the current step's deadline later by `by`."""
    if (
        game.status not in (GameStatus.RUNNING.value, GameStatus.PAUSED.value)
        or game.deadline is None
    ):
        raise GameError("not-running", f"game {game.name} has no open step")
    game.deadline = game.deadline + by
    game.reminded_at = None
    current = work.session.scalar(
        select(Step).where(Step.game_id == game.id, Step.number == game.step_number)
    )
    if current is not None:
        current.deadline = game.deadline
    table_of(work, game).log("extend", {"seconds": int(by.total_seconds())}, now)
