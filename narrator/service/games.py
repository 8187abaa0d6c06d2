"""The game service: signups, the start, votes and deadlines, applied to stored games.

Every public function works inside the caller's session (one transaction): it loads the rules
state of the game, asks the pure rules engine, stores the new state and the game log, and
queues the mails that follow from it through the :class:`~narrator.service.mailer.Mailer`.
The clock (`now`) is always passed in.
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.event import listens_for
from sqlalchemy.orm import Session, object_session
from sqlalchemy.orm.attributes import flag_dirty

from narrator.durations import format_duration
from narrator.models import (
    CASTS_MEMO,
    PENDING_STATES,
    STATES_MEMO,
    Game,
    GameLogEntry,
    GameStatus,
    Player,
    RoleDistribution,
    Step,
    Vote,
    fold_email,
    fold_name,
    game_players,
)
from narrator.service.mailer import Mailer, ReplyTo
from rules import get_ruleset
from rules.core import Audience, AudienceKind, Distribution, Event, Rejected, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.ruleset import Ruleset
from stories import Cast
from stories import Event as StoryEvent

log = logging.getLogger("narrator.games")


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


# --- state ----------------------------------------------------------------------------------


def ruleset_of(game: Game) -> Ruleset:
    """The rules engine of `game`."""
    return get_ruleset(game.ruleset)


def load_state(game: Game) -> Any:
    """The rules state of a started game.

    Loading a big game's state is not free and one transaction may need it many times (every
    mail of an inbox batch for the game), so the state is remembered in the game's session
    for exactly the stored document it came from: states are immutable, and a new document
    (a vote stored, a rollback re-reading the row) is loaded afresh.
    """
    document = game.state
    if document is None:
        raise GameError("not-started", f"game {game.name} has not started")
    session = object_session(game)
    memo = session.info.setdefault(STATES_MEMO, {}) if session is not None else {}
    # memo: game id -> (the stored document, the state loaded from it)
    known = memo.get(game.id)
    # (The ORM may hand back an equal copy of the document after a flush: compare, in C.)
    if known is not None and (known[0] is document or known[0] == document):
        return known[1]
    state = ruleset_of(game).load_state(document)
    memo[game.id] = (document, state)
    return state


def _store_state(game: Game, state: Any) -> None:
    """Make `state` the game's rules state.

    Writing the state (a document as large as the game) is left to the next flush of the
    session (see :func:`_write_pending_states`): a batch of votes for one game writes it once,
    not once per vote.  Until then :func:`load_state` hands out `state` itself.
    """
    game.step = state.step
    game.night = state.night
    game.day = state.day
    session = object_session(game)
    if session is None or game.id is None or game.state is None:
        game.state = ruleset_of(game).dump_state(state)
        if session is not None and game.id is not None:
            session.info.setdefault(STATES_MEMO, {})[game.id] = (game.state, state)
        return
    session.info.setdefault(STATES_MEMO, {})[game.id] = (game.state, state)
    session.info.setdefault(PENDING_STATES, {})[game.id] = (game, state)
    flag_dirty(game)  # so that a flush (and its before_flush) comes


@listens_for(Session, "before_flush")
def _write_pending_states_on_flush(session: Session, _context: Any, _instances: Any) -> None:
    _write_pending_states(session)


@listens_for(Session, "before_commit")
def _write_pending_states(session: Session) -> None:
    """Dump every rules state stored since the last flush into its game's row (once)."""
    pending: dict[int, tuple[Game, Any]] | None = session.info.pop(PENDING_STATES, None)
    if not pending:
        return
    memo = session.info.setdefault(STATES_MEMO, {})
    for game_id, (game, state) in pending.items():
        game.state = ruleset_of(game).dump_state(state)
        memo[game_id] = (game.state, state)


def _log(
    session: Session, game: Game, kind: str, payload: Mapping[str, Any], now: datetime
) -> None:
    session.add(
        GameLogEntry(
            game_id=game.id, seq=_next_seq(game.id), kind=kind, payload=dict(payload), at=now
        )
    )


@functools.lru_cache(maxsize=1024)
def _next_seq(game_id: int) -> Any:
    """The next seq of the game's log, computed by the INSERT itself (no query, no flush of its
    own); the expression is immutable, so it is built once per game and reused."""
    return (
        select(func.coalesce(func.max(GameLogEntry.seq), 0) + 1)
        .where(GameLogEntry.game_id == game_id)
        .scalar_subquery()
    )


def replay(game: Game, entries: Iterable[GameLogEntry]) -> Any:
    """Rebuild the rules state of `game` from its log (start, votes, resolutions)."""
    rs = ruleset_of(game)
    state: Any = None
    for entry in entries:
        payload = entry.payload
        if entry.kind == "start":
            seats = [Seat(s["name"], s["role"], s.get("gender")) for s in payload["seats"]]
            state = rs.new_game(seats, Settings(**payload["settings"]))
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


# --- story context --------------------------------------------------------------------------


def story_game(
    game: Game, state: Any | None, step: str | None = None, phase: str | None = None
) -> dict[str, Any]:
    """The `game` variable of a story render (public facts only).

    `phase` is the phase of `step` (the rules' view's; None: the stories tell it from the
    counters, which is right for the current step).
    """
    return {
        "name": game.name,
        "ruleset": game.ruleset,
        "language": game.language,
        "theme": game.theme,
        "step": step if step is not None else game.step,
        "phase": phase,
        "night": state.night if state is not None else game.night,
        "day": state.day if state is not None else game.day,
        "speed": format_duration(game.speed),
        "strictness": game.strictness,
        "has_mayor": bool(state is not None and state.settings.mayor),
        "mayor": state.mayor if state is not None else None,
        "deadline": game.deadline,
    }


# Roles a player is told he has instead of his own (the rules' start_events say the same).
TOLD_AS = {"dwaas": "ziener"}


def story_players(
    players: Sequence[Player],
    state: Any | None,
    *,
    reveal_to: str | None = None,
    reveal_dead: bool,
    reveal_living: bool = False,
) -> list[dict[str, Any]]:
    """The `players` variable: names, genders, life; a role only where it is no secret.

    A role is shown for the recipient himself (`reveal_to`) and for the dead when the game
    reveals roles; everybody else's role is None, so no template can leak it.
    """
    out = []
    for player in players:
        alive, role = True, None
        if state is not None:
            rules_player = state.find(player.name)
            if rules_player is not None:
                alive = rules_player.alive
                if reveal_living or (not alive and reveal_dead):
                    role = rules_player.role
                elif player.name == reveal_to:  # his own role, as he was told it
                    role = TOLD_AS.get(rules_player.role, rules_player.role)
        out.append({"name": player.name, "gender": player.gender, "role": role, "alive": alive})
    return out


def story_cast(
    game: Game, players: Sequence[Player], state: Any | None, *, reveal_all: bool = False
) -> Cast:
    """The `players` of a batch of mails, shared by every recipient: nobody's own role.

    Roles are shown only for the dead when the game reveals roles, and for everybody when
    `reveal_all` (the game is over).  Built once per batch (O(players)); each recipient gets
    his copy from :func:`recipient_cast`, so a step of n mails costs O(n) here, not O(n²).
    """
    reveal_dead = reveal_all or game.reveal_roles
    session = object_session(game)
    rules_players = getattr(state, "players", None)
    if session is None or rules_players is None:
        return Cast(
            story_players(players, state, reveal_dead=reveal_dead, reveal_living=reveal_all)
        )
    # A batch of receipts for one game asks for the same cast again and again.  Once a game
    # runs its players' names and genders never change, and a vote leaves the rules' players
    # as they were (the very same object): the cast is found again without looking at each
    # player (a vote in a game of 1,000 players would cost O(players) here otherwise).
    memo: dict[Any, tuple[Any, list[Player], Cast]] = session.info.setdefault(CASTS_MEMO, {})
    key = (game.id, reveal_dead, reveal_all)
    known = memo.get(key)
    if known is not None and known[0] is rules_players and known[1] == list(players):
        return known[2]
    cast = Cast(story_players(players, state, reveal_dead=reveal_dead, reveal_living=reveal_all))
    memo[key] = (rules_players, list(players), cast)
    return cast


def recipient_cast(cast: Cast, state: Any | None, recipient: str | None) -> Cast:
    """The shared `cast` as `recipient` sees it: with his own role, as he was told it.

    Only his own entry differs; the shared cast is not changed, so it can serve the next
    recipient.  (The same roles as ``story_players(..., reveal_to=recipient)``.)
    """
    if recipient is None or state is None:
        return cast
    own = cast.find(recipient)
    if own is None or own.name != recipient or own.role is not None:
        return cast  # not a player, or his role is shown to everybody anyway
    rules_player = state.find(recipient)
    if rules_player is None:
        return cast
    told = TOLD_AS.get(rules_player.role, rules_player.role)
    return cast.with_player(replace(own, role=told))


def _context(
    game: Game,
    cast: Cast,
    state: Any | None,
    recipient: str | None,
    *,
    step: str | None = None,
    phase: str | None = None,
) -> dict[str, Any]:
    """The common story context of `recipient`'s mail, from the batch's shared `cast`."""
    return {
        "game": story_game(game, state, step, phase),
        "players": recipient_cast(cast, state, recipient),
        "recipient": recipient,
    }


def event_recipients(state: Any, audience: Audience, rs: Ruleset) -> frozenset[str] | None:
    """The players who may learn an event (None: everybody)."""
    if audience.kind is AudienceKind.PUBLIC:
        return None
    if audience.kind is AudienceKind.PLAYERS:
        return frozenset(audience.names)
    teams = set(audience.names)
    return frozenset(p.name for p in state.players if p.alive and rs.roles[p.role].team in teams)


def audience_dicts(state: Any, events: Sequence[Event], rs: Ruleset) -> list[dict[str, Any]]:
    """Events in transcript form with an `audience` key the story renderer understands."""
    out = []
    for event in events:
        data = event.to_dict()
        names = event_recipients(state, event.audience, rs)
        data["audience"] = "public" if names is None else sorted(names)
        out.append(data)
    return out


def as_told(event: dict[str, Any]) -> dict[str, Any]:
    """The event as its audience is told it: a thief or grave robber who takes the dwaas's role
    learns that he is now ziener (as the dealt dwaas is told); the log keeps the truth."""
    if event.get("type") == "role_change" and event.get("role") in TOLD_AS:
        return {**event, "role": TOLD_AS[event["role"]]}
    return event


def actions_of(rs: Ruleset, state: Any, player: str) -> list[dict[str, Any]]:
    """The `actions` of a step/reminder mail: what `player` may send now (stories' Action)."""
    result = []
    choices = rs.choices(state, player).actions
    # A player asked as his role is asked as the role he was told (the Dwaas as Ziener).
    own = state.find(player).role if choices else None
    told = rs.told_role(state, player) if choices else None
    for choice in choices:
        previous = choice.previous
        kind = told if told and choice.action == own else choice.action
        result.append(
            {
                "kind": kind,
                "choices": list(choice.targets),
                "min": choice.min_names,
                "max": choice.max_names,
                "blanco": choice.blanco,
                "keyword": choice.keyword,
                "previous": ["blanco"] if previous == () else list(previous or ()),
                "extra": dict(choice.extra),
            }
        )
    return result


def mail_player(
    session: Session,
    mailer: Mailer,
    game: Game,
    player: Player,
    mail: str,
    context: Mapping[str, Any],
    *,
    identity: str,
    now: datetime,
    reply: ReplyTo | None = None,
) -> str:
    """Render the non-event mail `mail` for `player` and queue it; return its Message-ID.

    `identity` names the mail once and for all: it seeds the variant drawn and fixes the
    Message-ID, so a mail rebuilt after a crash is the same mail.
    """
    rendered = mailer.render(mailer.key(game, mail), context, identity)
    return mailer.queue(
        session,
        rendered=rendered,
        to=player.email,
        to_name=player.name,
        now=now,
        kind=mail,
        identity=identity,
        game=game,
        reply=reply,
    )


# --- creating and signing up ----------------------------------------------------------------


@dataclass(frozen=True)
class SignupResult:
    """A stored signup: the player row and whether it replaced the sender's earlier one."""

    player: Player
    replaced: bool


def signup(
    session: Session,
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
    players = game_players(session, game)
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
        session.add(mine)
        players.append(mine)
    else:
        mine.name, mine.name_key, mine.gender = name, key, gender
    session.flush()
    _log(session, game, "signup", {"email": email, "name": name, "gender": gender}, now)
    context = _context(game, story_cast(game, players, None), None, mine.name)
    context.update(
        {"player": mine.name, "signups": [p.name for p in players], "replaced": replaced}
    )
    identity = (
        f"signup/{reply.inbox_id}"
        if reply is not None and reply.inbox_id is not None
        else f"signup/{game.id}/{mine.id}/{now.isoformat()}"
    )
    mail_player(
        session,
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
        Distribution(id=r.key, players=r.players, roles=tuple(r.roles), mayor=r.mayor) for r in rows
    ]


def start_game(
    session: Session,
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
    players = game_players(session, game)
    if len(players) < MIN_PLAYERS:
        raise GameError(
            "too-few-players",
            f"game {game.name} has {len(players)} players; at least {MIN_PLAYERS} are needed",
        )
    rs = ruleset_of(game)
    seed = secrets.randbits(48) if seed is None else seed
    extra = distributions_for(session, game)
    if distribution_id is None:
        distribution = rs.pick_distribution(len(players), seed, extra)
    else:
        known = {d.id: d for d in (*rs.distributions, *extra)}
        distribution = known.get(distribution_id)
        if distribution is None:
            raise GameError(
                "unknown-distribution", f"no role distribution called {distribution_id!r}"
            )
        if distribution.players != len(players):
            raise GameError(
                "unknown-distribution",
                f"distribution {distribution_id} is for {distribution.players} players, "
                f"not {len(players)}",
            )
    seats = rs.deal([(p.name, p.gender) for p in players], distribution, seed)
    settings = Settings(
        seed=seed,
        mayor=distribution.mayor,
        strictness=game.strictness,
        close_early=game.close_early,
        reveal_roles=game.reveal_roles,
    )
    state = rs.new_game(seats, settings)
    game.seed = seed
    game.distribution_id = distribution.id
    game.status = GameStatus.RUNNING.value
    game.started_at = now
    _log(
        session,
        game,
        "start",
        {
            "distribution": distribution.id,
            "seats": [{"name": s.name, "role": s.role, "gender": s.gender} for s in seats],
            "settings": {
                "seed": seed,
                "mayor": settings.mayor,
                "strictness": settings.strictness,
                "close_early": settings.close_early,
                "reveal_roles": settings.reveal_roles,
            },
        },
        now,
    )
    _store_state(game, state)
    by_name = {p.name: p for p in players}
    cast = story_cast(game, players, state)
    for info in rs.start_events(state):
        data = info.to_dict()
        player = by_name[data["player"]]
        context = _context(game, cast, state, player.name)
        context.update(
            {
                "player": player.name,
                "role": data["role"],
                "team": data.get("team"),
                "mates": list(data.get("mates", ())),
            }
        )
        mail_player(
            session,
            mailer,
            game,
            player,
            "role",
            context,
            identity=f"role/{game.id}/{player.id}",
            now=now,
        )
    _open_step(session, mailer, game, state, players, now)


def _open_step(
    session: Session,
    mailer: Mailer,
    game: Game,
    state: Any,
    players: Sequence[Player],
    now: datetime,
) -> None:
    """Record the step the state is at, set its deadline, and mail every player who is asked."""
    if state.is_over:
        _finish(session, mailer, game, state, players, now)
        return
    rs = ruleset_of(game)
    game.step_number += 1
    game.deadline = now + timedelta(seconds=game.speed)
    game.reminded_at = None
    session.add(
        Step(
            game_id=game.id,
            number=game.step_number,
            step=state.step,
            night=state.night,
            day=state.day,
            started_at=now,
            deadline=game.deadline,
        )
    )
    by_name = {p.name: p for p in players}
    cast = story_cast(game, players, state)
    for name in rs.asked(state):
        player = by_name[name]
        context = _context(game, cast, state, name)
        context.update({"player": name, "actions": actions_of(rs, state, name)})
        mail_player(
            session,
            mailer,
            game,
            player,
            "step",
            context,
            identity=f"step/{game.id}/{game.step_number}/{player.id}",
            now=now,
        )


def _finish(
    session: Session,
    mailer: Mailer,
    game: Game,
    state: Any,
    players: Sequence[Player],
    now: datetime,
) -> None:
    game.status = GameStatus.ENDED.value
    game.ended_at = now
    game.deadline = None
    game.step = None
    roles = {p.name: p.role for p in state.players}
    alive = [p.name for p in state.players if p.alive]
    cast = story_cast(game, players, state, reveal_all=True)
    for player in players:
        if player.unsubscribed:
            continue
        context = _context(game, cast, state, player.name)
        context.update(
            {
                "winners": list(state.winners),
                "teams": list(state.teams),
                "roles": roles,
                "alive": alive,
                "mayor": state.mayor,
            }
        )
        mail_player(
            session,
            mailer,
            game,
            player,
            "game_over",
            context,
            identity=f"over/{game.id}/{player.id}",
            now=now,
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
    session: Session,
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
        state = load_state(game)
    keywords = sorted(set(keywords))
    vote = RulesVote(
        player=player.name, targets=tuple(targets), blanco=blanco, keywords=frozenset(keywords)
    )
    result = rs.apply(state, vote)
    if players is None:
        players = game_players(session, game)
    identity = (
        f"vote/{inbox_id}"
        if inbox_id is not None
        else f"vote/{game.id}/{player.id}/{now.isoformat()}"
    )
    if isinstance(result, Rejected):
        context = _context(game, story_cast(game, players, state), state, player.name)
        actions = actions_of(rs, state, player.name)
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
            session,
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
    _store_state(game, state)
    payload = {
        "player": player.name,
        "targets": list(targets),
        "blanco": blanco,
        "keywords": keywords,
    }
    _log(session, game, "vote", payload, now)
    session.add(
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
    actions = actions_of(rs, state, player.name)
    context = _context(game, story_cast(game, players, state), state, player.name)
    context.update(
        {
            "player": player.name,
            "action": _matching_action(actions, keywords) or {"kind": state.step},
            "targets": list(targets),
            "blanco": blanco or not targets,
            "corrected": [list(c) for c in corrections],
        }
    )
    mail_player(
        session,
        mailer,
        game,
        player,
        "receipt",
        context,
        identity=identity,
        now=now,
        reply=reply,
    )
    if game.close_early and _all_voted(rs, state):
        close_step(session, mailer, game, now=now)
        return VoteOutcome(True, closed_early=True)
    return VoteOutcome(True)


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


def _all_voted(rs: Ruleset, state: Any) -> bool:
    all_voted = getattr(rs, "all_voted", None)
    return bool(all_voted(state)) if all_voted is not None else False


# --- deadlines ------------------------------------------------------------------------------


def close_step(
    session: Session, mailer: Mailer, game: Game, *, now: datetime
) -> list[dict[str, Any]]:
    """Resolve the current step (its deadline passed), mail the story, open the next step.

    Returns the step's events in transcript form (with audiences).
    """
    if game.status != GameStatus.RUNNING.value:
        raise GameError("not-running", f"game {game.name} is not running")
    rs = ruleset_of(game)
    state = load_state(game)
    step = state.step
    phase = rs.view(state).phase  # the resolved step's, told with the new state's counters
    resolution = rs.resolve(state)
    new_state = resolution.state
    events = audience_dicts(new_state, resolution.events, rs)
    _log(session, game, "resolve", {"step": step, "events": events}, now)
    current = session.scalar(
        select(Step).where(Step.game_id == game.id, Step.number == game.step_number)
    )
    if current is not None:
        current.resolved_at = now
    _store_state(game, new_state)
    players = game_players(session, game)
    seen_dead = {p.name for p in new_state.players if not p.alive}
    cast = story_cast(game, players, new_state)
    # Parsed once for every recipient (render_story takes them as they are).
    story_events = [StoryEvent.from_dict(as_told(e)) for e in events]
    for player in players:
        if player.unsubscribed and player.name in seen_dead:
            continue
        groups = frozenset(
            t
            for t in {rs.roles[new_state.find(player.name).role].team}
            if new_state.find(player.name).alive
        )
        context = _context(game, cast, new_state, player.name, step=step, phase=phase)
        rendered = mailer.renderer.render_story(
            mailer.key(game, "night_result"),
            context,
            story_events,
            f"{game.id}/story/{game.step_number}/{player.name}",
            groups=groups,
        )
        if rendered is None:
            continue
        mailer.queue(
            session,
            rendered=rendered,
            to=player.email,
            to_name=player.name,
            now=now,
            kind="story",
            identity=f"story/{game.id}/{game.step_number}/{player.id}",
            game=game,
        )
    _open_step(session, mailer, game, new_state, players, now)
    return events


def send_reminders(session: Session, mailer: Mailer, game: Game, *, now: datetime) -> list[str]:
    """Mail a ``reminder`` to every player asked in the current step who has not voted yet.

    Marks the step as reminded (``reminded_at``). Returns the names of the players reminded.
    """
    rs = ruleset_of(game)
    state = load_state(game)
    players = game_players(session, game)
    voted = set(
        session.scalars(
            select(Vote.player_id).where(
                Vote.game_id == game.id, Vote.step_number == game.step_number
            )
        )
    )
    by_name = {p.name: p for p in players}
    cast = story_cast(game, players, state)
    reminded = []
    for name in rs.asked(state):
        player = by_name[name]
        if player.id in voted:
            continue
        context = _context(game, cast, state, name)
        context.update(
            {
                "player": name,
                "actions": actions_of(rs, state, name),
                "missed": state.find(name).missed,
            }
        )
        mail_player(
            session,
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


def pause_game(session: Session, game: Game, *, now: datetime) -> None:
    """Stop the clock of a running game; votes are refused until it resumes."""
    if game.status != GameStatus.RUNNING.value:
        raise GameError("not-running", f"game {game.name} is not running")
    game.status = GameStatus.PAUSED.value
    game.paused_at = now
    _log(session, game, "pause", {}, now)


def resume_game(session: Session, game: Game, *, now: datetime) -> None:
    """Restart the clock of a paused game with the time that was left of its step."""
    if game.status != GameStatus.PAUSED.value:
        raise GameError("not-paused", f"game {game.name} is not paused")
    if game.deadline is not None and game.paused_at is not None:
        game.deadline = now + max(game.deadline - game.paused_at, timedelta(0))
    game.status = GameStatus.RUNNING.value
    game.paused_at = None
    _log(session, game, "resume", {}, now)


def extend_deadline(session: Session, game: Game, by: timedelta, *, now: datetime) -> None:
    """Move the current step's deadline later by `by`."""
    if (
        game.status not in (GameStatus.RUNNING.value, GameStatus.PAUSED.value)
        or game.deadline is None
    ):
        raise GameError("not-running", f"game {game.name} has no open step")
    game.deadline = game.deadline + by
    game.reminded_at = None
    current = session.scalar(
        select(Step).where(Step.game_id == game.id, Step.number == game.step_number)
    )
    if current is not None:
        current.deadline = game.deadline
    _log(session, game, "extend", {"seconds": int(by.total_seconds())}, now)
