"""The pure scenario runner: a scripted game (interfaces §3) -> transcript lines and traces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.core.events import RejectedVote
from rules.core.model import CORE_SETTINGS, Rejected, Seat, Settings, Vote
from rules.core.registry import UnknownRuleset, get_ruleset
from rules.core.ruleset import Ruleset

MAX_EXTRA_STEPS = 20_000


class ScenarioError(ValueError):
    """The scenario itself is wrong (bad format, unknown role or voter, step mismatch)."""


@dataclass(frozen=True)
class ScenarioRun:
    """The transcript: one object per step, then ``{"end": ...}``; and each step's trace."""

    lines: tuple[dict[str, Any], ...]
    traces: tuple[tuple[str, ...], ...]


# Genders a scenario may write, by their canonical id (``man``/``vrouw``, as the game stores).
SCENARIO_GENDERS: Mapping[str, str] = {
    "man": "man",
    "vrouw": "vrouw",
    "uomo": "man",
    "donna": "vrouw",
}

# Top-level keys of a scenario that are not settings (``expect*`` keys are skipped as well).
NOT_SETTINGS = ("ruleset", "players", "steps", "until_end")


def _players(data: Mapping[str, Any]) -> list[Seat]:
    players = data.get("players")
    if not isinstance(players, Mapping) or not players:
        raise ScenarioError("the scenario needs a [players] table")
    seats: list[Seat] = []
    for name, value in players.items():
        role_text, _, gender_text = str(value).partition(",")
        role, gender = role_text.strip(), gender_text.strip() or None
        if gender is not None and gender not in SCENARIO_GENDERS:
            known = "|".join(SCENARIO_GENDERS)
            raise ScenarioError(f"player {name}: gender {gender!r} is not one of {known}")
        canonical = SCENARIO_GENDERS[gender] if gender is not None else None
        seats.append(Seat(name=str(name), role=role, gender=canonical))
    return seats


def _settings(data: Mapping[str, Any], ruleset: Ruleset[Any]) -> Settings:
    """The core settings and the ruleset's options that the scenario writes (others ignored)."""
    written = {
        key: value for key, value in data.items() if key in CORE_SETTINGS or key in ruleset.options
    }
    try:
        settings = Settings.from_dict(written)
    except ValueError as error:
        raise ScenarioError(str(error)) from error
    if settings.strictness < 1:
        raise ScenarioError("strictness must be a whole number >= 1")
    return settings


def _votes(raw: Any, names: set[str], index: int) -> list[Vote]:
    if raw is None:
        return []
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"step {index}: votes must be a table")
    votes: list[Vote] = []
    for key, targets in raw.items():
        voter, _, keyword = str(key).partition(":")
        if voter not in names:
            raise ScenarioError(f"step {index}: vote key {key!r} is not a player")
        if isinstance(targets, str):
            targets = [targets]
        if not isinstance(targets, Sequence) or not all(isinstance(t, str) for t in targets):
            raise ScenarioError(f"step {index}: the vote of {key!r} must be a list of names")
        votes.append(
            Vote(
                player=voter,
                targets=tuple(targets),
                blanco=not targets,
                keywords=frozenset({keyword}) if keyword else frozenset(),
            )
        )
    return votes


def _step_line(
    state: Any, ruleset: Ruleset[Any], events: Sequence[Any], rejected: Sequence[Any]
) -> dict[str, Any]:
    view = ruleset.view(state)
    return {
        "step": view.step,
        "night": view.night,
        "day": view.day,
        "asked": list(ruleset.asked(state)),
        "votes": {key: list(targets) for key, targets in view.votes.items()},
        "events": [event.to_dict() for event in (*rejected, *events)],
    }


def run_scenario(data: Mapping[str, Any], *, until_end: bool = False) -> ScenarioRun:
    """Play the scenario; return its transcript and traces.

    Unknown keys (e.g. ``expect*``) are ignored; ``until_end`` (or a top-level
    ``until_end = true``) plays on with every vote missed until the game ends.
    Raises ScenarioError for a bad scenario.
    """
    try:
        ruleset = get_ruleset(str(data.get("ruleset", "wakkerdam")))
    except UnknownRuleset as error:
        raise ScenarioError(str(error)) from error
    seats = _players(data)
    try:
        state = ruleset.new_game(seats, _settings(data, ruleset))
    except ValueError as error:
        raise ScenarioError(str(error)) from error
    names = {seat.name for seat in seats}
    steps = data.get("steps", [])
    if not isinstance(steps, Sequence):
        raise ScenarioError("steps must be an array of tables")
    lines: list[dict[str, Any]] = []
    traces: list[tuple[str, ...]] = []
    start = ruleset.transcript_start(state)
    if start is not None:
        lines.append(start)
    for index, script in enumerate(steps):
        if not isinstance(script, Mapping) or "step" not in script:
            raise ScenarioError(f"step {index}: each [[steps]] table needs a 'step'")
        view = ruleset.view(state)
        if view.step != script["step"]:
            where = "the game is over" if view.over else f"the engine is at {view.step!r}"
            raise ScenarioError(
                f"step {index}: the script expects {script['step']!r} but {where}"
                f" (night {view.night}, day {view.day})"
            )
        rejected = []
        for vote in _votes(script.get("votes"), names, index):
            verdict = ruleset.apply(state, vote)
            if isinstance(verdict, Rejected):
                rejected.append(RejectedVote(player=vote.player, reason=verdict.code))
            else:
                state = verdict.state
        resolution = ruleset.resolve(state)
        lines.append(_step_line(state, ruleset, resolution.events, rejected))
        traces.append(resolution.trace)
        state = resolution.state
    if until_end or bool(data.get("until_end", False)):
        for _ in range(MAX_EXTRA_STEPS):
            if ruleset.view(state).over:
                break
            resolution = ruleset.resolve(state)
            lines.append(_step_line(state, ruleset, resolution.events, ()))
            traces.append(resolution.trace)
            state = resolution.state
        else:
            raise ScenarioError(f"the game did not end within {MAX_EXTRA_STEPS} steps")
    lines.append(ruleset.transcript_end(state))
    return ScenarioRun(lines=tuple(lines), traces=tuple(traces))
