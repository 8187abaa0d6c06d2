"""The one state codec (rules/core/codec.py): states stored before it load the same, and dump in
the sparse form (the fields at their defaults left out)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import pytest

from rules.core.codec import AS_PAIRS, NOT_STORED, StateCodec, dump, load
from rules.core.model import Settings
from rules.core.registry import get_ruleset, ruleset_ids
from tests.rules.test_stored_defaults import full_form

STATES = Path(__file__).resolve().parent / "states"


def _stored(ruleset_id: str) -> list[dict[str, Any]]:
    """States dumped by the hand-written dump_state of each ruleset (before the codec)."""
    data = json.loads((STATES / f"{ruleset_id}.json").read_text(encoding="utf-8"))
    states: list[dict[str, Any]] = data["states"]
    return states


def _numbers(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data), parse_int=float)


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_state_stored_before_the_codec_loads_the_same_and_dumps_sparse(ruleset_id: str) -> None:
    rs = get_ruleset(ruleset_id)
    for stored in _stored(ruleset_id):
        state = rs.load_state(stored)
        again = rs.dump_state(state)
        # the sparse form, with the fields it leaves out put back from the pinned table of
        # defaults, is the stored form, byte for byte and in its key order (a Mafia sum stored
        # as 0 loads as the float 0.0, as it did before the codec): the load kept every value
        # and the dump left out only fields at their pinned defaults
        full = full_form(ruleset_id, state, again)
        assert json.dumps(_numbers(full)) == json.dumps(_numbers(stored))
        assert len(json.dumps(again)) < len(json.dumps(stored))
        # both forms load to equal states, through JSON text too, and the sparse form is stable
        sparse = json.loads(json.dumps(again))
        assert rs.load_state(sparse) == state == rs.load_state(full)
        assert rs.dump_state(rs.load_state(sparse)) == again
        assert json.dumps(rs.dump_state(rs.load_state(sparse))) == json.dumps(again)


def test_a_state_of_another_ruleset_is_refused() -> None:
    stored = _stored("example")[0]
    with pytest.raises(ValueError, match="not a wakkerdam state"):
        get_ruleset("wakkerdam").load_state(stored)


def test_ordered_mappings_are_pairs_and_sets_are_sorted() -> None:
    kind = Annotated[dict[str, tuple[str, ...]], AS_PAIRS]
    votes = {"Zoe": ("Anna",), "Anna": ()}
    assert dump(kind, votes) == [["Zoe", ["Anna"]], ["Anna", []]]
    assert list(load(kind, [["Zoe", ["Anna"]], ["Anna", []]])) == ["Zoe", "Anna"]
    assert dump(frozenset[str], frozenset({"b", "a"})) == ["a", "b"]
    assert load(frozenset[str], ["b", "a"]) == frozenset({"a", "b"})


def test_a_missing_field_takes_its_default_and_a_wrong_type_is_refused() -> None:
    from rules.example.state import GameState

    codec = StateCodec(GameState, ruleset="example")
    stored = dict(_stored("example")[0])
    del stored["draws"]
    assert codec.load(stored).draws == 0
    with pytest.raises(ValueError, match="expected int"):
        codec.load({**stored, "night": "1"})
    with pytest.raises(KeyError):
        codec.load({key: value for key, value in stored.items() if key != "players"})


@dataclass(frozen=True)
class _WithDerived:
    name: str
    derived: object = field(default=None, compare=False, metadata=NOT_STORED)


def test_a_field_not_stored_is_neither_written_nor_read() -> None:
    codec = StateCodec(_WithDerived)
    assert codec.dump(_WithDerived("a", derived=object())) == {"name": "a"}
    assert codec.load({"name": "a", "derived": 1}).derived is None


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_state_whose_views_were_read_dumps_as_before(ruleset_id: str) -> None:
    # a cached property (a state's vote-free views) adds an attribute to the record: the
    # encoder writes the stored fields only, in their order
    rs = get_ruleset(ruleset_id)
    for stored in _stored(ruleset_id):
        state = rs.load_state(stored)
        for name in ("views", "index"):
            getattr(state, name, None)
        dumped = rs.dump_state(state)
        assert json.dumps(dumped) == json.dumps(rs.dump_state(rs.load_state(stored)))
        assert json.dumps(_numbers(full_form(ruleset_id, state, dumped))) == json.dumps(
            _numbers(stored)
        )


def _wakkerdam_stored() -> dict[str, Any]:
    return next(s for s in _stored("wakkerdam") if len(s["players"]) > 1)


@pytest.mark.parametrize(
    ("field_name", "value", "message"),
    [
        ("missed", True, "expected int"),  # a bool is no int
        ("missed", 1.0, "expected int"),
        ("name", 5, "expected str"),
        ("alive", 1, "expected bool"),
        ("gender", 3, "expected str"),
        ("due", ["jager", 7], "expected str"),
        ("due", "jager", "expected a list"),
    ],
)
def test_a_wrong_type_inside_a_record_is_refused(field_name: str, value: Any, message: str) -> None:
    stored = _wakkerdam_stored()
    players = [dict(p) for p in stored["players"]]
    players[1][field_name] = value
    with pytest.raises(ValueError, match=message):
        get_ruleset("wakkerdam").load_state({**stored, "players": players})


def test_a_record_lacking_a_field_or_holding_a_str_subclass_loads_as_before() -> None:
    class Name(str):
        pass

    rs = get_ruleset("wakkerdam")
    stored = _wakkerdam_stored()
    state = rs.load_state(stored)
    players = [dict(p) for p in stored["players"]]
    del players[0]["due"], players[0]["missed"]
    players[1]["name"] = Name(players[1]["name"])
    players[1]["due"] = [Name("jager")]
    again = rs.load_state({**stored, "players": players})
    assert again.players[0] == replace(state.players[0], due=(), missed=0)
    assert again.players[1] == replace(state.players[1], due=("jager",))
    assert again.players[2:] == state.players[2:]


@dataclass(frozen=True)
class _DerivedFirst:
    derived: object = field(default=None, compare=False, metadata=NOT_STORED)
    name: str = ""
    count: int = 0
    tags: tuple[str, ...] = ()


def test_a_record_whose_stored_fields_do_not_lead_its_arguments_round_trips() -> None:
    codec = StateCodec(_DerivedFirst)
    value = _DerivedFirst(derived=object(), name="a", count=2, tags=("x",))
    assert codec.dump(value) == {"name": "a", "count": 2, "tags": ["x"]}
    assert codec.load({"name": "a", "count": 2, "tags": ["x"]}) == value
    assert codec.load({"count": 2}) == _DerivedFirst(count=2)
    with pytest.raises(ValueError, match="expected int"):
        codec.load({"name": "a", "count": False, "tags": []})


@dataclass(frozen=True)
class _Sparse:
    name: str
    weight: float = 1
    seen: tuple[str, ...] = ()
    inner: _WithDerived = field(default_factory=lambda: _WithDerived("x"))
    counts: dict[str, int] = field(default_factory=dict)
    late: bool = False


def test_a_record_is_written_without_its_fields_at_their_defaults_in_field_order() -> None:
    codec = StateCodec(_Sparse)
    assert codec.dump(_Sparse("a")) == {"name": "a"}
    value = _Sparse("a", seen=("b",), counts={"c": 1}, late=True)
    assert list(codec.dump(value).items()) == [
        ("name", "a"),
        ("seen", ["b"]),
        ("counts", {"c": 1}),
        ("late", True),
    ]
    assert codec.load(codec.dump(value)) == value
    # a factory's value counts as the default, and the record it makes is written sparse too
    inner = _Sparse("a", inner=_WithDerived("y"))
    assert codec.dump(inner) == {"name": "a", "inner": {"name": "y"}}
    assert codec.load({"name": "a"}) == _Sparse("a")
    # both forms load to equal values
    full = {"name": "a", "weight": 1, "seen": [], "inner": {"name": "x"}, "counts": {}}
    assert codec.load({**full, "late": False}) == codec.load({"name": "a"})


def test_a_value_equal_to_its_default_but_of_another_type_is_written() -> None:
    # the float 1.0 where the default is the int 1: left out, it would load as the int
    codec = StateCodec(_Sparse)
    dumped = codec.dump(_Sparse("a", weight=1.0))
    assert dumped == {"name": "a", "weight": 1.0}
    assert type(dumped["weight"]) is float
    assert type(codec.load(json.loads(json.dumps(dumped))).weight) is float
    assert type(codec.load({"name": "a"}).weight) is int  # the default itself


_made: list[int] = []


def _another_list() -> list[int]:
    _made.append(len(_made))
    return list(_made)


@dataclass(frozen=True)
class _Changing:
    name: str
    made: list[int] = field(default_factory=_another_list)


def test_a_field_whose_factory_gives_other_values_is_always_written() -> None:
    codec = StateCodec(_Changing)
    value = _Changing("a", made=[0])
    assert codec.dump(value) == {"name": "a", "made": [0]}


def test_a_sparse_record_with_a_wrong_type_is_refused_and_an_unknown_key_not_read() -> None:
    rs = get_ruleset("wakkerdam")
    stored = rs.dump_state(rs.load_state(_wakkerdam_stored()))
    players = [dict(p) for p in stored["players"]]
    assert players[1] == {"name": players[1]["name"], "role": players[1]["role"]}
    for field_name, value, message in [
        ("missed", True, "expected int"),
        ("alive", 1, "expected bool"),
        ("due", "jager", "expected a list"),
        ("last_choice", [3], "expected str"),
    ]:
        wrong = [*players[:1], {**players[1], field_name: value}, *players[2:]]
        with pytest.raises(ValueError, match=message):
            rs.load_state({**stored, "players": wrong})
    odd = [*players[:1], {**players[1], "hat": "tall"}, *players[2:]]
    assert rs.load_state({**stored, "players": odd}) == rs.load_state(stored)
    with pytest.raises(KeyError):
        rs.load_state({**stored, "players": [{"name": "Anna"}]})


@dataclass(frozen=True)
class _Checked:
    name: str
    seen: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "seen", tuple(sorted(self.seen)))


@dataclass(frozen=True)
class _Made:
    name: str
    counts: dict[str, int] = field(default_factory=dict)
    checked: _Checked = field(default_factory=lambda: _Checked("x"))
    late: bool = False
    derived: object = field(default=None, compare=False, metadata=NOT_STORED)
    cached: int = field(default=7, init=False)
    memo: dict[str, int] = field(default_factory=dict, compare=False, metadata=NOT_STORED)


@pytest.mark.parametrize(
    "data",
    [
        {"name": "a"},  # the sparse form
        {"name": "a", "counts": {"b": 1}, "checked": {"name": "y", "seen": ["z", "c"]}},
        {"name": "a", "counts": {}, "checked": {"name": "x", "seen": []}, "late": True},  # full
        {"name": "a", "memo": {"b": 1}},  # a field not stored: not read, its factory called
    ],
)
def test_a_record_loads_as_its_init_makes_it(data: dict[str, Any]) -> None:
    # the codec makes a record without its __init__ (rules/core/codec.py _record_reader): the
    # same fields, values and order as __init__ gives, a factory called for each record, and
    # the __init__ (and its __post_init__) of a record that has one
    codec = StateCodec(_Made)
    loaded = codec.load(data)
    checked = data.get("checked", {"name": "x"})
    made = _Made(
        data["name"],
        **({"counts": data["counts"]} if "counts" in data else {}),
        checked=_Checked(checked["name"], tuple(checked.get("seen", ()))),
        **({"late": data["late"]} if "late" in data else {}),
    )
    assert loaded == made
    assert list(vars(loaded).items()) == list(vars(made).items())
    assert loaded.checked.seen == tuple(sorted(checked.get("seen", ())))
    assert codec.load(data).counts is not loaded.counts  # a new dict for each record
    assert loaded.memo == {} and codec.load(data).memo is not loaded.memo
    with pytest.raises(KeyError, match="name"):
        codec.load({"late": True})  # a required field missing: __init__'s error


@dataclass(frozen=True, slots=True)
class _Slotted:
    name: str
    count: int = 0


@dataclass(frozen=True)
class _Holder:
    slotted: _Slotted
    checked: tuple[_Checked, ...] = ()


def test_a_record_with_slots_or_a_post_init_is_made_by_its_init() -> None:
    codec = StateCodec(_Holder)
    loaded = codec.load({"slotted": {"name": "a"}, "checked": [{"name": "b", "seen": ["d", "c"]}]})
    assert loaded == _Holder(_Slotted("a"), (_Checked("b", ("c", "d")),))
    assert loaded.slotted.count == 0 and loaded.checked[0].seen == ("c", "d")


def _played(ruleset_id: str, seed: int, players: int = 12) -> list[tuple[Any, Any]]:
    """(state, next state) pairs of a game played by its first choices: every vote (the next
    state made by ``with_votes``) and every step resolved (a state built anew)."""
    import random

    from rules.core.model import Accepted, Settings, Vote

    rs = get_ruleset(ruleset_id)
    rng = random.Random(seed)
    names = [f"P{seat:02d}" for seat in range(players)]
    seats = rs.deal(names, rs.pick_distribution(players, seed), seed)
    state = rs.new_game(seats, Settings(seed=seed, strictness=99))
    pairs = []
    for _ in range(12):
        if rs.view(state).over:
            break
        for voter in rs.asked(state):
            for action in rs.choices(state, voter).actions:
                if not action.targets:
                    continue
                keywords = frozenset({action.keyword} - {"", None})
                names = tuple(rng.sample(action.targets, max(action.min_names, 1)))
                verdict = rs.apply(state, Vote(voter, names, False, keywords))
                if isinstance(verdict, Accepted):
                    pairs.append((state, verdict.state))
                    state = verdict.state
        after = rs.resolve(state).state
        pairs.append((state, after))
        state = after
    return pairs


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_state_dumped_from_the_one_before_is_its_dump(ruleset_id: str) -> None:
    """``dump_state_from`` reuses the stored form of what a state shares with the one it was
    made from, and gives ``dump_state``'s dict, byte for byte in its key order, for every vote
    and every step of played games (the fields shared by a vote's state really are reused)."""
    rs = get_ruleset(ruleset_id)
    reused = 0
    for seed in (1, 2):
        pairs = _played(ruleset_id, seed)
        assert pairs
        for before, after in pairs:
            stored = json.loads(json.dumps(rs.dump_state(before)))  # as the row gives it back
            dumped = rs.dump_state_from(before, stored, after)
            assert json.dumps(dumped) == json.dumps(rs.dump_state(after))
            if "players" in stored and after.players is before.players:
                assert dumped["players"] is stored["players"]
                reused += 1
    assert reused  # the votes' states shared their players


def test_a_state_dumped_from_another_form_loads_the_same() -> None:
    """From the full form stored before the sparse one, the fields not changed keep that form
    (it loads the same); a field the stored form lacks is encoded."""
    rs = get_ruleset("wakkerdam")
    for stored in _stored("wakkerdam"):
        before = rs.load_state(stored)
        after = before.with_votes({before.players[0].name: ()})
        dumped = rs.dump_state_from(before, stored, after)
        assert rs.load_state(json.loads(json.dumps(dumped))) == after
        lacking = {key: value for key, value in stored.items() if key != "players"}
        assert rs.dump_state_from(before, lacking, after) == {
            **dumped,
            "players": rs.dump_state(after)["players"],
        }


def _fields_made(value: Any) -> list[tuple[str, Any]]:
    """A record's dataclass fields as its ``__dict__`` holds them, in that order (a
    ``cached_property`` it computed aside), a field the codec does not store as its kind."""
    names = {spec.name: _stored_field(spec) for spec in fields(value)}
    return [
        (name, item if names[name] else type(item))
        for name, item in vars(value).items()
        if name in names
    ]


def _stored_field(spec: Any) -> bool:
    return bool(spec.init and spec.metadata.get("stored", True) is not False)


def _same_records(loaded: Any, made: Any) -> None:
    """``loaded`` holds the records ``made`` holds, each with the same fields in its
    ``__dict__``, in the same order, of equal values (a field not stored: its default)."""
    if is_dataclass(made) and not isinstance(made, Settings):
        assert type(loaded) is type(made)
        got, want = _fields_made(loaded), _fields_made(made)
        assert [name for name, _ in got] == [name for name, _ in want]
        for (_, item), (_, wanted) in zip(got, want, strict=True):
            if isinstance(wanted, type):  # not stored: the load gives its default
                continue
            _same_records(item, wanted)
    elif isinstance(made, tuple | list):
        assert len(loaded) == len(made)
        for item, wanted in zip(loaded, made, strict=True):
            _same_records(item, wanted)
    elif isinstance(made, dict):
        assert list(loaded) == list(made)
        for key in made:
            _same_records(loaded[key], made[key])
    else:
        assert loaded == made


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_loaded_state_is_made_as_the_engine_makes_it(ruleset_id: str) -> None:
    """The codec makes its records without their ``__init__`` (rules/core/codec.py
    ``_record_reader``): from the sparse form and from the full one, every record of a state
    loaded has the fields the engine's record has, in its ``__dict__``'s order, of equal
    values, for every vote and every step of played games."""
    rs = get_ruleset(ruleset_id)
    for seed in (1, 2):
        for _, state in _played(ruleset_id, seed):
            sparse = json.loads(json.dumps(rs.dump_state(state)))
            for stored in (sparse, full_form(ruleset_id, state, sparse)):
                _same_records(rs.load_state(stored), state)
