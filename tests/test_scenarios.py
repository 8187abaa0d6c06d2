"""Runs every rules scenario (`tests/scenarios/**/*.toml`) and checks its expectations.

A scenario is the file format of `spec/interfaces.md` section 3. Expectations live in keys the
engine's runner ignores (they all start with `expect`):

Per `[[steps]]` table:
- `expect_events`: patterns; each must match at least one event of that step. A pattern matches
  an event when every key of the pattern equals the event's field (lists and dicts exactly).
- `expect_no_events`: patterns that no event of that step may match.
- `expect_only = true`: the step's events are exactly `expect_events` (a multiset, any order).
- `expect_asked`: the exact list of players asked in that step.

Top level `[expect]`: `end` (bool), `winners`, `teams`, `alive` (exact lists), `roles` (partial:
only the players listed are checked), `mayor` (a name; `""` means no mayor), `steps` (the exact
list of step names of the transcript), `events` / `no_events` (patterns over all steps).

A top-level `until_end = true` runs the game on with every vote missed until it ends.

A ruleset whose transcript opens with a start line (`{"start": true, ...}`, Lupus) has it kept
apart from the step lines; a top-level `expect_start_events` lists patterns that must each match
one of its events.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from rules import scenario
from rules.scenario import SCENARIO_GENDERS, run_scenario
from tests.spec_ids import SpecIds, spec_ids

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.toml"))
IDS = [str(path.relative_to(SCENARIOS)) for path in FILES]
RULESETS = sorted({path.relative_to(SCENARIOS).parts[0] for path in FILES})

SETTINGS_KEYS = frozenset(
    {"ruleset", "seed", "strictness", "players", "steps", "until_end"}
    | {"close_early", "reveal_roles", "speed"}
)
STEP_KEYS = frozenset({"step", "votes", "expect_events", "expect_no_events"})
STEP_KEYS |= {"expect_only", "expect_asked"}
EXPECT_KEYS = frozenset(
    {"end", "winners", "teams", "alive", "roles", "steps", "events", "no_events"}
)


def load(path: Path) -> dict[str, Any]:
    """Return the parsed scenario file."""
    with path.open("rb") as handle:
        return tomllib.load(handle)


def player_role(value: str) -> tuple[str, str | None]:
    """Split a `[players]` value ("role" or "role, gender") into role and gender."""
    role, _, gender = value.partition(",")
    return role.strip(), (gender.strip() or None)


# --------------------------------------------------------------------------- format


def format_errors(data: Mapping[str, Any], folder: str) -> list[str]:
    """Return every way the scenario breaks the format of interfaces.md section 3 (and its
    ruleset's additions), for a file in ``tests/scenarios/<folder>/``."""
    errors: list[str] = []
    if data.get("ruleset") != folder:
        return [f"ruleset is {data.get('ruleset')!r}, but the file is in {folder}/"]
    ids = spec_ids(folder)
    allowed = SETTINGS_KEYS | ids.options
    unknown = {key for key in data if key not in allowed and not key.startswith("expect")}
    if unknown:
        errors.append(f"unknown top-level keys {sorted(unknown)}")
    if not isinstance(data.get("seed"), int):
        errors.append("seed must be an integer")
    if not isinstance(data.get("mayor", False), bool):
        errors.append("mayor must be a boolean")
    strictness = data.get("strictness", 2)
    if not isinstance(strictness, int) or strictness < 1:
        errors.append("strictness must be a whole number >= 1")
    players = data.get("players")
    if not isinstance(players, dict) or not 3 <= len(players) <= 1000:
        return [*errors, "players must be a table of 3 to 1000 players"]
    names = set(players)
    for name, value in players.items():
        if not name.isalpha():
            errors.append(f"player name {name!r} is not letters only")
        role, gender = player_role(str(value))
        if not ids.is_role(role):
            errors.append(f"player {name}: unknown role {role!r}")
        if gender is not None and gender not in SCENARIO_GENDERS:
            errors.append(f"player {name}: gender {gender!r} is not {'|'.join(SCENARIO_GENDERS)}")
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not steps:
        return [*errors, "steps must be a non-empty array of tables"]
    for index, step in enumerate(steps):
        errors.extend(f"step {index}: {error}" for error in step_errors(step, names, ids))
    errors.extend(expect_errors(data.get("expect", {}), names, ids))
    for pattern in data.get("expect_start_events", []):
        errors.extend(f"expect_start_events: {e}" for e in pattern_errors(pattern, names, ids))
    if "expect" in data and not isinstance(data["expect"], dict):
        errors.append("expect must be a table")
    script = [step.get("step") for step in steps]
    expected_steps = data.get("expect", {}).get("steps")
    if expected_steps is not None and not data.get("until_end", False) and expected_steps != script:
        errors.append(f"expect.steps {expected_steps} differs from the script {script}")
    return errors


def step_errors(step: Mapping[str, Any], names: set[str], ids: SpecIds) -> list[str]:
    """Return the format errors of one `[[steps]]` table."""
    errors = [f"unknown key {key!r}" for key in step if key not in STEP_KEYS]
    if step.get("step") not in ids.steps:
        errors.append(f"unknown step {step.get('step')!r}")
    unknown_name_allowed = {
        pattern.get("player")
        for pattern in step.get("expect_events", [])
        if pattern.get("type") == "rejected" and pattern.get("reason") == "unknown-player"
    }
    for key, targets in step.get("votes", {}).items():
        voter, _, keyword = key.partition(":")
        if voter not in names:
            errors.append(f"vote key {key!r} is not a player")
        if keyword and keyword not in ids.keywords:
            errors.append(f"vote key {key!r}: unknown keyword {keyword!r}")
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            errors.append(f"vote of {key!r} must be a list of names")
            continue
        strangers = [t for t in targets if t not in names and not ids.is_value(t)]
        if strangers and voter not in unknown_name_allowed:
            errors.append(f"vote of {key!r} names unknown players {strangers}")
    for key in ("expect_events", "expect_no_events"):
        for pattern in step.get(key, []):
            errors.extend(f"{key}: {error}" for error in pattern_errors(pattern, names, ids))
    if not isinstance(step.get("expect_only", False), bool):
        errors.append("expect_only must be a boolean")
    errors.extend(
        f"expect_asked names unknown player {name!r}"
        for name in step.get("expect_asked", [])
        if name not in names
    )
    return errors


def pattern_errors(pattern: Mapping[str, Any], names: set[str], ids: SpecIds) -> list[str]:
    """Return the errors of one event pattern (known type, known fields, known values)."""
    kind = pattern.get("type")
    if kind not in ids.events:
        return [f"unknown event type {kind!r}"]
    errors = [
        f"{kind}: unknown field {field!r}"
        for field in pattern
        if field != "type" and field not in ids.events[kind]
    ]
    for field in ("player", "target", "guards"):
        if field in pattern and pattern[field] not in names:
            errors.append(f"{kind}: {field} {pattern[field]!r} is not a player")
    for field in ("players", "winners"):
        errors.extend(
            f"{kind}: {field} names unknown {name!r}"
            for name in pattern.get(field, [])
            if name not in names
        )
    if "role" in pattern and not ids.is_role(pattern["role"]):
        errors.append(f"{kind}: unknown role {pattern['role']!r}")
    if kind == "death" and "cause" in pattern and pattern["cause"] not in ids.causes:
        errors.append(f"death: unknown cause {pattern['cause']!r}")
    if kind == "rejected" and "reason" in pattern and pattern["reason"] not in ids.reasons:
        errors.append(f"rejected: unknown reason {pattern['reason']!r}")
    if kind == "win" and not set(pattern.get("teams", [])) <= ids.teams:
        errors.append(f"win: unknown teams {pattern['teams']}")
    return errors


def expect_errors(expect: Mapping[str, Any], names: set[str], ids: SpecIds) -> list[str]:
    """Return the errors of the top-level `[expect]` table."""
    known = EXPECT_KEYS | ids.expect_keys
    errors = [f"expect: unknown key {key!r}" for key in expect if key not in known]
    for key in ("winners", "alive"):
        errors.extend(
            f"expect.{key}: unknown player {n!r}" for n in expect.get(key, []) if n not in names
        )
    if not set(expect.get("teams", [])) <= ids.teams:
        errors.append(f"expect.teams: unknown teams {expect['teams']}")
    for name, role in expect.get("roles", {}).items():
        if name not in names or not ids.is_role(role):
            errors.append(f"expect.roles: bad entry {name} = {role!r}")
    if expect.get("mayor", "") not in names | {""}:
        errors.append(f"expect.mayor: {expect['mayor']!r} is not a player")
    errors.extend(
        f"expect.steps: unknown step {s!r}" for s in expect.get("steps", []) if s not in ids.steps
    )
    for key in ("events", "no_events"):
        for pattern in expect.get(key, []):
            errors.extend(f"expect.{key}: {error}" for error in pattern_errors(pattern, names, ids))
    return errors


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_scenario_file_is_valid(path: Path) -> None:
    folder = path.relative_to(SCENARIOS).parts[0]
    errors = format_errors(load(path), folder)
    assert not errors, f"{path.relative_to(SCENARIOS)}:\n  " + "\n  ".join(errors)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_suite_covers_every_role(ruleset: str) -> None:
    ids = spec_ids(ruleset)
    used: set[str] = set()
    for path in FILES:
        if path.relative_to(SCENARIOS).parts[0] == ruleset:
            for value in load(path)["players"].values():
                used |= ids.role_parts(player_role(str(value))[0])
    assert used >= ids.roles, f"{ruleset}: roles without a scenario: {sorted(ids.roles - used)}"


# --------------------------------------------------------------------------- running


def plain(value: Any) -> Any:
    """Turn a transcript object (dict, dataclass or object with to_dict) into plain JSON data."""
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def matches(pattern: Mapping[str, Any], event: Mapping[str, Any]) -> bool:
    """Whether every key of the pattern equals the event's field."""
    return all(key in event and event[key] == value for key, value in pattern.items())


def exact_cover(patterns: Sequence[Mapping[str, Any]], events: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the patterns match the events one to one (a multiset match, any order)."""
    if len(patterns) != len(events):
        return False

    def assign(index: int, free: frozenset[int]) -> bool:
        if index == len(patterns):
            return True
        return any(
            matches(patterns[index], events[slot]) and assign(index + 1, free - {slot})
            for slot in free
        )

    return assign(0, frozenset(range(len(events))))


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def step_report(rel: str, index: int, line: Mapping[str, Any], trace: Sequence[Any]) -> str:
    events = "\n      ".join(dump(event) for event in line.get("events", [])) or "(none)"
    trace_text = "\n      ".join(str(entry) for entry in trace) or "(none)"
    return (
        f"{rel}, step {index} ({line.get('step')}, night {line.get('night')},"
        f" day {line.get('day')})\n"
        f"    asked:  {dump(line.get('asked'))}\n"
        f"    votes:  {dump(line.get('votes'))}\n"
        f"    actual events:\n      {events}\n"
        f"    trace:\n      {trace_text}"
    )


def check_step(
    rel: str, index: int, script: Mapping[str, Any], line: Mapping[str, Any], trace: Sequence[Any]
) -> list[str]:
    """Return the failed expectations of one step."""
    failures: list[str] = []
    events = line.get("events", [])
    expected = script.get("expect_events", [])
    for pattern in expected:
        if not any(matches(pattern, event) for event in events):
            failures.append(f"expected event not found: {dump(pattern)}")
    for pattern in script.get("expect_no_events", []):
        for event in events:
            if matches(pattern, event):
                failures.append(f"forbidden event {dump(pattern)} matched {dump(event)}")
    if script.get("expect_only") and not exact_cover(expected, events):
        failures.append(f"expect_only: events are not exactly {dump(expected)}")
    if "expect_asked" in script and list(line.get("asked", [])) != script["expect_asked"]:
        failures.append(f"asked {dump(line.get('asked'))}, expected {dump(script['expect_asked'])}")
    if not failures:
        return []
    report = step_report(rel, index, line, trace)
    return [report + "\n    FAILED:\n      " + "\n      ".join(failures)]


def check_final(
    expect: Mapping[str, Any], step_lines: Sequence[Mapping[str, Any]], final: Mapping[str, Any]
) -> list[str]:
    """Return the failed top-level expectations."""
    failures: list[str] = []
    for key in ("end", "winners", "teams", "alive"):
        if key in expect and final.get(key) != expect[key]:
            failures.append(f"{key}: expected {dump(expect[key])}, got {dump(final.get(key))}")
    roles = final.get("roles", {})
    for name, role in expect.get("roles", {}).items():
        if roles.get(name) != role:
            failures.append(f"role of {name}: expected {role}, got {roles.get(name)}")
    if "mayor" in expect:
        wanted = expect["mayor"] or None
        if final.get("mayor") != wanted:
            failures.append(f"mayor: expected {wanted}, got {final.get('mayor')}")
    actual_steps = [line.get("step") for line in step_lines]
    if "steps" in expect and actual_steps != expect["steps"]:
        failures.append(f"steps: expected {expect['steps']}, got {actual_steps}")
    every = [event for line in step_lines for event in line.get("events", [])]
    for pattern in expect.get("events", []):
        if not any(matches(pattern, event) for event in every):
            failures.append(f"expected event not found in any step: {dump(pattern)}")
    for pattern in expect.get("no_events", []):
        for line in step_lines:
            for event in line.get("events", []):
                if matches(pattern, event):
                    failures.append(
                        f"forbidden event {dump(pattern)} matched {dump(event)}"
                        f" in step {line.get('step')} (night {line.get('night')},"
                        f" day {line.get('day')})"
                    )
    return failures


def partial_transcript(scenario: Any, rel: str, data: Mapping[str, Any]) -> str:
    """Report the steps that ran before the runner failed: the longest script prefix that runs."""
    steps = data["steps"]
    for count in range(len(steps) - 1, 0, -1):
        try:
            run = scenario.run_scenario({**data, "steps": steps[:count]})
        except Exception:
            continue
        lines = [plain(line) for line in run.lines if "start" not in line][:-1]
        traces = list(run.traces)
        return "steps that ran before:\n" + "\n".join(
            step_report(rel, index, line, traces[index] if index < len(traces) else [])
            for index, line in enumerate(lines)
        )
    return "(no step ran)"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_scenario(path: Path) -> None:
    rel = str(path.relative_to(SCENARIOS))
    data = load(path)
    try:
        run = run_scenario(data, until_end=bool(data.get("until_end", False)))
    except Exception as error:
        raise AssertionError(
            f"{rel}: the runner raised {error!r}\n" + partial_transcript(scenario, rel, data)
        ) from error
    lines = [plain(line) for line in run.lines]
    traces = list(run.traces)
    assert lines and "end" in lines[-1], f"{rel}: transcript has no final end object"
    start_events = [event for line in lines if "start" in line for event in line["events"]]
    lines = [line for line in lines if "start" not in line]
    step_lines, final = lines[:-1], lines[-1]
    script = data["steps"]

    failures: list[str] = []
    if len(step_lines) < len(script):
        failures.append(
            f"only {len(step_lines)} of the {len(script)} scripted steps ran:"
            f" {[line.get('step') for line in step_lines]}"
        )
    for index, (step, line) in enumerate(zip(script, step_lines, strict=False)):
        trace = traces[index] if index < len(traces) else []
        if line.get("step") != step["step"]:
            failures.append(
                step_report(rel, index, line, trace)
                + f"\n    FAILED: the engine is at step {line.get('step')!r},"
                f" the script expects {step['step']!r}"
            )
            break
        failures.extend(check_step(rel, index, step, line, trace))
    final_failures = check_final(data.get("expect", {}), step_lines, final)
    final_failures.extend(
        f"expected start event not found: {dump(pattern)}"
        for pattern in data.get("expect_start_events", [])
        if not any(matches(pattern, event) for event in start_events)
    )
    if final_failures:
        failures.append(
            f"{rel}, final state {dump(final)}\n    steps: "
            + dump([line.get("step") for line in step_lines])
            + "\n    FAILED:\n      "
            + "\n      ".join(final_failures)
        )
    assert not failures, "\n\n".join(failures)
