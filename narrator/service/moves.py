"""A mail of several moves: each checked on its own, all stored with the mail, one receipt.

The parser reads a mail of several moves (:class:`parsing.Moves`) move by move, as a mail of
each alone would be read; here each move that reads is checked by the rules as a vote of its
own, in the order written, and stored as one (state, game log, vote row: the same records a
mail of one move leaves), in the unit of work that marks the mail done: the moves of a mail are
kept together with it, or none is (a crash, a redelivery of the mail).  A refused move never
costs the others.  One receipt answers the mail: it lists every move, with what was recorded
or why it was refused (the receipt's ``moves``; docs/stories.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from narrator.models import PlayerInfo
from narrator.service.games import (
    Ballot,
    VoteOutcome,
    _letter,
    _Voting,
    close,
    voting_state,
)
from narrator.service.letters import Letter
from narrator.service.mailer import ReplyTo
from narrator.service.table import GameTable
from parsing import Move, ParseError
from rules.core import Rejected
from rules.core import Vote as RulesVote
from stories.lexicon import explainer_for


def cast_moves(
    table: GameTable,
    player: PlayerInfo,
    moves: Sequence[Move],
    now: datetime,
    reply: ReplyTo | None = None,
    inbox_id: int | None = None,
) -> VoteOutcome:
    """Apply `player`'s `moves` (one mail's, in order) each as a vote of its own; return one
    receipt listing each, with what was recorded or why it was refused (and what an early
    close of the step then tells).  Accepted when at least one move was recorded; its code
    is then None, else the first refusal's."""
    game = table.game
    state = voting_state(table)
    # A vote changes no seat, step or public fact: one view serves them all (its votes unread).
    view = table.view_but_votes
    explain = explainer_for(game.ruleset, game.language)
    told: list[dict[str, Any]] = []
    receipt: dict[str, Any] | None = None
    relayed: list[tuple[_Voting, dict[str, Any], tuple[str, ...]]] = []
    for move in moves:
        read = move.read
        if isinstance(read, ParseError):
            params = {k: v for k, v in read.params.items() if k != "choices"}
            told.append(_refused(move, read.code.value, explain(read.code.value, params)))
            continue
        ballot = _ballot(read, inbox_id)
        keywords = sorted(set(ballot.keywords))
        vote = RulesVote(player.name, tuple(read.targets), read.blanco, frozenset(keywords))
        result = table.rules.apply(state, vote)
        voting = _Voting(table, player, view, keywords, ballot, now, reply)
        if isinstance(result, Rejected):
            told.append(_refused(move, result.code, explain(result.code, {})))
            continue
        state = result.state
        voting.record(state)
        action, readers = voting.receipt(state)
        said = voting.said(action)
        told.append({"written": move.written, "refused": "", "code": "", **_move(said)})
        relayed.append((voting, said, readers))
        receipt = receipt or said
    empty = Ballot(targets=(), blanco=False, keywords=(), inbox_id=inbox_id)
    answering = _Voting(table, player, view, [], empty, now, reply)
    letters = _receipt(answering, told, receipt)
    for voting, said, readers in relayed:
        batch = voting.batch(titled=True)
        letters.extend(voting.relay(batch, {**batch.context(player.name), **said}, readers))
    # What was done, move by move (the inbox's outcome): "accepted, rejected: no-name".
    detail = ", ".join(f"rejected: {m['code']}" if m["code"] else "accepted" for m in told)
    if not relayed:
        first = next((m["code"] for m in told if m["code"]), None)
        return VoteOutcome(False, first, detail, letters=tuple(letters))
    if game.close_early and table.rules.all_voted(state):
        letters.extend(close(table, now).letters)
        return VoteOutcome(True, detail=detail, closed_early=True, letters=tuple(letters))
    return VoteOutcome(True, detail=detail, letters=tuple(letters))


def _ballot(read: Any, inbox_id: int | None) -> Ballot:
    """The ballot of one move read from the mail (its names, blank, words, corrections)."""
    return Ballot(
        targets=read.targets,
        blanco=read.blanco,
        keywords=read.keywords,
        corrections=[(c.written, c.understood) for c in read.corrections],
        inbox_id=inbox_id,
    )


def _refused(move: Move, code: str, reason: str) -> dict[str, Any]:
    """A refused move as the receipt tells it: its words, its `code` and the `reason`."""
    return {
        "written": move.written,
        "refused": reason,
        "code": code,
        "action": None,
        "targets": [],
        "blanco": False,
        "corrected": [],
    }


def _move(said: dict[str, Any]) -> dict[str, Any]:
    """A recorded move as the receipt tells it (besides its words)."""
    return {key: said[key] for key in ("action", "targets", "blanco", "corrected")}


def _receipt(
    answering: _Voting, told: list[dict[str, Any]], first: dict[str, Any] | None
) -> list[Letter]:
    """The one receipt of the mail (`answering` it): its `moves` (`told`), besides the fields
    of its `first` recorded move (none recorded: the step's first action, as an empty vote)."""
    batch = answering.batch(titled=not answering.answered)
    player = answering.player
    context = batch.context(player.name)
    context.update(first if first is not None else answering.told(answering.table.state))
    context["moves"] = told
    return [_letter(batch, player, "receipt", context, answering.identity, answering.reply)]
