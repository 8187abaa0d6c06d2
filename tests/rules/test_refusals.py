"""The shared vote check (rules/core/refusals.py): each refusal code, in its order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from rules.core import refusals
from rules.core.model import ActionChoice, Choices, Rejected, Vote
from rules.core.refusals import Refusal, check_vote


@dataclass(frozen=True)
class _Seat:
    name: str
    alive: bool = True


SEATS = {s.name: s for s in (_Seat("Anna"), _Seat("Bram"), _Seat("Carla", alive=False))}
PLAIN = ActionChoice("dag", None, ("Bram",), 1, 1, blanco=True)
SPARE = ActionChoice("risparmia", "risparmia", (), 0, 0, blanco=False)
ASKED = Choices("Anna", "dag", (PLAIN, SPARE))


def _check(vote: Vote, choices: Choices = ASKED) -> object:
    return check_vote(choices, vote, SEATS.get, left_out="pack-member")


@pytest.mark.parametrize(
    ("vote", "code"),
    [
        (Vote("Anna", keywords=frozenset({"witte"})), "no-special-vote"),
        (Vote("Anna", ("Bram", "Anna")), "wrong-count"),
        (Vote("Anna", ("Zoe",)), "unknown-player"),
        (Vote("Anna", ("Carla",)), "target-dead"),
        (Vote("Anna", ("Anna",)), "target-self"),
    ],
)
def test_each_refusal(vote: Vote, code: str) -> None:
    result = _check(vote)
    assert isinstance(result, Rejected)
    assert result.code == code
    assert type(result.code) is str  # the contract's plain string, not the enum member


def test_not_asked_and_a_blank_where_a_name_is_needed() -> None:
    refused = _check(Vote("Anna", ("Bram",)), Choices("Anna", "dag"))
    assert isinstance(refused, Rejected) and refused.code == Refusal.NOT_ASKED
    strict = Choices("Anna", "dag", (ActionChoice("dag", None, ("Bram",), 1, 1, blanco=False),))
    blank = _check(Vote("Anna", blanco=True), strict)
    assert isinstance(blank, Rejected) and blank.code == Refusal.WRONG_COUNT


def test_a_living_name_left_out_gets_the_rulesets_code_and_a_valid_vote_passes() -> None:
    narrow = ActionChoice("lupo", None, (), 1, 1, blanco=True)
    refused = _check(Vote("Anna", ("Bram",)), Choices("Anna", "notte", (narrow,)))
    assert isinstance(refused, Rejected) and refused.code == "pack-member"
    assert _check(Vote("Anna", ("Bram",))) == (PLAIN, ("Bram",))
    assert _check(Vote("Anna", blanco=True)) == (PLAIN, ())
    assert _check(Vote("Anna", keywords=frozenset({"Risparmia"}))) == (SPARE, ())


# The pipeline: declared stages, walked in order; the first refusal names the code.

PER_NAME = (refusals.unknown, refusals.dead, refusals.self_named)


def _ballot(names: tuple[str, ...], **fields: Any) -> refusals.Ballot[None]:
    return refusals.Ballot("Anna", names, SEATS.get, None, **fields)


def test_the_walk_decides_which_bad_name_is_told() -> None:
    # Carla is dead (second check), Zoe unknown (first check); Carla comes first.
    ballot = _ballot(("Carla", "Zoe"), max_names=2)
    by_name: refusals.Pipeline[None] = refusals.over_names(refusals.Walk.BY_NAME, *PER_NAME)
    by_check: refusals.Pipeline[None] = refusals.over_names(refusals.Walk.BY_CHECK, *PER_NAME)
    assert refusals.first_refusal(by_name, ballot) == Refusal.TARGET_DEAD
    assert refusals.first_refusal(by_check, ballot) == Refusal.UNKNOWN_PLAYER


def test_stages_run_in_the_declared_order_and_a_ruleset_stage_plugs_in() -> None:
    def own(ballot: refusals.Ballot[None]) -> str:
        return "own-code" if "Bram" in ballot.names else ""

    ballot = _ballot(("Bram", "Bram"), max_names=2)
    assert refusals.first_refusal((refusals.duplicate, own), ballot) == "duplicate-target"
    assert refusals.first_refusal((own, refusals.duplicate), ballot) == "own-code"
    assert refusals.first_refusal((refusals.count, own), _ballot(("Bram", "Bram"))) == (
        "wrong-count"
    )


@pytest.mark.parametrize(
    ("stage", "ballot", "code"),
    [
        (refusals.blank_with_names, _ballot(("Bram",), blanco=True), "wrong-count"),
        (refusals.blank_allowed, _ballot((), blank_allowed=False), "wrong-count"),
        (refusals.required, _ballot((), required=True), "required"),
        (refusals.duplicate, _ballot(("Zoe", "zoe"), max_names=2), "duplicate-target"),
        (refusals.repeat, _ballot(("Carla", "Bram"), previous=("Bram", "Carla")), "repeat"),
        (refusals.repeat, _ballot((), previous=()), "repeat"),
        (refusals.taken, _ballot(("Bram",), taken=lambda: {"Bram"}), "taken"),
    ],
)
def test_each_vote_stage(
    stage: refusals.Stage[None], ballot: refusals.Ballot[None], code: str
) -> None:
    assert stage(ballot) == code
    passing = refusals.Ballot("Anna", ("Anna",), SEATS.get, None, previous=("Bram",))
    assert stage(passing) == ""


@pytest.mark.parametrize(
    ("stage", "ballot", "code"),
    [
        (refusals.alive, _ballot(("Bram",), lives=(refusals.Life.DEAD,)), "target-alive"),
        (refusals.dead, _ballot(("Carla",), lives=(refusals.Life.ANY,)), ""),
        (refusals.exiled, _ballot(("Bram",), exiled=frozenset({"Bram"})), "target-exiled"),
        (refusals.self_named, _ballot(("Anna",), allow_self=True), ""),
        (refusals.not_in_targets, _ballot(("Bram",), targets=(), left_out="x"), "x"),
    ],
)
def test_each_name_stage(
    stage: refusals.NameStage[None], ballot: refusals.Ballot[None], code: str
) -> None:
    assert stage(ballot, 0, ballot.names[0]) == code


def test_a_shared_check_refuses_with_the_rulesets_own_code() -> None:
    bad_name = refusals.renamed_each("bad-name", refusals.unknown)
    assert bad_name(_ballot(("Zoe",)), 0, "Zoe") == "bad-name"
    assert bad_name(_ballot(("Bram",)), 0, "Bram") == ""
    blank = refusals.renamed("blank-not-allowed", refusals.blank_allowed)
    assert blank(_ballot((), blank_allowed=False)) == "blank-not-allowed"
    assert blank(_ballot((), blank_allowed=True)) == ""
