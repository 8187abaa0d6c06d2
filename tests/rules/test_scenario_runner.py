"""The pure scenario runner and `narrator simulate`."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from narrator.cli import main
from rules import Vote
from rules.scenario import ScenarioError, run_scenario
from tests.rules.rules_helpers import RS, game
from tests.spec_ids import CAUSES

HERE = Path(__file__).resolve().parent / "scenarios"
BASE: dict[str, Any] = {
    "ruleset": "wakkerdam",
    "seed": 3,
    "mayor": False,
    "strictness": 1,
    "players": {"Wolf": "weerwolf", "Zien": "ziener, vrouw", "Anna": "burger"},
}


def test_transcript_lines_and_end_object() -> None:
    data = {
        **BASE,
        "steps": [{"step": "nacht", "votes": {"Wolf": ["Anna"], "Zien": ["Wolf"]}}],
        "expect_whatever": 1,
    }
    run = run_scenario(data)
    first, end = run.lines
    assert first == {
        "step": "nacht",
        "night": 1,
        "day": 0,
        "asked": ["Wolf", "Zien"],
        "votes": {"Wolf": ["Anna"], "Zien": ["Wolf"]},
        "events": [
            {"type": "seen", "player": "Zien", "target": "Wolf", "role": "weerwolf"},
            {"type": "death", "player": "Anna", "cause": "weerwolven"},
        ],
    }
    assert end == {
        "end": False,
        "winners": [],
        "teams": [],
        "alive": ["Wolf", "Zien"],
        "roles": {"Wolf": "weerwolf", "Zien": "ziener", "Anna": "burger"},
        "mayor": None,
    }
    assert len(run.traces) == 1 and any("attacks" in line for line in run.traces[0])


def test_invalid_votes_become_rejected_events() -> None:
    data = {**BASE, "steps": [{"step": "nacht", "votes": {"Anna": ["Wolf"], "Wolf": ["Wolf"]}}]}
    events = run_scenario(data).lines[0]["events"]
    assert events[:2] == [
        {"type": "rejected", "player": "Anna", "reason": "not-asked"},
        {"type": "rejected", "player": "Wolf", "reason": "pack-member"},
    ]


def test_until_end_plays_on_with_missed_votes() -> None:
    data = {**BASE, "until_end": True, "steps": [{"step": "nacht"}]}
    end = run_scenario(data).lines[-1]
    assert end["end"] is True and end["teams"] == ["burgers"]
    assert (
        run_scenario({**data, "until_end": False}, until_end=True).lines == run_scenario(data).lines
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": {"A": "koning", "B": "burger", "C": "weerwolf"}}, "unknown role"),
        ({"steps": [{"step": "brandstapel"}]}, "engine is at 'nacht'"),
        ({"steps": [{"step": "nacht", "votes": {"Nobody": []}}]}, "not a player"),
        ({"ruleset": "lupus-x", "steps": [{"step": "nacht"}]}, "unknown ruleset"),
    ],
)
def test_bad_scenarios_raise_scenario_error(change: dict[str, Any], message: str) -> None:
    data = {**BASE, "steps": [{"step": "nacht"}], **change}
    with pytest.raises(ScenarioError, match=message):
        run_scenario(data)


@pytest.mark.parametrize("path", sorted(HERE.glob("*.toml")), ids=lambda p: p.name)
def test_own_scenarios(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    run = run_scenario(data, until_end=bool(data.get("until_end")))
    events = [event for line in run.lines[:-1] for event in line["events"]]
    for pattern in data["expect"]["events"]:
        assert any(all(e.get(k) == v for k, v in pattern.items()) for e in events), pattern
    for key in ("end", "winners", "teams", "alive"):
        if key in data["expect"]:
            assert run.lines[-1][key] == data["expect"][key], key


def test_simulate_json_and_english(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        'ruleset = "wakkerdam"\nseed = 1\nstrictness = 9\n[players]\nWolf = "weerwolf"\n'
        'Anna = "burger"\nBram = "burger"\n[[steps]]\nstep = "nacht"\n'
        'votes = { Wolf = ["Anna"] }\n',
        encoding="utf-8",
    )
    assert main(["simulate", str(path), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["events"] == [{"type": "death", "player": "Anna", "cause": "weerwolven"}]
    assert lines[-1]["end"] is False
    assert main(["simulate", str(path)]) == 0
    assert "Anna dies (weerwolven)" in capsys.readouterr().out
    path.write_text('ruleset = "wakkerdam"\n[players]\nA = "x"\n', encoding="utf-8")
    assert main(["simulate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown role" in err


def test_random_games_stay_legal() -> None:
    """Random and invalid votes: the dead never act, deaths have causes, games end or go on."""
    roles = sorted(RS.roles)
    causes = CAUSES
    for seed in range(60):
        chance = random.Random(seed)
        cast = {f"P{i}": chance.choice(roles) for i in range(chance.randint(3, 14))}
        state = game(cast, mayor=chance.random() < 0.5, strictness=chance.randint(1, 3), seed=seed)
        names = list(cast)
        for _ in range(200):
            if state.is_over:
                break
            asked = RS.asked(state)
            assert len(asked) == len(set(asked))
            for name in chance.sample(names, len(names) // 2):
                targets = tuple(chance.sample(names, chance.randint(0, 2)))
                verdict = RS.apply(state, Vote(name, targets, not targets))
                if hasattr(verdict, "state"):
                    assert name in asked
                    state = verdict.state
            resolution = RS.resolve(state)
            for event in resolution.events:
                data = event.to_dict()
                if data["type"] == "death":
                    assert data["cause"] in causes
                    assert state.player(data["player"]).alive
            state = resolution.state
        assert state.is_over or state.step in RS.steps
