"""The shared core: deterministic RNG, vote counting, events, registry, pipeline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rules
import rules.core
from rules import Audience, Distribution, UnknownRuleset, get_ruleset, ruleset_ids
from rules.core.pipeline import Stage, run_pipeline
from rules.core.rng import draw_index, shuffled
from rules.core.votes import leaders, number, plurality
from rules.wakkerdam.events import Death, Lynch, Seen


def test_draws_are_a_function_of_seed_and_counter() -> None:
    first = [draw_index(7, counter, 1000) for counter in range(50)]
    assert first == [draw_index(7, counter, 1000) for counter in range(50)]
    assert first != [draw_index(8, counter, 1000) for counter in range(50)]
    assert len(set(first)) > 40


def test_draw_from_empty_range_is_an_error() -> None:
    with pytest.raises(ValueError):
        draw_index(1, 0, 0)


def test_shuffle_is_a_deterministic_permutation() -> None:
    items = list(range(100))
    once = shuffled(3, "deal", items)
    assert sorted(once) == items and once != items
    assert shuffled(3, "deal", items) == once
    assert shuffled(4, "deal", items) != once


def test_plurality_needs_a_single_leader() -> None:
    assert plurality(["a", "b", "a"]) == "a"
    assert plurality(["a", "b"]) is None
    assert plurality([]) is None
    assert leaders({"a": 1.5, "b": 1.5, "c": 1}) == ("a", "b")


def test_numbers_are_int_when_whole() -> None:
    assert number(3.0) == 3 and isinstance(number(3.0), int)
    assert number(1.5) == 1.5


def test_events_have_the_transcript_form_and_an_audience() -> None:
    assert Death("Anna", "gif").to_dict() == {"type": "death", "player": "Anna", "cause": "gif"}
    assert Death("Anna", "gif").audience == Audience.public()
    seen = Seen("Bram", "Anna", "weerwolf")
    assert seen.audience == Audience.player("Bram") and not seen.audience.is_public
    lynch = Lynch(player=None, totals={"Anna": 2.0, "Bram": 1.5})
    assert lynch.to_dict() == {"type": "lynch", "player": None, "totals": {"Anna": 2, "Bram": 1.5}}
    assert isinstance(lynch.to_dict()["totals"]["Anna"], int)


def test_the_packages_give_the_event_classes_when_asked_and_only_then() -> None:
    """`rules` and `rules.core` name the event classes without importing them (a read of a
    state loads none): a new interpreter, the only place where "not imported" means it."""
    probe = (
        "import sys, rules, rules.core\n"
        "assert 'rules.core.events' not in sys.modules\n"
        "from rules import Audience, AudienceKind, Event\n"
        "from rules.core import events\n"
        "assert (Audience, AudienceKind, Event) == (events.Audience, events.AudienceKind,"
        " events.Event)\n"
        "assert rules.core.Event is events.Event\n"
    )
    root = Path(__file__).resolve().parent.parent.parent
    subprocess.run([sys.executable, "-c", probe], cwd=root, check=True, capture_output=True)
    for package in (rules, rules.core):
        with pytest.raises(AttributeError, match="no_such_name"):
            package.no_such_name  # noqa: B018


def test_registry_knows_wakkerdam_only() -> None:
    assert "wakkerdam" in ruleset_ids()
    assert get_ruleset("wakkerdam").id == "wakkerdam"
    with pytest.raises(UnknownRuleset):
        get_ruleset("lupus-unknown")


def test_pipeline_runs_stages_in_order_with_a_trace() -> None:
    stages = (
        Stage[int]("double", lambda n: (n * 2, [f"{n} -> {n * 2}"])),
        Stage[int]("inc", lambda n: (n + 1, ["+1"])),
    )
    assert run_pipeline(stages, 5) == (11, ("double: 5 -> 10", "inc: +1"))


def test_distribution_accepts_counts_or_lists() -> None:
    by_count = Distribution("x", 3, {"weerwolf": 1, "burger": 2}, {"mayor": True})  # type: ignore[arg-type]
    by_list = Distribution("x", 3, ("burger", "weerwolf", "burger"), {"mayor": True})
    assert by_count == by_list
    assert by_count.to_dict()["roles"] == {"burger": 2, "weerwolf": 1}
    with pytest.raises(ValueError):
        Distribution("bad", 4, ("burger",), {"mayor": False})


def test_an_option_whose_default_is_none_takes_any_value_and_typed_ones_keep_their_type() -> None:
    from rules.core.model import Settings

    allowed = {"faceless": None, "rounds": 3, "secret": True}
    Settings(seed=1, options={"faceless": False, "rounds": 4, "secret": False}).check_options(
        allowed
    )
    with pytest.raises(ValueError, match="'rounds' must be a int"):
        Settings(seed=1, options={"rounds": True}).check_options(allowed)
    with pytest.raises(ValueError, match="'secret' must be a bool"):
        Settings(seed=1, options={"secret": "yes"}).check_options(allowed)
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        Settings(seed=1, options={"colour": 1}).check_options(allowed)


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_built_in_distribution_starts_a_game(ruleset_id: str) -> None:
    """A game starts with each built-in distribution, its options merged as the narrator merges
    them (narrator.service.games: the ruleset's options, then the distribution's)."""
    from rules.core.model import Settings

    ruleset = get_ruleset(ruleset_id)
    built_in = sorted(ruleset.distributions, key=lambda distribution: distribution.players)
    # Lupus ships one per player count up to 1,000: the small ones differ, the large ones grow.
    for distribution in [d for d in built_in if d.players <= 40] + built_in[-1:]:
        players = distribution.players
        names = [(f"P{n}", "man") for n in range(players)]
        seats = ruleset.deal(names, distribution, 1)
        options = {**ruleset.options, **distribution.options}
        state = ruleset.new_game(seats, Settings(seed=1, strictness=3, options=options))
        assert ruleset.view(state).step is not None, (ruleset_id, players)
