"""The core step table: the linear order of play and the declared successors of outcomes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rules.core.steps import DONE, StepSpec, StepTable
from rules.mafia.ids import Close, Step
from rules.mafia.steps import STEP_TABLE as MAFIA

MAFIA_DIR = Path(__file__).resolve().parents[2] / "rules" / "mafia"


def _nobody(state: object) -> tuple[str, ...]:
    return ()


def _table(*specs: StepSpec[object]) -> StepTable[object]:
    return StepTable(specs)


LINEAR = _table(
    StepSpec("start", "start", _nobody, once=True),
    StepSpec("night", "night", _nobody),
    StepSpec("day", "day", _nobody),
)


def test_a_linear_table_goes_on_in_order_and_wraps_past_the_once_steps() -> None:
    assert LINEAR.following(None).id == "start"
    assert LINEAR.following("start").id == "night"
    assert LINEAR.following("night", DONE).id == "day"
    assert LINEAR.following("day").id == "night"


def test_a_step_names_the_successor_of_each_outcome_it_closes_with() -> None:
    table = _table(
        StepSpec("vote", "day", _nobody, then={"tie": "revote"}),
        StepSpec("moves", "day", _nobody, then={"again": "vote", DONE: "night"}),
        StepSpec("revote", "day", _nobody),
        StepSpec("night", "night", _nobody),
    )
    assert table.following("vote").id == "moves"  # done, not named: table order
    assert table.following("vote", "tie").id == "revote"
    assert table.following("moves", "again").id == "vote"  # back up the table
    assert table.following("moves").id == "night"
    assert table.following("night").id == "vote"


def test_an_outcome_a_step_does_not_name_is_refused() -> None:
    with pytest.raises(ValueError, match="tie"):
        LINEAR.following("night", "tie")
    with pytest.raises(KeyError):
        LINEAR.following("dusk")


def test_a_table_refuses_a_successor_outside_it_and_a_repeated_id() -> None:
    with pytest.raises(ValueError, match="unknown steps"):
        _table(StepSpec("vote", "day", _nobody, then={"tie": "revote"}))
    with pytest.raises(ValueError, match="twice"):
        _table(StepSpec("vote", "day", _nobody), StepSpec("vote", "night", _nobody))


def test_mafias_order_is_declared_in_its_step_table() -> None:
    """§4, §6: the jumps back (a tie after the vote-time moves → the revote, the extra vote →
    its vote-time moves) and the night → the pre-vote are the table's, not a resolver's."""
    assert MAFIA.following(None).id == Step.ELECTION
    assert MAFIA.first_of("night").id == Step.NIGHT
    expected = {
        (Step.ELECTION, Close.TIE): Step.RUNOFF,
        (Step.ELECTION, Close.CHOOSE): Step.SECRETARY,
        (Step.ELECTION, Close.DONE): Step.NIGHT,
        (Step.RUNOFF, Close.DONE): Step.NIGHT,
        (Step.SECRETARY, Close.DONE): Step.NIGHT,
        (Step.PRE_VOTE, Close.HUNT): Step.HUNT,
        (Step.PRE_VOTE, Close.DONE): Step.LYNCH,
        (Step.LYNCH, Close.MOVES): Step.VOTE_MOVES,
        (Step.HUNT, Close.LAST_MOVES): Step.LAST_MOVES,
        (Step.VOTE_MOVES, Close.TIE): Step.REVOTE,
        (Step.VOTE_MOVES, Close.EXTRA): Step.EXTRA_VOTE,
        (Step.EXTRA_VOTE, Close.MOVES): Step.VOTE_MOVES,
        (Step.REVOTE, Close.DONE): Step.NIGHT,
        (Step.LAST_MOVES, Close.EXTRA): Step.EXTRA_VOTE,
        (Step.NIGHT, Close.DONE): Step.PRE_VOTE,
    }
    for (step, close), following in expected.items():
        assert MAFIA.following(step, close).id == following, (step, close)
    with pytest.raises(ValueError):
        MAFIA.following(Step.VOTE_MOVES, Close.MOVES)  # the moves never wait for themselves


def test_no_mafia_resolver_names_the_step_played_next() -> None:
    """A resolver returns how its step closed (a ``Close``); no ``return`` in the day's or the
    engine's resolvers ends with a ``Step``."""
    for module in ("day", "engine"):
        tree = ast.parse((MAFIA_DIR / f"{module}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                last = node.value.elts[-1]
                if isinstance(last, ast.Attribute) and isinstance(last.value, ast.Name):
                    assert last.value.id != "Step", (module, node.lineno)
