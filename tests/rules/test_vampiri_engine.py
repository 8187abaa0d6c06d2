"""Unit tests of the vampiri engine for what scenario files cannot express: keyword conflicts,
refused tables, distributions and the deal, choices, start events, audiences, state dumps."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import Accepted, Rejected, Seat, Settings, Vote, get_ruleset
from rules.core.events import AudienceKind, event_fields
from rules.vampiri.state import GameState
from tests import spec_ids_vampiri as doc

RS = get_ruleset("vampiri")

CAST = (
    ("Anna", "re"),
    ("Bruno", "lamia"),
    ("Carla", "regina"),
    ("Dario", "vampiro"),
    ("Elena", "vampiro"),
    ("Fabio", "monaco"),
    ("Gina", "esploratore"),
    ("Hugo", "cacciatore"),
    ("Ilaria", "licantropo"),
    ("Luca", "kitsune"),
)

# docs/rules/vampiri.md, "Distributions": the table for 6 to 20 players, written out.
TABLE = {
    6: "lamia, 4 vampiro, 1 cacciatore",
    7: "signore, 4 vampiro, esploratore, 1 cacciatore",
    8: "signore, lamia, 4 vampiro, esploratore, 1 cacciatore",
    9: "signore, lamia, 5 vampiro, esploratore, 1 cacciatore",
    10: "signore, lamia, 6 vampiro, esploratore, 1 cacciatore",
    11: "signore, lamia, 6 vampiro, esploratore, 2 cacciatore",
    12: "signore, lamia, regina, 6 vampiro, esploratore, 2 cacciatore",
    13: "signore, lamia, regina, 7 vampiro, esploratore, 2 cacciatore",
    14: "signore, lamia, regina, 7 vampiro, esploratore, leader, 2 cacciatore",
    15: "signore, lamia, regina, 8 vampiro, esploratore, leader, 2 cacciatore",
    16: "signore, lamia, regina, nosferatu, 8 vampiro, esploratore, leader, 2 cacciatore",
    17: "signore, lamia, regina, nosferatu, 9 vampiro, esploratore, leader, 2 cacciatore",
    18: "signore, lamia, regina, nosferatu, 9 vampiro, esploratore, leader, 3 cacciatore",
    19: "signore, lamia, regina, nosferatu, 10 vampiro, esploratore, leader, 3 cacciatore",
    20: "signore, lamia, regina, nosferatu, banshee, 10 vampiro, esploratore, leader, 3 cacciatore",
}
LUPO = {
    10: "signore, lamia, 5 vampiro, esploratore, 1 cacciatore, lupo_mannaro",
    11: "signore, lamia, 5 vampiro, esploratore, 2 cacciatore, lupo_mannaro",
    12: "signore, lamia, 6 vampiro, esploratore, 2 cacciatore, lupo_mannaro",
    13: "signore, lamia, regina, 6 vampiro, esploratore, 2 cacciatore, lupo_mannaro",
    14: "signore, lamia, regina, 7 vampiro, esploratore, 2 cacciatore, lupo_mannaro",
    15: "signore, lamia, regina, 7 vampiro, esploratore, leader, 2 cacciatore, lupo_mannaro",
    16: "signore, lamia, regina, 8 vampiro, esploratore, leader, 2 cacciatore, lupo_mannaro",
    17: "signore, lamia, regina, nosferatu, 8 vampiro, esploratore, leader, 2 cacciatore,"
    " lupo_mannaro",
    18: "signore, lamia, regina, nosferatu, 8 vampiro, esploratore, leader, 3 cacciatore,"
    " lupo_mannaro",
    19: "signore, lamia, regina, nosferatu, 9 vampiro, esploratore, leader, 3 cacciatore,"
    " lupo_mannaro",
    20: "signore, lamia, regina, nosferatu, 10 vampiro, esploratore, leader, 3 cacciatore,"
    " lupo_mannaro",
}


def counts(text: str) -> Counter[str]:
    """Parse the document's "signore, 4 vampiro, ..." into role -> count."""
    result: Counter[str] = Counter()
    for part in text.split(","):
        words = part.split()
        result[words[-1]] += int(words[0]) if len(words) == 2 else 1
    return result


def seats(cast: tuple[tuple[str, str], ...] = CAST) -> list[Seat]:
    return [Seat(name=name, role=role) for name, role in cast]


def game(cast: tuple[tuple[str, str], ...] = CAST, **options: bool) -> GameState:
    state: GameState = RS.new_game(seats(cast), Settings(seed=1, strictness=9, options=options))
    return state


def to_day(state: GameState) -> GameState:
    """Resolve the night with no votes (nobody named): the state at giorno."""
    state = RS.resolve(state).state
    assert RS.view(state).step == "giorno"
    return state


def code(state: GameState, vote: Vote) -> str:
    verdict = RS.apply(state, vote)
    return verdict.code if isinstance(verdict, Rejected) else "accepted"


# --------------------------------------------------------------------------- votes


def test_lamia_keywords_conflict() -> None:
    day = to_day(game())
    both = Vote("Bruno", ("Hugo",), keywords=frozenset({"visita", "ospita"}))
    assert code(day, both) == "keyword-conflict"


def test_decisione_keywords_conflict_and_no_special_vote_first() -> None:
    state = game()
    for _tie_step in ("votazione", "spareggio"):
        state = accepted_state(RS.apply(state, Vote("Anna", ("Hugo",))))
        state = accepted_state(RS.apply(state, Vote("Hugo", ("Anna",))))
        state = RS.resolve(state).state
    assert RS.view(state).step == "decisione"
    both = Vote("Dario", keywords=frozenset({"condanna", "risparmia"}), blanco=True)
    assert code(state, both) == "keyword-conflict"
    odd = Vote("Dario", keywords=frozenset({"condanna", "caccia"}), blanco=True)
    assert code(state, odd) == "no-special-vote"
    assert code(state, Vote("Dario", keywords=frozenset({"CONDANNA"}), blanco=True)) == "accepted"


def accepted_state(verdict: Accepted[GameState] | Rejected) -> GameState:
    assert isinstance(verdict, Accepted), verdict
    return verdict.state


def test_not_asked_for_strangers_and_after_the_end() -> None:
    state = game()
    assert code(state, Vote("Nessuno", ("Anna",))) == "not-asked"
    assert code(state, Vote("anna", ("hugo",))) == "accepted"
    guardie = game((("Anna", "vampiro"), ("Bruno", "vampiro"), ("Carla", "cacciatore")))
    over = RS.resolve(guardie).state
    assert RS.view(over).over
    assert code(over, Vote("Anna", ("Carla",))) == "not-asked"
    with pytest.raises(ValueError):
        RS.resolve(over)


def test_blank_and_name_together_is_wrong_count() -> None:
    assert code(game(), Vote("Anna", ("Hugo",), blanco=True)) == "wrong-count"


# --------------------------------------------------------------------------- choices


def test_choices_describe_every_day_vote() -> None:
    day = to_day(game(wolf_den=True))
    lamia = RS.choices(day, "Bruno")
    assert [(a.action, a.keyword) for a in lamia.actions] == [
        ("visita", "visita"),
        ("ospita", "ospita"),
    ]
    assert all(a.extra["slot"] == "lamia" and a.extra["must"] for a in lamia.actions)
    assert "Bruno" not in lamia.actions[0].targets
    monaco = RS.choices(day, "Fabio")
    assert [(a.action, a.keyword) for a in monaco.actions] == [
        ("monaco", None),
        ("caccia", "caccia"),
    ]
    assert not monaco.actions[0].blanco and monaco.actions[1].blanco
    assert "Gina" not in monaco.actions[1].targets  # a group member (target-ally)
    hunter = RS.choices(day, "Hugo")
    assert hunter.actions[0].keyword is None and hunter.actions[0].extra["also"] == ["caccia"]
    wolf = RS.choices(day, "Ilaria")
    assert [a.keyword for a in wolf.actions] == [None, "agguato"]
    assert "Luca" not in wolf.actions[0].targets  # the other werewolf
    assert not RS.choices(day, "Dario").is_asked


def test_choices_of_the_night_and_all_voted() -> None:
    state = game()
    vote = RS.choices(state, "Anna").actions[0]
    assert vote.extra["approval"] and vote.blanco and vote.max_names == len(CAST) - 1
    assert not RS.all_voted(state)
    for name, _role in CAST:
        state = accepted_state(RS.apply(state, Vote(name, blanco=True)))
    assert RS.all_voted(state)
    day = RS.resolve(state).state
    for name in RS.asked(day):
        slots_done: set[object] = set()
        for action in RS.choices(day, name).actions:
            if action.extra["slot"] in slots_done or (name, action.keyword) == ("Fabio", "caccia"):
                continue
            slots_done.add(action.extra["slot"])
            keywords = frozenset({action.keyword}) if action.keyword else frozenset()
            targets = (action.targets[0],) if action.max_names else ()
            day = accepted_state(
                RS.apply(day, Vote(name, targets, blanco=not targets, keywords=keywords))
            )
    assert not RS.all_voted(day), "the Monaco's hunters' vote is still missing"
    day = accepted_state(RS.apply(day, Vote("Fabio", blanco=True, keywords=frozenset({"caccia"}))))
    assert RS.all_voted(day)


# --------------------------------------------------------------------------- start


@pytest.mark.parametrize(
    "cast",
    [
        (
            ("Anna", "vampiro"),
            ("Bruno", "vampiro"),
            ("Carla", "cacciatore"),
            ("Dario", "cacciatore"),
        ),
        tuple((n, r) for n, r in CAST[:5]),
        (*CAST[:9], ("Luca", "conte")),
        (*CAST[:9], ("Luca", "lamia")),
        (*CAST[:9], ("Luca", "signore")),
        (*CAST[:9], ("Luca", "ondina")),
        (*CAST[:9], ("Luca", "strega")),
        (*CAST[:9], ("anna", "vampiro")),
        (("Anna", "vampiro"), ("Bruno", "cacciatore"), ("Carla", "cacciatore")),
    ],
)
def test_refused_tables(cast: tuple[tuple[str, str], ...]) -> None:
    with pytest.raises(ValueError):
        RS.new_game(seats(cast), Settings())


@pytest.mark.parametrize(
    "options",
    [{"mayor": True}, {"wolf_den": "yes"}, {"speed": 3}, {"undercover": True}],
)
def test_refused_settings(options: dict[str, object]) -> None:
    cast = tuple((n, "cacciatore" if r in ("esploratore",) else r) for n, r in CAST)
    with pytest.raises(ValueError):
        RS.new_game(seats(cast), Settings(options=options))  # type: ignore[arg-type]


def test_mayor_false_is_accepted() -> None:
    assert RS.view(game(mayor=False)).facts["mayor"] is None


def test_role_mails_tell_the_group_and_the_werewolves() -> None:
    start = {e.to_dict().get("player"): e.to_dict() for e in RS.start_events(game())}
    assert start["Hugo"]["mates"] == ["Fabio", "Gina"]
    assert start["Ilaria"]["mates"] == ["Luca"] and start["Luca"]["mates"] == ["Ilaria"]
    assert start["Anna"]["mates"] == [] and start["Anna"]["category"] == "vampiro_maggiore"
    tourist = {
        e.to_dict().get("player"): e.to_dict() for e in RS.start_events(game(tourist_hunters=True))
    }
    assert tourist["Hugo"]["mates"] == []
    hidden = {
        e.to_dict().get("player"): e.to_dict() for e in RS.start_events(game(undercover=True))
    }
    assert hidden["Gina"]["undercover"] and hidden["Gina"]["mates"] == []
    assert hidden["Hugo"]["mates"] == ["Fabio"]


def test_composition_hides_drawn_lord_and_werewolf() -> None:
    plain = RS.start_events(game())[-1].to_dict()
    assert plain["teams"] == {"vampiri": 5, "cacciatori": 3, "lupi_mannari": 2}
    assert "re" in plain["specials"] and "licantropo" in plain["specials"]
    secret = RS.start_events(game(secret_lord=True, secret_werewolf=True))[-1].to_dict()
    assert "re" not in secret["specials"] and "signore" in secret["specials"]
    assert secret["specials"].count("lupo_mannaro") == 2


# --------------------------------------------------------------------------- distributions


@pytest.mark.parametrize("players", sorted(TABLE))
def test_table_distributions(players: int) -> None:
    by_id = {d.id: d for d in RS.distributions}
    assert Counter(by_id[f"tabella-{players}"].roles) == counts(TABLE[players])
    if players in LUPO:
        assert Counter(by_id[f"lupo-{players}"].roles) == counts(LUPO[players])
    else:
        assert f"lupo-{players}" not in by_id


@pytest.mark.parametrize("players", [4, 5, 2, 1001])
def test_no_distribution_for_refused_counts(players: int) -> None:
    with pytest.raises(ValueError):
        RS.pick_distribution(players, 1)


def test_pick_distribution_by_seed() -> None:
    assert RS.pick_distribution(3, 9).id == "guardie-3"
    assert {RS.pick_distribution(12, seed).id for seed in range(40)} == {"tabella-12", "lupo-12"}
    assert {RS.pick_distribution(8, seed).id for seed in range(20)} == {"tabella-8"}


@pytest.mark.parametrize("players", [21, 35, 100, 1000])
def test_large_tables_follow_the_formulas(players: int) -> None:
    for seed in range(4):
        distribution = RS.pick_distribution(players, seed)
        roles = Counter(distribution.roles)
        hunters = sum(roles[r] for r in ("cacciatore", "esploratore", "leader", "monaco", "bella"))
        assert hunters == 2 * players // 7
        assert roles["signore"] == 1
        vampires = players - hunters - roles["lupo_mannaro"]
        special = sum(roles[r] for r in ("lamia", "regina", "nosferatu", "banshee"))
        assert special == min(4, vampires // 3 - 1)
        assert hunters - roles["cacciatore"] == min(4, hunters // 2)
        dealt = RS.deal([f"P{i}" for i in range(players)], distribution, seed)
        RS.new_game(dealt, Settings(options=dict(distribution.options)))


def test_presets() -> None:
    by_id = {d.id: d for d in RS.distributions}
    assert by_id["tana-10"].options == {"wolf_den": True}
    assert by_id["copertura-10-bella"].options["undercover"] is True
    assert Counter(by_id["invasione-11-monaco"].roles)["monaco"] == 1
    assert Counter(by_id["classica-13-conte"].roles) == counts(
        "conte, lamia, regina, 6 vampiro, esploratore, leader, cacciatore, licantropo"
    )
    assert all(not d.options.get("secret_lord") for d in by_id.values() if "signore" not in d.roles)


def test_deal_draws_placeholders() -> None:
    distribution = next(d for d in RS.distributions if d.id == "lupo-12")
    drawn = {
        seat.role
        for seed in range(30)
        for seat in RS.deal([f"P{i}" for i in range(12)], distribution, seed)
    }
    assert {"re", "principe", "conte", "licantropo", "kitsune"} <= drawn
    assert not {"signore", "lupo_mannaro"} & drawn
    names = [("Anna", "donna"), *((f"P{i}", None) for i in range(11))]
    first = RS.deal(names, distribution, 5)
    assert first == RS.deal(names, distribution, 5)
    assert first[0].name == "Anna" and first[0].gender == "donna"
    two = next(d for d in RS.distributions if d.id == "invasione-11")
    assert "kitsune" in two.roles and "licantropo" in two.roles


# --------------------------------------------------------------------------- audiences, dumps


def test_lone_hunter_tells_nobody() -> None:
    day = to_day(game(lone_hunter=True))
    day = accepted_state(RS.apply(day, Vote("Hugo", ("Dario",))))
    hunt = next(e for e in RS.resolve(day).events if e.type == "hunt")
    assert RS.recipients(day, hunt.audience) == frozenset()
    shared = to_day(game())
    hunt = next(e for e in RS.resolve(shared).events if e.type == "hunt")
    assert RS.recipients(shared, hunt.audience) == frozenset({"Fabio", "Gina", "Hugo"})
    assert hunt.audience.kind is AudienceKind.PLAYERS


def test_dump_and_load_round_trip_and_refuse_other_rulesets() -> None:
    state = to_day(game(wolf_den=True))
    state = accepted_state(
        RS.apply(state, Vote("Ilaria", blanco=True, keywords=frozenset({"agguato"})))
    )
    data = RS.dump_state(state)
    assert RS.load_state(data) == state
    with pytest.raises(ValueError):
        RS.load_state({**data, "ruleset": "wakkerdam"})
    assert RS.view(state).votes == {"Ilaria:agguato": ()}
    assert RS.told_role(state, "ilaria") == "licantropo" and RS.told_role(state, "X") is None


# --------------------------------------------------------------------------- ids


def test_ids_are_those_of_the_rules_document() -> None:
    assert set(RS.roles) == doc.ROLE_IDS
    assert RS.steps == ("votazione", "spareggio", "decisione", "giorno")
    assert set(RS.steps) == doc.STEP_IDS
    assert set(RS.causes) == doc.CAUSES
    assert set(RS.teams) == doc.TEAMS
    assert set(RS.keywords) == doc.KEYWORDS
    assert set(RS.options) >= doc.OPTIONS
    assert all(RS.options[key] is False for key in RS.options)
    assert {kind: set(event_fields(cls)) for kind, cls in RS.event_types.items()} == {
        kind: set(fields) for kind, fields in doc.EVENT_FIELDS.items()
    }
    assert all(cls.type == kind for kind, cls in RS.event_types.items())
