"""The Wakkerdam engine: steps, choices, rejection codes, night stages, deaths, wins, state."""

from __future__ import annotations

import json

import pytest

from rules import Seat, Settings, Vote
from rules.wakkerdam.night import NightContext, collect_acts, stage_beds, stage_swaps
from rules.wakkerdam.state import GameState
from rules.wakkerdam.wins import check
from tests.rules.rules_helpers import RS, game, rejection, step, vote

VILLAGE = {
    "Wolf": "weerwolf",
    "Witte": "witte_weerwolf",
    "Heks": "heks",
    "Gen": "genezer",
    "Anna": "burger",
    "Bram": "burger",
    "Carla": "burger",
}


def test_start_steps_run_in_order_then_night_one() -> None:
    state = game(
        {
            "Dief": "dief",
            "Cupi": "cupido",
            "Opa": "opdrachtgever",
            "Wolf": "weerwolf",
            "Anna": "burger",
        }
    )
    seen = []
    while state.night == 0:
        seen.append(state.step)
        state, _ = step(state)
    assert seen == ["dief", "cupido", "opdrachtgever"]
    assert (state.step, state.night, state.day) == ("nacht", 1, 0)


def test_missed_thief_becomes_burger_and_thief_takes_role() -> None:
    state = game({"Dief": "dief", "DiefB": "dief", "Wolf": "weerwolf", "Anna": "ziener"})
    state, events = step(state, {"DiefB": ["Anna"]})
    assert {"type": "role_change", "player": "DiefB", "role": "ziener"} in events
    assert {"type": "role_change", "player": "Anna", "role": "burger"} in events
    assert {"type": "role_change", "player": "Dief", "role": "burger"} in events


def test_rejection_codes() -> None:
    state = game(VILLAGE)
    assert rejection(state, "Anna", "Bram") == "not-asked"
    assert rejection(state, "Wolf", "Nobody") == "unknown-player"
    assert rejection(state, "Wolf", "Witte") == "pack-member"
    assert rejection(state, "Wolf", "Anna", "Bram") == "wrong-count"
    assert rejection(state, "Witte", "Wolf", keyword="witte") == "no-special-vote"  # night 1
    assert rejection(state, "Gen", "Gen") == ""
    state = vote(state, "Gen", "Gen")
    state, _ = step(state, {"Wolf": ["Anna"]})  # heks step: Anna is wounded
    assert state.step == "heks"
    assert rejection(state, "Heks", "Anna", "Bram") == ""
    assert rejection(state, "Heks", "Bram", "Carla") == "not-wounded"
    state, _ = step(state, {"Heks": ["Bram"]})  # poison Bram; Anna dies
    assert state.step == "brandstapel"
    assert rejection(state, "Anna", "Wolf") == "not-asked"
    state, _ = step(state)
    # night 2: witte may kill alone, the genezer may not repeat, potion gone, dead targets
    assert state.step == "nacht" and state.night == 2
    assert rejection(state, "Gen", "Gen") == "repeat"
    assert rejection(state, "Wolf", "Anna") == "target-dead"
    assert rejection(state, "Witte", "Witte", keyword="witte") == "target-self"
    assert rejection(state, "Witte", "Wolf", keyword="witte") == ""
    assert rejection(state, "Wolf", "Carla", "Carla") == "wrong-count"


def test_more_rejection_codes() -> None:
    state = game(
        {
            "Cupi": "cupido",
            "CupiB": "cupido",
            "Wolf": "weerwolf",
            "Anna": "burger",
            "Bram": "burger",
        }
    )
    assert rejection(state, "Cupi", "Anna", "Anna") == "duplicate-target"
    state = vote(state, "Cupi", "Anna", "Bram")
    assert rejection(state, "CupiB", "Anna", "Wolf") == "taken"
    state = vote(state, "Cupi", "Wolf", "Bram")  # a changed vote frees Anna
    assert rejection(state, "CupiB", "Anna", "Cupi") == ""
    assert rejection(state, "CupiB", "Anna", keyword="burgemeester") == "wrong-count"


def test_fluitspeler_and_grafrover_codes() -> None:
    state = game(
        {
            "Fluit": "fluitspeler",
            "FluitB": "fluitspeler",
            "Graf": "grafrover",
            "Wolf": "weerwolf",
            "Anna": "burger",
            "Bram": "burger",
            "Carla": "burger",
        }
    )
    state, _ = step(state, {"Wolf": ["Anna"]})
    assert state.step == "heks"
    assert rejection(state, "Fluit", "FluitB") == "target-fluitspeler"
    state, _ = step(state, {"Fluit": ["Bram"], "FluitB": ["Bram"]})
    assert state.step == "brandstapel"
    state, _ = step(state)
    assert state.step == "grafrover"
    assert rejection(state, "Graf", "Bram") == "target-alive"
    assert rejection(state, "Graf", "Anna") == ""
    state, _ = step(state)
    state, _ = step(state)  # nacht
    assert rejection(state, "Fluit", "Bram") == "target-enchanted"


def test_lynch_codes_weights_and_fool() -> None:
    state = game(
        {
            "Schout": "schout",
            "Gek": "dorpsgek",
            "Wolf": "weerwolf",
            "Anna": "burger",
            "Bram": "burger",
            "Warn": "waarschuwer",
        },
        mayor=True,
    )
    state, _ = step(state, {"Wolf": ["Bram"]})  # nacht: Bram dies
    assert state.step == "ochtend"
    state, events = step(state, {"Schout": ["Anna"], "Warn": ["Wolf"]})
    assert {"type": "jailed", "player": "Anna"} in events
    assert state.step == "burgemeesterverkiezing"
    state, events = step(state, {"Wolf": ["Wolf"], "Anna": ["Wolf"]})
    assert {"type": "mayor", "player": "Wolf", "via": "election"} in events
    assert rejection(state, "Schout", "Anna") == "target-jailed"
    assert rejection(state, "Anna", "Wolf") == "not-asked"
    state, events = step(state, {"Wolf": ["Gek"], "Schout": ["Warn"]})
    # a warned mayor's vote weighs 3
    assert {"type": "lynch", "player": "Gek", "totals": {"Gek": 3, "Warn": 1}} in events
    assert {"type": "fool_revealed", "player": "Gek"} in events
    state, _ = step(state)  # nacht 2
    while state.step != "brandstapel":
        state, _ = step(state)
    assert rejection(state, "Anna", "Gek") == "target-fool"
    assert "Gek" not in RS.asked(state)


def test_choices_give_what_a_step_mail_needs() -> None:
    state = game(VILLAGE)
    wolf = RS.choices(state, "Wolf")
    assert wolf.is_asked and wolf.max_names == 1 and wolf.blanco
    assert "Witte" not in wolf.targets and "Anna" in wolf.targets
    state = vote(state, "Gen", "Anna")
    state, _ = step(state, {"Wolf": ["Bram"]})
    heks = RS.choices(state, "Heks")
    main = heks.actions[0]
    assert main.extra == {"wounded": ["Bram"], "elixir": True, "poison": True}
    assert main.min_names == 0 and main.max_names == 2 and "Bram" in heks.targets
    state, _ = step(state, {"Heks": ["Bram"]})  # elixir used
    state, _ = step(state)  # brandstapel
    assert state.step == "nacht" and state.night == 2
    assert RS.choices(state, "Gen").actions[0].previous == ("Anna",)
    assert "Anna" not in RS.choices(state, "Gen").targets
    witte = RS.choices(state, "Witte")
    assert witte.keywords == ("witte",) and "Wolf" in witte.actions[1].targets
    assert not RS.choices(state, "Anna").is_asked


def test_dead_mayor_jager_needs_the_keyword_for_his_testament() -> None:
    state = game(
        {
            "Jager": "jager",
            "Wolf": "weerwolf",
            "Anna": "burger",
            "Bram": "burger",
            "Carla": "burger",
        },
        mayor=True,
    )
    state, _ = step(state, {"Wolf": ["Anna"]})
    state, _ = step(state, {"Jager": ["Jager"], "Wolf": ["Jager"], "Bram": ["Jager"]})
    state, _ = step(state)  # lynch: nobody
    state, _ = step(state, {"Wolf": ["Jager"]})
    assert state.step == "doden"
    choices = RS.choices(state, "Jager")
    assert [(a.action, a.keyword) for a in choices.actions] == [
        ("jager", None),
        ("testament", "burgemeester"),
    ]
    state, events = step(state, {"Jager": ["Wolf"], "Jager:burgemeester": ["Bram"]})
    assert {"type": "death", "player": "Wolf", "cause": "jager"} in events
    assert {"type": "mayor", "player": "Bram", "via": "testament"} in events


def _night_context(roles: dict[str, str], votes: dict[str, list[str]]) -> NightContext:
    state = game(roles)
    for name, targets in votes.items():
        state = vote(state, name, *targets)
    return NightContext(state=state, acts=collect_acts(state), draws=state.draws)


def test_bed_stage_moves_slet_and_lured_players() -> None:
    ctx = _night_context(
        {
            "Slet": "slet",
            "Ver": "verleidster",
            "VerB": "verleidster",
            "Wolf": "weerwolf",
            "Anna": "burger",
            "Bram": "burger",
        },
        {"Slet": ["Anna"], "Ver": ["Bram"], "VerB": ["Bram"]},
    )
    ctx, lines = stage_beds(ctx)
    assert ctx.beds == {"Slet": "Anna", "Bram": None}
    assert lines


def test_swaps_compose_in_seat_order() -> None:
    ctx = _night_context(
        {
            "GoA": "goochelaar",
            "GoB": "goochelaar",
            "Wolf": "weerwolf",
            "Anna": "burger",
            "Bram": "burger",
            "Carla": "burger",
        },
        {"GoA": ["Anna", "Bram"], "GoB": ["Bram", "Carla"]},
    )
    ctx, _ = stage_swaps(ctx)
    # aimed at Anna -> Bram's bed -> (second swap) Carla's bed
    assert ctx.redirect["Anna"] == "Carla"
    assert ctx.redirect["Carla"] == "Bram"
    assert ctx.redirect["Bram"] == "Anna"


def test_bodyguard_substitution_is_in_the_wounded_list() -> None:
    state = game(
        {
            "Opa": "opdrachtgever",
            "Guard": "burger",
            "Wolf": "weerwolf",
            "Heks": "heks",
            "Anna": "burger",
        }
    )
    state, events = step(state, {"Opa": ["Guard"]})
    assert {"type": "bodyguard", "player": "Guard", "guards": "Opa"} in events
    state, _ = step(state, {"Wolf": ["Opa"]})
    assert state.wounded == (("Guard", "lijfwacht"),)
    assert RS.choices(state, "Heks").actions[0].extra["wounded"] == ["Guard"]


def test_lovers_grief_welp_promotion_and_elder() -> None:
    state = game(
        {
            "Cupi": "cupido",
            "Wolf": "weerwolf",
            "Welp": "welp",
            "Oud": "dorpsoudste",
            "Ziener": "ziener",
            "Anna": "burger",
        }
    )
    state, _ = step(state, {"Cupi": ["Wolf", "Oud"]})
    state, events = step(state, {"Wolf": ["Oud"]})  # the elder survives his first attack
    assert {"type": "saved", "player": "Oud", "extra_life": True} in events  # her extra life spent
    state, events = step(state, {"Anna": ["Oud"], "Oud": ["Wolf"], "Cupi": ["Oud"]})
    deaths = [event for event in events if event["type"] == "death"]
    assert deaths == [
        {"type": "death", "player": "Oud", "cause": "brandstapel"},
        {"type": "death", "player": "Wolf", "cause": "liefdesverdriet"},
    ]
    assert {"type": "role_change", "player": "Welp", "role": "weerwolf"} in events
    assert {"type": "role_change", "player": "Ziener", "role": "burger"} in events
    assert {"type": "role_change", "player": "Cupi", "role": "burger"} in events


def test_inactivity_kills_at_strictness() -> None:
    state = game(
        {"Wolf": "weerwolf", "Anna": "burger", "Bram": "burger", "Carla": "burger"}, strictness=2
    )
    state, events = step(state)
    assert events == [{"type": "inactive", "player": "Wolf", "missed": 1}]
    state, events = step(state, {"Anna": [], "Bram": [], "Carla": []})
    assert {"type": "inactive", "player": "Wolf", "missed": 2} in events
    assert {"type": "death", "player": "Wolf", "cause": "inactiviteit"} in events
    assert events[-1] == {"type": "win", "teams": ["burgers"], "winners": ["Anna", "Bram", "Carla"]}
    assert state.is_over and state.step is None


def test_mixed_lovers_and_bodyguard_pairs_win_together() -> None:
    state = game({"Wolf": "weerwolf", "Anna": "burger", "Bram": "burger"})
    players = list(state.players)
    players[0] = players[0].__class__(**{**players[0].__dict__, "lover": "Anna"})
    players[1] = players[1].__class__(**{**players[1].__dict__, "lover": "Wolf"})
    players[2] = players[2].__class__(**{**players[2].__dict__, "alive": False})
    outcome = check(players)
    assert outcome.over and outcome.teams == ("lovers",) and outcome.winners == ("Wolf", "Anna")
    guard = players[0].__class__(**{**players[0].__dict__, "lover": None, "guards": "Anna"})
    principal = players[1].__class__(**{**players[1].__dict__, "lover": None, "bodyguard": "Wolf"})
    outcome = check([guard, principal, players[2]])
    assert outcome.teams == ("bodyguard",) and outcome.winners == ("Wolf", "Anna")
    nobody = [p.__class__(**{**p.__dict__, "alive": False}) for p in players]
    assert check(nobody).over and check(nobody).winners == ()


def test_state_round_trips_through_json() -> None:
    state = game(
        {
            "Cupi": "cupido",
            "Wolf": "weerwolf",
            "Heks": "heks",
            "Gen": "genezer",
            "Anna": "burger",
            "Bram": "burger",
        },
        mayor=True,
    )
    state, _ = step(state, {"Cupi": ["Anna", "Bram"]})
    state, _ = step(state, {"Wolf": ["Anna"], "Gen": ["Bram"]})
    state = vote(state, "Heks", "Wolf")
    dumped = RS.dump_state(state)
    loaded = RS.load_state(json.loads(json.dumps(dumped)))
    assert loaded == state
    assert RS.resolve(loaded) == RS.resolve(state)


def test_seed_and_votes_replay_exactly() -> None:
    def play(seed: int) -> list[object]:
        seats = [
            Seat(f"P{i}", role)
            for i, role in enumerate(
                ["dwaas", "weerwolf", "zondebok", "zondebok", "burger", "burger"]
            )
        ]
        state = RS.new_game(seats, Settings(seed=seed, options={"mayor": False}, strictness=9))
        out = []
        for _ in range(6):
            if state.is_over:
                break
            if state.step == "nacht":
                state = RS.apply(state, Vote("P0", ("P1",))).state
            res = RS.resolve(state)
            out.append([e.to_dict() for e in res.events])
            state = res.state
        return out

    assert play(5) == play(5)
    assert any(play(seed) != play(5) for seed in range(6, 16))


def test_new_game_rejects_bad_seats() -> None:
    with pytest.raises(ValueError):
        RS.new_game([Seat("A", "burger"), Seat("B", "burger")], Settings())
    with pytest.raises(ValueError):
        RS.new_game([Seat("A", "burger"), Seat("a", "burger"), Seat("C", "weerwolf")], Settings())
    with pytest.raises(ValueError):
        RS.new_game([Seat("A", "koning"), Seat("B", "burger"), Seat("C", "weerwolf")], Settings())


def test_start_events_tell_roles_and_mates() -> None:
    state: GameState = game(
        {
            "Wolf": "weerwolf",
            "Witte": "witte_weerwolf",
            "Welp": "welp",
            "Dwaas": "dwaas",
            "Anna": "burger",
        }
    )
    infos = {e.player: e for e in RS.start_events(state)}  # type: ignore[attr-defined]
    assert infos["Wolf"].mates == ("Witte",) and infos["Witte"].mates == ("Wolf",)
    assert infos["Welp"].mates == () and infos["Dwaas"].role == "ziener"


def test_a_cast_blanco_resets_the_missed_counter() -> None:
    state = game(
        {"Wolf": "weerwolf", "Anna": "burger", "Bram": "burger", "Carla": "burger"}, strictness=2
    )
    state, _ = step(state)
    state, _ = step(state, {"Wolf": [], "Anna": [], "Bram": [], "Carla": []})
    state, events = step(state)
    assert events == [{"type": "inactive", "player": "Wolf", "missed": 1}]
    assert state.player("Wolf").alive
