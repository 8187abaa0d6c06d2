"""The game lifecycle: signups, the start, votes, deadlines, pauses, applied to stored games.

Every public function works inside the caller's unit of work (:class:`~narrator.service.work.
Work`, one transaction): it reads the game's rules state from it, asks the pure rules engine,
stores the new state and the game log, and queues the mails that follow from it through the
:class:`~narrator.service.mailer.Mailer`.  What the mails say comes from
:mod:`narrator.service.story_context`.  The clock (`now`) is always passed in.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from narrator.models import (
    Game,
    GameLogEntry,
    GameStatus,
    Player,
    RoleDistribution,
    Step,
    Vote,
    fold_email,
    fold_name,
)
from narrator.service.mailer import Mailer, ReplyTo
from narrator.service.story_context import (
    actions_of,
    audience_dicts,
    epilogue_chapters,
    mail_context,
    mail_player,
    story_cast,
    story_game,
    with_story_facts,
)
from narrator.service.threads import moment_subject
from narrator.service.work import NotStarted, Work, ruleset_of, state_of
from rules.core import Distribution, Rejected, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.events import AudienceKind
from stories import Event as StoryEvent
from stories import StoryNotFound

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


def _log(work: Work, game: Game, kind: str, payload: Mapping[str, Any], now: datetime) -> None:
    work.session.add(
        GameLogEntry(
            game_id=game.id, seq=work.next_log_seq(game), kind=kind, payload=dict(payload), at=now
        )
    )


def load_state(work: Work, game: Game) -> Any:
    """The rules state of a started game in this unit of work; GameError before the start."""
    try:
        return work.state(game)
    except NotStarted as error:
        raise GameError("not-started", str(error)) from None


def replay(game: Game, entries: Iterable[GameLogEntry]) -> Any:
    """Rebuild the rules state of `game` from its log (start, votes, resolutions)."""
    rs = ruleset_of(game)
    state: Any = None
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
    return state


def _rules_vote(payload: Mapping[str, Any]) -> RulesVote:
    return RulesVote(
        player=payload["player"],
        targets=tuple(payload["targets"]),
        blanco=bool(payload["blanco"]),
        keywords=frozenset(payload["keywords"]),
    )


# --- creating and signing up ----------------------------------------------------------------


@dataclass(frozen=True)
class SignupResult:
    """A stored signup: the player row and whether it replaced the sender's earlier one."""

    player: Player
    replaced: bool


def signup(
    work: Work,
    mailer: Mailer,
    game: Game,
    *,
    email: str,
    name: str,
    gender: str,
    now: datetime,
    reply: ReplyTo | None = None,
) -> SignupResult:
    """Sign `email` up for `game` as `name`; a second signup from one address replaces the first.

    Raises GameError ``not-in-signup`` after the start and ``name-taken`` when another address
    already uses the name (case and accents ignored).
    """
    if game.status != GameStatus.SIGNUP.value:
        raise GameError("game-started", f"game {game.name} has already started")
    email = fold_email(email)
    players = work.players(game)
    key = fold_name(name)
    for other in players:
        if other.name_key == key and other.email != email:
            raise GameError("name-taken", f"the name {other.name} is already taken in {game.name}")
    mine = next((p for p in players if p.email == email), None)
    replaced = mine is not None
    if mine is None:
        seat = max((p.seat for p in players), default=0) + 1
        mine = Player(
            game_id=game.id, seat=seat, email=email, name=name, name_key=key, gender=gender
        )
        work.session.add(mine)
        players.append(mine)
    else:
        mine.name, mine.name_key, mine.gender = name, key, gender
    work.session.flush()
    work.player_added(game, mine)
    _log(work, game, "signup", {"email": email, "name": name, "gender": gender}, now)
    context = mail_context(game, story_cast(work, game, players, None), None, mine.name)
    context.update(
        {"player": mine.name, "signups": [p.name for p in players], "replaced": replaced}
    )
    identity = (
        f"signup/{reply.inbox_id}"
        if reply is not None and reply.inbox_id is not None
        else f"signup/{game.id}/{mine.id}/{now.isoformat()}"
    )
    mail_player(
        work.session,
        mailer,
        game,
        mine,
        "signup_confirmed",
        context,
        identity=identity,
        now=now,
        reply=reply,
    )
    return SignupResult(mine, replaced)


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

    Raises GameError ``not-in-signup``, ``too-few-players`` or ``unknown-distribution``.
    """
    if game.status != GameStatus.SIGNUP.value:
        raise GameError("game-started", f"game {game.name} has already started")
    players = work.players(game)
    if len(players) < MIN_PLAYERS:
        raise GameError(
            "too-few-players",
            f"game {game.name} has {len(players)} players; at least {MIN_PLAYERS} are needed",
        )
    rs = ruleset_of(game)
    seed = secrets.randbits(48) if seed is None else seed
    extra = distributions_for(work.session, game)
    if distribution_id is None:
        distribution = rs.pick_distribution(len(players), seed, extra)
    else:
        known = {d.id: d for d in (*rs.distributions, *extra)}
        if distribution_id not in known:
            raise GameError(
                "unknown-distribution", f"no role distribution called {distribution_id!r}"
            )
        distribution = known[distribution_id]
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
    game.seed = seed
    game.distribution_id = distribution.id
    game.status = GameStatus.RUNNING.value
    game.started_at = now
    work.games_changed()
    _log(
        work,
        game,
        "start",
        {
            "distribution": distribution.id,
            "seats": [{"name": s.name, "role": s.role, "gender": s.gender} for s in seats],
            "settings": settings.to_dict(),
        },
        now,
    )
    work.store(game, state)
    by_name = {p.name: p for p in players}
    cast = story_cast(work, game, players, state)
    public = story_game(game, state)  # shared by every mail of the batch
    start_events = rs.start_events(state)
    # Start events that are events of the ruleset's (Lupus: the class mates, the Divinatore's
    # statements, the first Sindaco) are told in the start's story, each to its audience; the
    # public others (the Vampiri's composition) in every role mail, as `announced`.
    storied = [e for e in start_events if e.type != "role" and e.type in rs.event_types]
    announced = [
        e.to_dict()
        for e in start_events
        if e.type != "role"
        and e.type not in rs.event_types
        and e.audience.kind is AudienceKind.PUBLIC
    ]
    for info in start_events:
        data = info.to_dict()
        if info.type != "role" or data.get("player") not in by_name:
            continue
        player = by_name[data["player"]]
        context = mail_context(game, cast, state, player.name, public=public)
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
        mail_player(
            work.session,
            mailer,
            game,
            player,
            "role",
            context,
            identity=f"role/{game.id}/{player.id}",
            now=now,
        )
    _tell_start(work, mailer, game, state, players, storied, now)
    _open_step(work, mailer, game, state, players, now)


def _tell_start(
    work: Work,
    mailer: Mailer,
    game: Game,
    state: Any,
    players: Sequence[Player],
    events: Sequence[Any],
    now: datetime,
) -> None:
    """Mail the start's other events (Lupus: the class mates' roles, the Divinatore's
    statements, the first Sindaco) as the story of the start, each to its audience."""
    if not events:
        return
    rs = ruleset_of(game)
    told = audience_dicts(state, events, rs, told=True)
    story_events = [StoryEvent.from_dict(e, game.ruleset) for e in told]
    cast = story_cast(work, game, players, state)
    public = story_game(game, state, phase="start")  # the moment: the beginning
    _tell_story(
        work,
        mailer,
        game,
        state,
        players,
        story_events,
        cast=cast,
        public=public,
        seed=f"{game.id}/story/start",  # one telling for everybody
        identity=f"story/{game.id}/start",
        now=now,
    )


def _tell_story(
    work: Work,
    mailer: Mailer,
    game: Game,
    state: Any,
    players: Sequence[Player],
    story_events: Sequence[StoryEvent],
    *,
    cast: Any,
    public: Mapping[str, Any],
    seed: str,
    identity: str,
    now: datetime,
    send_empty: bool = False,
    skip: frozenset[str] = frozenset(),
) -> None:
    """Mail a step's story in two parts: the public story, one text for the whole village
    (rendered once, for no recipient: no line says "you" to anyone), and to each player
    who may know more a private mail with only that (his own events, his team's).

    Players named in `skip` get neither (the unsubscribed dead)."""
    rs = ruleset_of(game)
    seats = rs.view(state).by_name()
    key = mailer.key(game, "night_result")
    village = mailer.renderer.render_story(
        key,
        mail_context(game, cast, state, None, public=public),
        story_events,
        seed,
        send_empty=send_empty,
        part="public",
    )
    has_private = any("public" not in e.audience for e in story_events)
    for player in players:
        if player.name in skip:
            continue
        context = mail_context(game, cast, state, player.name, public=public)
        subject = moment_subject(game, context)
        own = None
        if has_private:
            seat = seats.get(player.name)
            groups = frozenset({seat.team} if seat is not None and seat.alive else ())
            own = mailer.renderer.render_story(
                key, context, story_events, seed, groups=groups, part="private"
            )
        for rendered, suffix in ((village, ""), (own, "/private")):
            if rendered is not None:
                mailer.queue(
                    work.session,
                    rendered=rendered,
                    to=player.email,
                    to_name=player.name,
                    now=now,
                    kind="story",
                    identity=f"{identity}/{player.id}{suffix}",
                    game=game,
                    subject=subject,
                )


def _open_step(
    work: Work,
    mailer: Mailer,
    game: Game,
    state: Any,
    players: Sequence[Player],
    now: datetime,
) -> None:
    """Record the step the state is at, set its deadline, and mail every player who is asked."""
    rs = ruleset_of(game)
    view = rs.view(state)
    if view.over:
        _finish(work, mailer, game, state, players, now)
        return
    game.step_number += 1
    game.deadline = now + timedelta(seconds=game.speed)
    game.reminded_at = None
    work.session.add(
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
    by_name = {p.name: p for p in players}
    seats = view.by_name()
    cast = story_cast(work, game, players, state)
    public = story_game(game, state)  # shared by every mail of the batch
    for name in rs.asked(state):
        player = by_name[name]
        context = mail_context(game, cast, state, name, public=public)
        actions = actions_of(rs, state, name, seats[name].role)
        context.update({"player": name, "actions": actions})
        mail_player(
            work.session,
            mailer,
            game,
            player,
            "step",
            context,
            identity=f"step/{game.id}/{game.step_number}/{player.id}",
            now=now,
        )


def _finish(
    work: Work,
    mailer: Mailer,
    game: Game,
    state: Any,
    players: Sequence[Player],
    now: datetime,
) -> None:
    game.status = GameStatus.ENDED.value
    game.ended_at = now
    work.games_changed()
    game.deadline = None
    game.step = None
    view = ruleset_of(game).view(state)
    roles = {seat.name: seat.role for seat in view.players}
    alive = list(view.alive)
    cast = story_cast(work, game, players, state, reveal_all=True)
    public = story_game(game, state)  # shared by every mail of the batch
    for player in players:
        if player.unsubscribed:
            continue
        context = mail_context(game, cast, state, player.name, public=public)
        context.update(
            {
                "winners": list(view.winners),
                "teams": list(view.teams),
                "roles": roles,
                "alive": alive,
                "mayor": view.facts.get("mayor"),
            }
        )
        mail_player(
            work.session,
            mailer,
            game,
            player,
            "game_over",
            context,
            identity=f"over/{game.id}/{player.id}",
            now=now,
        )
    _tell_epilogue(work, mailer, game, state, players, cast, public, roles, view, now)


def _tell_epilogue(
    work: Work,
    mailer: Mailer,
    game: Game,
    state: Any,
    players: Sequence[Player],
    cast: Any,
    public: Mapping[str, Any],
    roles: Mapping[str, str],
    view: Any,
    now: datetime,
) -> None:
    """Mail everybody the whole game, night by night, from the game log, with every role:
    the game is over, so it is told also when the game revealed no roles while it ran.
    One text for all; none where the game's language has no ``epilogue`` template."""
    key = mailer.key(game, "epilogue")
    try:
        mailer.renderer.variants(key)
    except StoryNotFound:
        return
    entries = work.session.scalars(
        select(GameLogEntry).where(GameLogEntry.game_id == game.id).order_by(GameLogEntry.seq)
    ).all()
    context = mail_context(game, cast, state, None, public=public)
    context.update(epilogue_chapters(game, entries))
    context.update({"roles": dict(roles), "winners": list(view.winners), "teams": list(view.teams)})
    rendered = mailer.render(key, context, f"epilogue/{game.id}")
    subject = moment_subject(game, context)
    for player in players:
        if player.unsubscribed:
            continue
        mailer.queue(
            work.session,
            rendered=rendered,
            to=player.email,
            to_name=player.name,
            now=now,
            kind="epilogue",
            identity=f"epilogue/{game.id}/{player.id}",
            game=game,
            subject=subject,  # the game's day, as every mail of the game (threads)
        )


# --- votes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class VoteOutcome:
    """What became of a vote: accepted (and whether the step then closed early) or rejected."""

    accepted: bool
    code: str | None = None
    detail: str = ""
    closed_early: bool = False


def cast_vote(
    work: Work,
    mailer: Mailer,
    game: Game,
    player: Player,
    *,
    targets: Sequence[str],
    blanco: bool,
    keywords: Iterable[str],
    corrections: Sequence[tuple[str, str]] = (),
    now: datetime,
    reply: ReplyTo | None = None,
    inbox_id: int | None = None,
    players: Sequence[Player] | None = None,
    state: Any = None,
) -> VoteOutcome:
    """Apply a player's vote; queue a receipt, or an error reply stating why and what is valid.

    `players` (the game's players in seat order) and `state` (its loaded rules state) may be
    passed by a caller that has them already, so they are not loaded twice.
    """
    if game.status != GameStatus.RUNNING.value:
        paused = game.status == GameStatus.PAUSED.value
        if paused:
            raise GameError("game-paused", f"game {game.name} is paused")
        raise GameError("not-running", f"game {game.name} is not running")
    rs = ruleset_of(game)
    if state is None:
        state = load_state(work, game)
    keywords = sorted(set(keywords))
    vote = RulesVote(
        player=player.name, targets=tuple(targets), blanco=blanco, keywords=frozenset(keywords)
    )
    result = rs.apply(state, vote)
    if players is None:
        players = work.players(game)
    # A vote changes no seat, step or public fact: one view serves the reply, whatever it is.
    view = rs.view(state)
    seat = view.find(player.name)
    own_role = seat.role if seat is not None else None
    public = story_game(game, state, view=view)
    identity = (
        f"vote/{inbox_id}"
        if inbox_id is not None
        else f"vote/{game.id}/{player.id}/{now.isoformat()}"
    )
    if isinstance(result, Rejected):
        cast = story_cast(work, game, players, state)
        context = mail_context(game, cast, state, player.name, public=public)
        actions = actions_of(rs, state, player.name, own_role)
        action = _matching_action(actions, keywords)
        context.update(
            {
                "player": player.name,
                "code": result.code,
                "message": "",  # the template words each code in the game's language
                "action": action,
                "choices": action["choices"] if action else [],
            }
        )
        mail_player(
            work.session,
            mailer,
            game,
            player,
            "error",
            context,
            identity=identity,
            now=now,
            reply=reply,
        )
        return VoteOutcome(False, result.code, result.detail)
    state = result.state
    work.store(game, state, vote_only=True)
    payload = {
        "player": player.name,
        "targets": list(targets),
        "blanco": blanco,
        "keywords": keywords,
    }
    _log(work, game, "vote", payload, now)
    work.session.add(
        Vote(
            game_id=game.id,
            step_number=game.step_number,
            player_id=player.id,
            targets=list(targets),
            blanco=blanco,
            keywords=keywords,
            inbox_id=inbox_id,
            cast_at=now,
        )
    )
    actions = actions_of(rs, state, player.name, own_role)
    cast = story_cast(work, game, players, state)
    context = mail_context(game, cast, state, player.name, public=public)
    context.update(
        {
            "player": player.name,
            "action": _matching_action(actions, keywords) or {"kind": view.step},
            "targets": list(targets),
            "blanco": blanco or not targets,
            "corrected": [list(c) for c in corrections],
        }
    )
    mail_player(
        work.session,
        mailer,
        game,
        player,
        "receipt",
        context,
        identity=identity,
        now=now,
        reply=reply,
    )
    _relay_receipt(work, mailer, game, players, cast, state, context, identity, now)
    if game.close_early and rs.all_voted(state):
        close_step(work, mailer, game, now=now)
        return VoteOutcome(True, closed_early=True)
    return VoteOutcome(True)


def _relay_receipt(
    work: Work,
    mailer: Mailer,
    game: Game,
    players: Sequence[Player],
    cast: Any,
    state: Any,
    receipt: Mapping[str, Any],
    identity: str,
    now: datetime,
) -> None:
    """Copy a receipt to the other readers the ruleset relays it to (``Ruleset.relay``: the
    vampiri's hunters, who converge by these copies as they would by gestures at the table).
    The copy is the voter's receipt mailed to another reader: ``player`` is the voter,
    ``recipient`` the member told."""
    action = receipt.get("action") or {}
    voter = receipt["player"]
    readers = ruleset_of(game).relay(state, voter, action.get("extra") or {})
    by_name = {p.name: p for p in players}
    public = receipt["game"]
    for name in readers:
        member = by_name.get(name)
        if member is None:
            continue
        context = mail_context(game, cast, state, name, public=public)
        context.update({key: receipt[key] for key in ("action", "targets", "blanco")})
        context.update({"player": voter, "corrected": []})
        mail_player(
            work.session,
            mailer,
            game,
            member,
            "receipt",
            context,
            identity=f"{identity}/group/{member.id}",
            now=now,
        )


def _matching_action(
    actions: Sequence[Mapping[str, Any]], keywords: Sequence[str]
) -> dict[str, Any] | None:
    for action in actions:
        if action["keyword"] is not None and action["keyword"] in keywords:
            return dict(action)
    for action in actions:
        if action["keyword"] is None:
            return dict(action)
    return dict(actions[0]) if actions else None


# --- deadlines ------------------------------------------------------------------------------


def close_step(work: Work, mailer: Mailer, game: Game, *, now: datetime) -> list[dict[str, Any]]:
    """Resolve the current step (its deadline passed), mail the story, open the next step.

    Returns the step's events in transcript form (with audiences).
    """
    if game.status != GameStatus.RUNNING.value:
        raise GameError("not-running", f"game {game.name} is not running")
    rs = ruleset_of(game)
    state = load_state(work, game)
    before = rs.view(state)
    step, phase = before.step, before.phase  # the resolved step's, told with the new counters
    resolution = rs.resolve(state)
    new_state = resolution.state
    events = audience_dicts(new_state, resolution.events, rs)
    told_events = with_story_facts(
        audience_dicts(new_state, resolution.events, rs, told=True),
        rs,
        state,
        new_state,
        reveal_roles=game.reveal_roles,
    )
    _log(work, game, "resolve", {"step": step, "events": events}, now)
    current = work.session.scalar(
        select(Step).where(Step.game_id == game.id, Step.number == game.step_number)
    )
    if current is not None:
        current.resolved_at = now
    work.store(game, new_state)
    players = work.players(game)
    after = rs.view(new_state)
    seats = after.by_name()
    seen_dead = {name for name, seat in seats.items() if not seat.alive}
    # Every dawn and dusk (the phase turns, or the game ends) is told to the whole village,
    # also when nothing happened ("Het bleef stil"): a quiet night is news too.
    turning = after.over or (phase is not None and after.phase not in (None, phase))
    cast = story_cast(work, game, players, new_state)
    public = story_game(game, new_state, step, phase)  # shared by every mail
    # Parsed once for every recipient (render_story takes them as they are).
    story_events = [StoryEvent.from_dict(e, game.ruleset) for e in told_events]
    _tell_story(
        work,
        mailer,
        game,
        new_state,
        players,
        story_events,
        cast=cast,
        public=public,
        seed=f"{game.id}/story/{game.step_number}",  # one telling of the step for everybody
        identity=f"story/{game.id}/{game.step_number}",
        now=now,
        send_empty=turning,
        skip=frozenset(p.name for p in players if p.unsubscribed and p.name in seen_dead),
    )
    _open_step(work, mailer, game, new_state, players, now)
    return events


def send_reminders(work: Work, mailer: Mailer, game: Game, *, now: datetime) -> list[str]:
    """Mail a ``reminder`` to every player asked in the current step who has not voted yet.

    Marks the step as reminded (``reminded_at``). Returns the names of the players reminded.
    """
    rs = ruleset_of(game)
    state = load_state(work, game)
    players = work.players(game)
    voted = set(
        work.session.scalars(
            select(Vote.player_id).where(
                Vote.game_id == game.id, Vote.step_number == game.step_number
            )
        )
    )
    by_name = {p.name: p for p in players}
    seats = rs.view(state).by_name()
    cast = story_cast(work, game, players, state)
    public = story_game(game, state)  # shared by every mail of the batch
    reminded = []
    for name in rs.asked(state):
        player = by_name[name]
        if player.id in voted:
            continue
        context = mail_context(game, cast, state, name, public=public)
        context.update(
            {
                "player": name,
                "actions": actions_of(rs, state, name, seats[name].role),
                "missed": seats[name].missed,
            }
        )
        mail_player(
            work.session,
            mailer,
            game,
            player,
            "reminder",
            context,
            identity=f"reminder/{game.id}/{game.step_number}/{player.id}",
            now=now,
        )
        reminded.append(name)
    game.reminded_at = now
    return reminded


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
    _log(work, game, "pause", {}, now)


def resume_game(work: Work, game: Game, *, now: datetime) -> None:
    """Restart the clock of a paused game with the time that was left of its step."""
    if game.status != GameStatus.PAUSED.value:
        raise GameError("not-paused", f"game {game.name} is not paused")
    if game.deadline is not None and game.paused_at is not None:
        game.deadline = now + max(game.deadline - game.paused_at, timedelta(0))
    game.status = GameStatus.RUNNING.value
    game.paused_at = None
    work.games_changed()
    _log(work, game, "resume", {}, now)


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
    _log(work, game, "extend", {"seconds": int(by.total_seconds())}, now)
