"""The story context of a game's mails: the public game, the cast, the actions, the events.

Everything a template may read of a game comes from here, through the ruleset's typed view
(:meth:`rules.core.ruleset.Ruleset.view`) and its methods: no caller reads a ruleset's state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from narrator.durations import format_duration
from narrator.models import Game, Player
from narrator.service.work import ruleset_of
from narrator.zones import zone_or_utc
from rules.core import Event, Rejected, Resolution, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.ruleset import Ruleset
from rules.core.view import GameView
from stories import Cast
from stories import Event as StoryEvent
from stories import Game as StoryGame
from stories.render import moment_of
from stories.words import Words, load_words

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


@dataclass(frozen=True)
class Reveal:
    """Whose roles a cast shows: the recipient's own (`to`), the dead's (`dead`, as their death
    showed it), everybody's (`living`: the game is over)."""

    to: str | None = None
    dead: bool = False
    living: bool = False


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
    view = rs.view(state) if state is not None else None
    reveal = Reveal(reveal_to, reveal_dead, reveal_living)
    return roster(rs, players, state, view, reveal)


def roster(
    rs: Ruleset[Any],
    players: Sequence[Player],
    state: Any | None,
    view: GameView | None,
    reveal: Reveal,
) -> list[dict[str, Any]]:
    """:func:`story_players` from the state's `view` (None before the start)."""
    out = []
    seats = view.by_name() if view is not None else {}
    for player in players:
        alive, exiled, role = True, False, None
        seat = seats.get(player.name)
        if seat is not None:
            alive, exiled = seat.alive, seat.exiled
            if reveal.living or (alive and seat.revealed):
                role = seat.role
            elif not alive and reveal.dead:
                role = rs.shown_role(state, player.name)
            elif player.name == reveal.to:  # his own role, as he was told it
                role = rs.told_role(state, player.name)
        row = {"name": player.name, "gender": player.gender, "role": role, "alive": alive}
        if exiled:
            row["exiled"] = True
        if seat is not None and seat.revealed and alive:
            row["revealed"] = True
        out.append(row)
    return out


def story_cast(
    game: Game,
    players: Sequence[Player],
    state: Any | None,
    *,
    reveal_all: bool = False,
    rules: Ruleset[Any] | None = None,
    view: GameView | None = None,
) -> Cast:
    """The `players` of a batch of mails, shared by every recipient: nobody's own role.

    Roles are shown only for the dead when the game reveals roles, and for everybody when
    `reveal_all` (the game is over).  Built once per batch (O(players): the game table keeps
    it, :mod:`narrator.service.table`); each recipient gets his copy from
    :func:`recipient_cast`, so a step of n mails costs O(n) here, not O(n²).  `rules` and
    `view` are the game's, when the caller has them.
    """
    rs = rules if rules is not None else ruleset_of(game)
    if view is None and state is not None:
        view = rs.view(state)
    reveal = Reveal(dead=reveal_all or game.reveal_roles, living=reveal_all)
    return Cast(roster(rs, players, state, view, reveal))


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
    game: Game, cast: Cast, state: Any | None, recipient: str | None
) -> dict[str, Any]:
    """The common story context of `recipient`'s mail, from the batch's shared `cast` (the
    game table's :meth:`~narrator.service.table.GameTable.context` is the same with the
    table's own public game and view)."""
    return {
        "game": story_game(game, state),
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


def both_forms(
    state: Any, events: Sequence[Event], rs: Ruleset[Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """:func:`audience_dicts` of `events` in both forms at once, the truth (for the game log)
    and as told (for the stories): each event's audience is resolved once, and an event its
    audience is told as it is converted once."""
    truth, told = [], []
    for event in events:
        data = event.to_dict()
        names = rs.recipients(state, event.audience)
        audience = "public" if names is None else sorted(names)
        shown = rs.as_told(event)
        shown_data = data if shown is event else shown.to_dict()
        truth.append({**data, "audience": audience})
        told.append({**shown_data, "audience": list(audience) if names is not None else audience})
    return truth, told


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
    rs: Ruleset[Any],
    state: Any,
    player: str,
    own_role: str | None = None,
    mates: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The `actions` of a step/reminder mail: what `player` may send now (stories' Action).

    A player asked as his role is asked as the role he was told (the Dwaas as Ziener):
    `own_role` is his true role (from the view the caller holds; None: look it up).  `mates`
    are the living players his role information names to him (his pack, who vote with him).
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
                "mates": list(mates),
            }
        )
    return result


def living_mates(rs: Ruleset[Any], state: Any, view: GameView) -> dict[str, list[str]]:
    """Player -> the living players his role information names to him (``known_mates``),
    worked out once for every mail of a step."""
    living = {seat.name for seat in view.players if seat.alive}
    return {
        name: [m for m in known if m in living] for name, known in rs.known_mates(state).items()
    }


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
            resolution = rs.resolve(state)
            chapters.append(_chapter(game, words, state, resolution))
            state = resolution.state
    return {"dealt": dealt, "chapters": chapters}


def _chapter(game: Game, words: Words, state: Any, resolution: Resolution[Any]) -> dict[str, Any]:
    """The epilogue's chapter of one resolved step: `state` it was resolved from, `resolution`
    what the rules made of it (see :func:`epilogue_chapters`)."""
    rs = ruleset_of(game)
    before = rs.view(state)
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
    return {
        "moment": moment,
        "step": before.step,
        "phase": before.phase,
        "votes": votes,
        # every field of its type, defaults included (the Dorpsoudste's
        # extra_life is in a transcript only when true)
        "events": [
            dict(StoryEvent.from_dict(event, game.ruleset).as_context()) for event in events
        ],
    }
