"""The shared vote check (rules/core/refusals.py): each refusal code, in its order."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

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
