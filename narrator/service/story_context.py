"""The story context of a game's mails: the public game, the cast, the actions, the events.

Everything a template may read of a game comes from here, through the ruleset's typed view
(:meth:`rules.core.ruleset.Ruleset.view`) and its methods: no caller reads a ruleset's state.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from narrator.durations import format_duration
from narrator.models import Game, PlayerInfo
from narrator.service.work import ruleset_of
from narrator.zones import zone_or_utc
from rules.core import ActionChoice, Event, Rejected, Resolution, Seat, Settings
from rules.core import Vote as RulesVote
from rules.core.model import ToldRoles
from rules.core.ruleset import Ruleset, RulesState
from rules.core.view import GameView
from stories import Action as StoryAction
from stories import Cast
from stories import Game as StoryGame
from stories.context import clean_names, story_events
from stories.render import moment_of
from stories.words import Words, load_words

#: The fields a story's `game` has: a ruleset's other public facts (the vampiri's candidates,
#: secret_vote, lone_hunter) are the rules' business, not the stories' `game`.
_STORY_GAME_FIELDS = frozenset(f.name for f in fields(StoryGame))


def story_game(
    game: Game,
    state: RulesState | None,
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
    rs: Ruleset[RulesState],
    players: Sequence[PlayerInfo],
    state: RulesState | None,
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
    roles = rs.told_roles(state) if state is not None else None
    reveal = Reveal(reveal_to, reveal_dead, reveal_living)
    return roster(players, view, roles, reveal)


def roster(
    players: Sequence[PlayerInfo],
    view: GameView | None,
    roles: ToldRoles | None,
    reveal: Reveal,
) -> list[dict[str, Any]]:
    """:func:`story_players` from the state's `view` and the `roles` its readers are told
    (both None before the start)."""
    out = []
    for name, gender, role, alive, exiled, revealed in _roster_rows(players, view, roles, reveal):
        row = {"name": name, "gender": gender, "role": role, "alive": alive}
        if exiled:
            row["exiled"] = True
        if revealed:
            row["revealed"] = True
        out.append(row)
    return out


def _roster_rows(
    players: Sequence[PlayerInfo],
    view: GameView | None,
    roles: ToldRoles | None,
    reveal: Reveal,
) -> Iterator[tuple[str, str, str | None, bool, bool, bool]]:
    """Each player of :func:`roster` as the stories' Player's fields, in their order: name,
    gender, the role shown, alive, exiled, revealed (what ``Cast.of_rows`` takes as it is)."""
    if view is None:  # before the start: nobody's role, everybody alive
        for player in players:
            yield player.name, player.gender, None, True, False, False
        return
    seats = {seat.name: seat for seat in view.players}
    living, dead, to = reveal.living, reveal.dead, reveal.to
    shown, own = (roles.shown, roles.own) if roles is not None else ({}, {})
    for player in players:
        name = player.name
        seat = seats.get(name)
        if seat is None:  # not (or no longer) seated
            yield name, player.gender, None, True, False, False
            continue
        if roles is None:  # a view without the roles its readers are told: his seat's mark only
            yield name, player.gender, None, True, False, seat.revealed
            continue
        alive, role = seat.alive, None
        if living or (alive and seat.revealed):
            role = seat.role
        elif not alive and dead:
            role = shown.get(name)
        elif name == to:  # his own role, as he was told it
            role = own.get(name)
        yield name, player.gender, role, alive, seat.exiled, seat.revealed and alive


def story_cast(
    game: Game,
    players: Sequence[PlayerInfo],
    state: RulesState | None,
    *,
    reveal_all: bool = False,
    rules: Ruleset[RulesState] | None = None,
    view: GameView | None = None,
) -> Cast:
    """The `players` of a batch of mails, shared by every recipient: nobody's own role.

    Roles are shown only for the dead when the game reveals roles, and for everybody when
    `reveal_all` (the game is over).  Built once per batch (O(players): the game table keeps
    it, :mod:`narrator.service.table`); it carries each player's role as he was told it, which
    the render of his own mail shows him (``Cast.seen_by``), so a step of n mails costs O(n)
    here, not O(n²).  `rules` and `view` are the game's, when the caller has them.
    """
    rs = rules if rules is not None else ruleset_of(game)
    if view is None and state is not None:
        view = rs.view(state)
    roles = rs.told_roles(state) if state is not None else None
    reveal = Reveal(dead=reveal_all or game.reveal_roles, living=reveal_all)
    # The rows in the stories' Player's order, without a dict for each; made here, not read by
    # the stories from this generator (each of its steps would cross back into the service).
    rows = list(_roster_rows(players, view, roles, reveal))
    return Cast.of_rows(rows, roles.own if roles is not None else None)


def recipient_cast(
    rs: Ruleset[RulesState], cast: Cast, state: RulesState | None, recipient: str | None
) -> Cast:
    """The shared `cast` as `recipient` sees it: with his own role, as he was told it.

    Only his own entry differs; the shared cast is not changed, so it can serve the next
    recipient.  (The same roles as ``story_players(..., reveal_to=recipient)``; a mail's render
    does this itself with a cast of :func:`story_cast`.)
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
    game: Game, cast: Cast, state: RulesState | None, recipient: str | None
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
    state: RulesState, events: Sequence[Event], rs: Ruleset[RulesState], *, told: bool = False
) -> list[dict[str, Any]]:
    """Events in transcript form with an `audience` key the story renderer understands, as the
    ruleset addresses them (:meth:`rules.core.ruleset.Ruleset.addressed`).

    With `told`, each event is as its audience is told it (the ruleset's ``as_told``: a role
    change to a hidden role); without, the truth, as the game log keeps it.
    """
    return rs.addressed(state, events, told=told)


def with_story_facts(
    events: list[dict[str, Any]],
    rs: Ruleset[RulesState],
    before: RulesState,
    after_state: RulesState,
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
    rs: Ruleset[RulesState], state: RulesState, player: str, mates: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The `actions` of a step/reminder mail: what `player` may send now (stories' Action),
    as he is told them (``Ruleset.told_choices``: the Dwaas is asked as the Ziener); `mates`
    are the living players his role information names to him (his pack, who vote with him)."""
    return [
        {**action_context(choice), "mates": list(mates)}
        for choice in rs.told_choices(state, player).actions
    ]


def step_actions(
    rs: Ruleset[RulesState],
    state: RulesState,
    player: str,
    mates: Sequence[str],
    names: Mapping[str, str],
) -> list[StoryAction]:
    """:func:`actions_of` as the stories' Actions, for one mail of a step that mails many:
    `names` (each player's name -> its story form, :func:`story_names`, worked out once for
    the step) spares every mail cleaning the same names again (a day vote of a thousand
    players lists a thousand choices in each of a thousand mails)."""
    return [StoryAction.from_any(action, names) for action in actions_of(rs, state, player, mates)]


def story_names(players: Sequence[PlayerInfo]) -> dict[str, str]:
    """Each player's name -> the name as stories write it (one line), for :func:`step_actions`."""
    return clean_names([player.name for player in players])


def action_context(choice: ActionChoice) -> dict[str, Any]:
    """One action of a mail (stories' Action) from the rules' `choice`."""
    previous = choice.previous
    return {
        "kind": choice.action,
        "choices": list(choice.targets),
        "min": choice.min_names,
        "max": choice.max_names,
        "blanco": choice.blanco,
        "keyword": choice.keyword,
        "previous": ["blanco"] if previous == () else list(previous or ()),
        "extra": dict(choice.extra),
        "move": choice.move,
    }


def living_mates(
    rs: Ruleset[RulesState], state: RulesState, view: GameView
) -> dict[str, list[str]]:
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
    state: RulesState | None = None
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
        elif entry.kind == "remove" and state is not None:
            removal = rs.remove(state, payload["player"])
            chapters.append(_chapter(game, words, state, removal))
            state = removal.state
    return {"dealt": dealt, "chapters": chapters}


def _chapter(
    game: Game, words: Words, state: RulesState, resolution: Resolution[RulesState]
) -> dict[str, Any]:
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
        "events": [dict(event.as_context()) for event in story_events(events, game.ruleset)],
    }
