"""The ruleset base (rules/core/base.py): a misnamed member fails mypy or the import, and each
ruleset writes its members the checked way."""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from rules.core.base import RulesetBase, override
from rules.core.model import Accepted, Seat, Settings, Vote
from rules.core.registry import get_ruleset, ruleset_ids
from rules.example.ruleset import ExampleRuleset

ROOT = Path(__file__).resolve().parents[2]

_GOOD = """
    from rules.core.base import override
    from rules.example.ruleset import ExampleRuleset
    from rules.example.state import GameState


    class Honest(ExampleRuleset):
        @override
        def shown_role(self, state: GameState, name: str) -> str | None:
            return None


    GOOD = Honest()
"""

_MISSPELT = """
    from rules.core.base import override
    from rules.example.ruleset import ExampleRuleset
    from rules.example.state import GameState


    class Misspelt(ExampleRuleset):
        @override
        def shown_rol(self, state: GameState, name: str) -> str | None:
            return None
"""

_MISSING = """
    from rules.core.base import RulesetBase, override
    from rules.example import engine, state
    from rules.example.ruleset import ExampleRuleset
    from rules.example.state import GameState


    class Renamed(RulesetBase[GameState]):
        id = "renamed"
        roles = ExampleRuleset.roles
        step_table = engine.STEP_TABLE
        causes = ExampleRuleset.causes
        teams = ExampleRuleset.teams
        event_types = ExampleRuleset.event_types
        action_kinds = ExampleRuleset.action_kinds
        distributions = ExampleRuleset.distributions
        view = ExampleRuleset.view
        new_game = staticmethod(engine.new_game)
        choices = staticmethod(engine.choices)
        apply = staticmethod(engine.apply_vote)
        resolv = staticmethod(engine.resolve)
        codec = state.CODEC


    RENAMED = Renamed()
"""


def _mypy() -> str:
    path = Path(sys.executable).parent / "mypy"
    found = str(path) if path.exists() else shutil.which("mypy")
    if found is None:
        pytest.fail("mypy is not installed; install the test extras: pip install -e '.[test]'")
    return found


def test_a_misnamed_member_fails_mypy(tmp_path: Path) -> None:
    """A misspelt ``@override`` and a renamed abstract member are mypy errors; the same
    ruleset spelt right is clean (so the check can tell them apart)."""
    files = {"good.py": _GOOD, "misspelt.py": _MISSPELT, "renamed.py": _MISSING}
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    result = subprocess.run(
        [_mypy(), "--strict", *(str(tmp_path / name) for name in files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert not [line for line in errors if "good.py" in line], out
    assert any(
        "misspelt.py" in line and '"shown_rol" is marked as an override' in line for line in errors
    ), out
    renamed = [line for line in errors if "renamed.py" in line]
    assert len(renamed) == 1, out
    assert 'abstract class "Renamed" with abstract attribute "resolve"' in renamed[0], out


def test_a_misspelt_data_member_is_refused_at_import() -> None:
    with pytest.raises(TypeError, match="optoins"):

        class Misspelt(ExampleRuleset):
            optoins = {"mayor": True}  # noqa: RUF012


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_ruleset_is_a_base_and_marks_its_overrides(ruleset_id: str) -> None:
    """Each ruleset subclasses the base, and every method it writes carries ``@override`` (so
    mypy checks its name against the base); engine functions may be assigned as staticmethods
    to the abstract members, whose absence mypy reports at ``RULESET``."""
    cls = type(get_ruleset(ruleset_id))
    assert issubclass(cls, RulesetBase)
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        function = member.fget if isinstance(member, property) else member
        if inspect.isfunction(function):
            assert getattr(function, "__override__", False), f"{cls.__name__}.{name}"


def _example_day() -> tuple[Any, Any, list[dict[str, Any]]]:
    """An example game's first day: Anna and Bram vote Carla (a wolf), who is burnt."""
    rs = get_ruleset("example")
    seats = (Seat("Anna", "contadino"), Seat("Bram", "veggente"), Seat("Carla", "lupo"))
    state = rs.new_game(seats, Settings(seed=1))
    for voter in ("Anna", "Bram"):
        verdict = rs.apply(state, Vote(voter, ("Carla",)))
        assert isinstance(verdict, Accepted)
        state = verdict.state
    resolution = rs.resolve(state)
    events = [event.to_dict() for event in resolution.events]
    return state, resolution.state, events


def test_the_tell_adds_the_shown_role_and_the_story_facts_of_the_ruleset() -> None:
    before, after, events = _example_day()
    told = get_ruleset("example").tell(before, after, events, reveal_roles=True)
    death = next(e for e in told if e["type"] == "death")
    assert death["role"] == "lupo"
    assert "votes" not in next(e for e in told if e["type"] == "lynch")  # no story_facts
    hidden = get_ruleset("example").tell(before, after, events, reveal_roles=False)
    assert "role" not in next(e for e in hidden if e["type"] == "death")

    class Voters(ExampleRuleset):
        story_facts = MappingProxyType({"lynch": ("votes",)})

    lynch = next(
        e for e in Voters().tell(before, after, events, reveal_roles=False) if e["type"] == "lynch"
    )
    assert lynch["votes"] == {"Anna": ["Carla"], "Bram": ["Carla"]}
    assert events == [event.to_dict() for event in get_ruleset("example").resolve(before).events]


def test_the_step_is_told_in_both_forms_at_once() -> None:
    """``tell_step``: the log's form is ``addressed``'s truth, the story's is ``addressed``'s
    told form with ``tell``'s facts."""
    rs = get_ruleset("example")
    before, _, _ = _example_day()
    resolution = rs.resolve(before)
    after = resolution.state
    told = rs.tell_step(before, after, resolution.events, reveal_roles=True)
    assert told.log == rs.addressed(after, resolution.events)
    as_told = rs.addressed(after, resolution.events, told=True)
    assert told.story == rs.tell(before, after, as_told, reveal_roles=True)
    assert next(e for e in told.story if e["type"] == "death")["role"] == "lupo"
    assert "role" not in next(e for e in told.log if e["type"] == "death")


def test_a_player_is_asked_as_the_role_he_was_told() -> None:
    """``told_choices`` names the action of his own role by his told role (the Dwaas asked as
    the Ziener); ``told_roles`` holds every player's told role and the shown role of the dead."""
    rs = get_ruleset("wakkerdam")
    names = ["Anna", "Bram", "Carla", "Dirk", "Eva"]
    roles = ["weerwolf", "dwaas", "burger", "burger", "ziener"]
    seats = [Seat(n, r) for n, r in zip(names, roles, strict=True)]
    state = rs.new_game(seats, Settings(seed=3, options={"mayor": False}))
    for _ in range(5):  # to the step the Dwaas (who believes he is the Ziener) is asked in
        if "Bram" in rs.asked(state):
            break
        state = rs.resolve(state).state
    true_actions = [c.action for c in rs.choices(state, "Bram").actions]
    assert true_actions == ["dwaas"]
    assert [c.action for c in rs.told_choices(state, "Bram").actions] == ["ziener"]
    assert rs.told_choices(state, "Eva") == rs.choices(state, "Eva")
    receipt = rs.receipt(state, "Bram", ())
    assert receipt.action is not None and receipt.action.action == "ziener"
    assert receipt.readers == ()
    assert rs.receipt(state, "Carla", ()).action is None  # not asked now
    told = rs.told_roles(state)
    assert told.own == {n: {"dwaas": "ziener"}.get(r, r) for n, r in zip(names, roles, strict=True)}
    assert told.shown == {}


def test_the_wakkerdam_view_gives_each_seat_its_player_s_fields() -> None:
    from dataclasses import replace

    from rules.core.view import SeatView

    rs = get_ruleset("wakkerdam")
    seats = [Seat("Anna", "weerwolf"), Seat("Bram", "dwaas"), Seat("Carla", "burger")]
    state = rs.new_game(seats, Settings(seed=1))
    anna, bram, carla = state.players
    players = (
        replace(anna, missed=2),
        replace(bram, fool_revealed=True),
        replace(carla, alive=False, cause="lynch"),
    )
    view = rs.view(replace(state, players=players))
    assert view.players == (
        SeatView(name="Anna", alive=True, role="weerwolf", team="weerwolven", missed=2),
        SeatView(name="Bram", alive=True, role="dwaas", team="burgers", revealed=True),
        SeatView(name="Carla", alive=False, role="burger", team="burgers"),
    )


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_told_roles_are_each_player_s_told_role(ruleset_id: str) -> None:
    """``told_roles`` reads each seat's role itself where ``told_role`` is the base's; the same
    as asking ``told_role`` and ``shown_role`` player by player, in a game where some died."""
    rs = get_ruleset(ruleset_id)
    names = [f"P{seat:02d}" for seat in range(12)]
    seats = rs.deal(names, rs.pick_distribution(12, 5), 5)
    state = rs.new_game(seats, Settings(seed=5, strictness=99))
    for _ in range(12):
        if any(not seat.alive for seat in rs.view(state).players) or rs.view(state).over:
            break
        state = rs.resolve(state).state
    told = rs.told_roles(state)
    assert told.own == {p.name: rs.told_role(state, p.name) for p in state.players}
    assert told.shown == {
        p.name: rs.shown_role(state, p.name) for p in state.players if not p.alive
    }


def test_told_roles_follow_an_overridden_told_role() -> None:
    class Secretive(ExampleRuleset):
        @override
        def told_role(self, state: Any, name: str) -> str | None:
            return f"told-{name}"

    rs = Secretive()
    state = rs.new_game(
        [Seat("Anna", "contadino"), Seat("Bram", "lupo"), Seat("Carla", "contadino")],
        Settings(seed=1),
    )
    assert rs.told_roles(state).own == {n: f"told-{n}" for n in ("Anna", "Bram", "Carla")}


def test_a_seat_view_made_for_a_view_is_the_seat_view() -> None:
    """``seat_view`` (the rulesets' views make their seats with it) gives the same frozen
    value as ``SeatView``'s own ``__init__``, field for field, and hashes the same."""
    from dataclasses import FrozenInstanceError, asdict

    from rules.core.view import SeatView, seat_view

    made = seat_view("Anna", False, "heks", "burgers", 2, True, True)
    built = SeatView("Anna", False, "heks", "burgers", 2, True, True)
    assert type(made) is SeatView
    assert made == built and hash(made) == hash(built) and asdict(made) == asdict(built)
    assert vars(made) == vars(built)
    assert seat_view("Bram", True, "burger", "burgers") == SeatView(
        "Bram", True, "burger", "burgers"
    )
    with pytest.raises(FrozenInstanceError):
        made.alive = True  # type: ignore[misc]
    assert not hasattr(SeatView, "__post_init__") and not hasattr(SeatView, "__slots__")


def test_wakkerdams_view_tells_each_seat_the_team_of_its_role() -> None:
    """Wakkerdam's view reads a seat's team from a table of each role's team: for every role
    it is ``team_of`` a player of that role, and every seat of a game of every role is its
    player's ``team_of``."""
    from dataclasses import replace

    from rules.wakkerdam.roles import ROLES
    from rules.wakkerdam.ruleset import _TEAM_OF_ROLE
    from rules.wakkerdam.wins import team_of

    rs = get_ruleset("wakkerdam")
    roles = sorted(ROLES)
    state = rs.new_game([Seat(f"P{n}", "burger") for n in range(len(roles))], Settings(seed=1))
    players = tuple(replace(p, role=role) for p, role in zip(state.players, roles, strict=True))
    state = replace(state, players=players, table=None)
    seats = rs.view(state).players
    assert [seat.team for seat in seats] == [team_of(p) for p in players]
    assert _TEAM_OF_ROLE.keys() == ROLES.keys()
    assert all(type(team) is str for team in _TEAM_OF_ROLE.values())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_wakkerdam_all_voted_is_the_bases_answer(seed: int) -> None:
    """Wakkerdam's ``all_voted`` reads the state's votes where the base reads a view's: the
    same answer at every vote and step of a played game, before and after each asked
    player's vote (both answers occur)."""
    import random

    rs = get_ruleset("wakkerdam")
    rng = random.Random(seed)
    names = [f"P{seat:02d}" for seat in range(16)]
    seats = rs.deal(names, rs.pick_distribution(len(names), seed), seed)
    state = rs.new_game(seats, Settings(seed=seed, strictness=99, options={"mayor": True}))
    answers = set()
    for _ in range(14):
        if rs.view(state).over:
            break
        for voter in rs.asked(state):
            answer = rs.all_voted(state)
            assert answer == RulesetBase.all_voted(rs, state)
            answers.add(answer)
            for action in rs.choices(state, voter).actions:
                keywords = frozenset({action.keyword} - {None})
                count = min(max(action.min_names, 1), len(action.targets))
                targets = tuple(rng.sample(action.targets, count))
                verdict = rs.apply(state, Vote(voter, targets, not targets, keywords))
                if isinstance(verdict, Accepted):
                    state = verdict.state
        assert rs.all_voted(state) == RulesetBase.all_voted(rs, state)
        answers.add(rs.all_voted(state))
        # a vote in force under a keyword counts as his vote (``Name:keyword``)
        keyworded = state.with_votes({f"{name}:witte": () for name in rs.asked(state)})
        assert rs.all_voted(keyworded) == RulesetBase.all_voted(rs, keyworded)
        state = rs.resolve(state).state
    assert answers == {True, False}
