"""Removing a player from a running game, the ruleset's own way, by an admin (CLI or panel).

Lupus's game master disqualifies (an exile); the other rulesets record a death by removal.  The
rules decide what follows (:meth:`rules.core.ruleset.Ruleset.remove`); this module stores the
new state and the log entry (``remove``: who, by whom, the events) and tells every player the
story of it through the post office, as a step's close does.  The step and its deadline stay,
unless the removal ended the game.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select

from narrator.models import Game, GameStatus, Player, Vote
from narrator.service.games import GameError, _finish, _story_letters, _Telling, public_tallies
from narrator.service.letters import post
from narrator.service.mailer import Mailer
from narrator.service.table import table_of
from narrator.service.work import NotStarted, Work
from stories.context import story_events

log = logging.getLogger("narrator.removal")

REMOVABLE = frozenset({GameStatus.RUNNING.value, GameStatus.PAUSED.value})


def remove_player(
    work: Work, mailer: Mailer, game: Game, player: Player, *, now: datetime, by: str
) -> list[dict[str, Any]]:
    """Remove `player` from the running (or paused) `game` by the decision of `by` (an admin's
    address, or ``cli``), and mail every player the story of it.

    Returns the removal's events in transcript form (with audiences): ``removed`` first, then
    the ruleset's record (``death`` with its removal cause, Lupus's ``exile``) and what follows
    (a successor, a welp grown up, the ``win``).  Raises GameError: ``not-running`` (the game
    has not started or is over), ``cannot-remove`` (the rules refuse: the player is already
    dead or exiled).
    """
    if game.status not in REMOVABLE:
        raise GameError("not-running", f"game {game.name} is not running")
    table = table_of(work, game)
    try:
        state = table.state
    except NotStarted as error:
        raise GameError("not-started", str(error)) from None
    rs = table.rules
    before = table.view
    try:
        resolution = rs.remove(state, player.name)
    except ValueError as error:
        raise GameError("cannot-remove", f"{game.name}: {error}") from None
    new_state = resolution.state
    told = rs.tell_step(state, new_state, resolution.events, reveal_roles=game.reveal_roles)
    events = told.log
    table.log("remove", {"player": player.name, "by": by, "events": events}, now)
    _withdraw_votes(work, game, player)
    table.store(new_state)
    after = table.view
    dead = {seat.name for seat in after.players if not seat.alive}
    letters = _story_letters(
        table,
        story_events(told.story, game.ruleset),
        table.public(before.step, before.phase),
        _Telling(
            seed=f"{game.id}/removal/{player.id}",
            identity=f"removal/{game.id}/{player.id}",
            skip=frozenset(p.name for p in table.players if p.unsubscribed and p.name in dead),
            tallies=public_tallies(told.story),
            announcement=True,  # the step goes on: no dawn or dusk
        ),
    )
    if after.over:
        letters.extend(_finish(table, now))
    post(work.session, mailer, letters, now, outgoing=work.outgoing)
    log.info("%s removed %s from %s (%s)", by, player.name, game.name, game.ruleset)
    return events


def _withdraw_votes(work: Work, game: Game, player: Player) -> None:
    """Delete the vote rows of this step that the rules withdrew with `player`'s removal: his
    own and those naming him (the reminders and the pages count them as not sent)."""
    work.flush()  # the votes this transaction recorded are withdrawn too
    step_votes = work.session.execute(
        select(Vote.id, Vote.player_id, Vote.targets).where(
            Vote.game_id == game.id, Vote.step_number == game.step_number
        )
    )
    withdrawn = [
        vote_id
        for vote_id, voter, targets in step_votes
        if voter == player.id or player.name in (targets or [])
    ]
    if withdrawn:
        work.session.execute(delete(Vote).where(Vote.id.in_(withdrawn)))
