"""The story context of a game's mails: the public game, the cast, the actions, the events.

Everything a template may read of a game comes from here, through the ruleset's typed view
(:meth:`rules.core.ruleset.Ruleset.view`) and its methods: no caller reads a ruleset's state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from narrator.durations import format_duration
from narrator.models import Game, Player
from narrator.service.mailer import Mailer, ReplyTo
from narrator.service.threads import moment_subject
from narrator.service.work import Work, ruleset_of
from narrator.zones import zone_or_utc
from rules.core import Event, Rejected, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.ruleset import Ruleset
from rules.core.view import GameView
from stories import Cast
from stories import Event as StoryEvent
from stories import Game as StoryGame
from stories.render import moment_of
from stories.words import load_words

#: The fields a story's `game` has: a ruleset's other public facts (the vampiri's candidates,
#: secret_vote, lone_hunter) are the rules' business, not the stories' `game`.
_STORY_GAME_FIELDS = frozenset(f.name for f in fields(StoryGame))


def story_game(
    game: Game,
    state: Any | None,
    step: str | None = None,
    phase: str | None = None,
    *,
    view: GameView | None = None,
) -> dict[str, Any]:
    """The `game` variable of a story render (public facts only: those of the view's ``facts``
    that stories' `Game` has).

    `phase` is the phase of `step` (default: the view's, right for the current step; a story
    of a resolved step passes the phase that step had).  `view` is the state's, when the
    caller has it already.
    """
    if view is None and state is not None:
        view = ruleset_of(game).view(state)
    zone = zone_or_utc(game.timezone)
    return {
        "name": game.name,
        "ruleset": game.ruleset,
        "language": game.language,
        "theme": game.theme,
        "step": step if step is not None else game.step,
        "phase": phase if phase is not None else (view.phase if view is not None else None),
        "night": view.night if view is not None else game.night,
        "day": view.day if view is not None else game.day,
        "speed": format_duration(game.speed),
        "strictness": game.strictness,
        "has_mayor": False,
        "mayor": None,
        **(
            {k: v for k, v in view.facts.items() if k in _STORY_GAME_FIELDS}
            if view is not None
            else {}
        ),
        "deadline": game.deadline.astimezone(zone) if game.deadline is not None else None,
        "timezone": zone.key,
    }


def story_players(
    rs: Ruleset[Any],
    players: Sequence[Player],
    state: Any | None,
    *,
    reveal_to: str | None = None,
    reveal_dead: bool,
    reveal_living: bool = False,
) -> list[dict[str, Any]]:
    """The `players` variable: names, genders, life; a role only where it is no secret.

    A role is shown for the recipient himself (`reveal_to`), for the dead when the game
    reveals roles (as their death showed it: the ruleset's ``shown_role``) and for everybody
    with `reveal_living` (the game is over); everybody else's role is None, so no template can
    leak it.
    """
    out = []
    seats = rs.view(state).by_name() if state is not None else {}
    for player in players:
        alive, role = True, None
        seat = seats.get(player.name)
        if seat is not None:
            alive = seat.alive
            if reveal_living:
                role = seat.role
            elif not alive and reveal_dead:
                role = rs.shown_role(state, player.name)
            elif player.name == reveal_to:  # his own role, as he was told it
                role = rs.told_role(state, player.name)
        out.append({"name": player.name, "gender": player.gender, "role": role, "alive": alive})
    return out


def story_cast(
    work: Work | None,
    game: Game,
    players: Sequence[Player],
    state: Any | None,
    *,
    reveal_all: bool = False,
) -> Cast:
    """The `players` of a batch of mails, shared by every recipient: nobody's own role.

    Roles are shown only for the dead when the game reveals roles, and for everybody when
    `reveal_all` (the game is over).  Built once per batch (O(players)); each recipient gets
    his copy from :func:`recipient_cast`, so a step of n mails costs O(n) here, not O(n²).
    The unit of work keeps it for the receipts of the batch (a vote changes no seat).
    """
    reveal_dead = reveal_all or game.reveal_roles
    known = work.cast(game, reveal_dead, reveal_all) if work is not None else None
    if known is not None:
        cast: Cast = known
        return cast
    cast = Cast(
        story_players(
            ruleset_of(game), players, state, reveal_dead=reveal_dead, reveal_living=reveal_all
        )
    )
    if work is not None and state is not None:
        work.keep_cast(game, reveal_dead, reveal_all, cast)
    return cast


def recipient_cast(rs: Ruleset[Any], cast: Cast, state: Any | None, recipient: str | None) -> Cast:
    """The shared `cast` as `recipient` sees it: with his own role, as he was told it.

    Only his own entry differs; the shared cast is not changed, so it can serve the next
    recipient.  (The same roles as ``story_players(..., reveal_to=recipient)``.)
    """
    if recipient is None or state is None:
        return cast
    own = cast.find(recipient)
    if own is None or own.name != recipient or own.role is not None:
        return cast  # not a player, or his role is shown to everybody anyway
    told = rs.told_role(state, recipient)
    if told is None:
        return cast
    return cast.with_player(replace(own, role=told))


def mail_context(
    game: Game,
    cast: Cast,
    state: Any | None,
    recipient: str | None,
    *,
    step: str | None = None,
    phase: str | None = None,
    public: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The common story context of `recipient`'s mail, from the batch's shared `cast`.

    `public` is the batch's :func:`story_game`, built once for all its mails (the view it reads
    is O(players)); without it, it is built here.
    """
    return {
        "game": public if public is not None else story_game(game, state, step, phase),
        "players": recipient_cast(ruleset_of(game), cast, state, recipient),
        "recipient": recipient,
    }


def audience_dicts(
    state: Any, events: Sequence[Event], rs: Ruleset[Any], *, told: bool = False
) -> list[dict[str, Any]]:
    """Events in transcript form with an `audience` key the story renderer understands, as the
    ruleset addresses them (:meth:`rules.core.ruleset.Ruleset.addressed`).

    With `told`, each event is as its audience is told it (the ruleset's ``as_told``: a role
    change to a hidden role); without, the truth, as the game log keeps it.
    """
    return rs.addressed(state, events, told=told)


def with_story_facts(
    events: list[dict[str, Any]],
    rs: Ruleset[Any],
    before: Any,
    after_state: Any,
    *,
    reveal_roles: bool,
) -> list[dict[str, Any]]:
    """The step's events (told form) as the ruleset tells them to their readers: with what the
    stories need beside the rules' facts (:meth:`rules.core.ruleset.Ruleset.tell`: a dead
    player's shown role, the previous role, mates, votes and ballots).  `before` is the state
    the step was resolved from, `after_state` the new one.  The game log keeps the rules'
    events as they are."""
    return rs.tell(before, after_state, events, reveal_roles=reveal_roles)


def actions_of(
    rs: Ruleset[Any], state: Any, player: str, own_role: str | None = None
) -> list[dict[str, Any]]:
    """The `actions` of a step/reminder mail: what `player` may send now (stories' Action).

    A player asked as his role is asked as the role he was told (the Dwaas as Ziener):
    `own_role` is his true role (from the view the caller holds; None: look it up).
    """
    result = []
    choices = rs.choices(state, player).actions
    if choices and own_role is None:
        seat = rs.view(state).find(player)
        own_role = seat.role if seat is not None else None
    told = rs.told_role(state, player) if choices else None
    for choice in choices:
        previous = choice.previous
        kind = told if told and choice.action == own_role else choice.action
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
    Message-ID, so a mail rebuilt after a crash is the same mail.  It is titled with the game
    day of `context` (``WW5 — Nacht 3``), or ``Re: <his subject>`` when it answers `reply`.
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
        subject=moment_subject(game, context),
    )


def epilogue_chapters(game: Game, entries: Sequence[Any]) -> dict[str, Any]:
    """The whole game told from its log, for the ``epilogue`` mail: the roles dealt and one
    chapter per resolved step (its ``moment`` in the game's words, ``step``, ``phase``, the
    ``votes`` in force when it closed: voter, his role then, targets, keyword; and the rules'
    ``events`` as they truly were, a dead player's ``role`` and the lynch's tally included).

    The log is replayed (start, votes, resolutions: the same path as :func:`games.replay`),
    so every chapter is as the step was resolved.  Returns the mail's fields ``dealt`` and
    ``chapters``.
    """
    rs = ruleset_of(game)
    words = load_words(game.ruleset, game.language)
    state: Any = None
    dealt: dict[str, str] = {}
    chapters: list[dict[str, Any]] = []
    for entry in entries:
        payload = entry.payload
        if entry.kind == "start":
            seats = [Seat(s["name"], s["role"], s.get("gender")) for s in payload["seats"]]
            dealt = {seat.name: seat.role for seat in seats}
            state = rs.new_game(seats, Settings.from_dict(payload["settings"]))
        elif entry.kind == "vote" and state is not None:
            vote = RulesVote(
                player=payload["player"],
                targets=tuple(payload["targets"]),
                blanco=bool(payload["blanco"]),
                keywords=frozenset(payload["keywords"]),
            )
            result = rs.apply(state, vote)
            if not isinstance(result, Rejected):
                state = result.state
        elif entry.kind == "resolve" and state is not None:
            before = rs.view(state)
            resolution = rs.resolve(state)
            after = rs.view(resolution.state)
            events = with_story_facts(
                audience_dicts(resolution.state, resolution.events, rs),
                rs,
                state,
                resolution.state,
                reveal_roles=True,
            )
            moment = moment_of(
                StoryGame(
                    name=game.name,
                    step=before.step,
                    phase=before.phase,
                    night=after.night,
                    day=after.day,
                ),
                words,
            )
            by_name = before.by_name()
            votes = []
            for key, targets in before.votes.items():
                voter, _, keyword = key.partition(":")
                seat = by_name.get(voter)
                votes.append(
                    {
                        "player": voter,
                        "role": seat.role if seat is not None else None,
                        "targets": list(targets),
                        "keyword": keyword,
                    }
                )
            chapters.append(
                {
                    "moment": moment,
                    "step": before.step,
                    "phase": before.phase,
                    "votes": votes,
                    # every field of its type, defaults included (the Dorpsoudste's
                    # extra_life is in a transcript only when true)
                    "events": [
                        dict(StoryEvent.from_dict(event, game.ruleset).as_context())
                        for event in events
                    ],
                }
            )
            state = resolution.state
    return {"dealt": dealt, "chapters": chapters}
