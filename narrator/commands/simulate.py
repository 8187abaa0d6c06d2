"""`narrator simulate SCENARIO.toml`: play a scripted game with the rules engine, no mail."""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from narrator.cli import CommandError, Subparsers


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    """Add `narrator simulate SCENARIO.toml [--json] [--until-end]`."""
    parser = subparsers.add_parser(
        "simulate",
        parents=[common],
        help="run a scripted game (scenario file) and print its transcript",
    )
    parser.add_argument("scenario", metavar="SCENARIO.toml", type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--until-end", action="store_true", help="after the script, miss every vote until the end"
    )
    parser.add_argument("--trace", action="store_true", help="also print the resolution traces")
    parser.set_defaults(func=_simulate)


def _simulate(args: argparse.Namespace) -> int:
    from rules.scenario import ScenarioError, run_scenario

    try:
        with args.scenario.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise CommandError(f"cannot read {args.scenario}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise CommandError(f"{args.scenario} is not valid TOML: {error}") from None
    try:
        run = run_scenario(data, until_end=args.until_end)
    except ScenarioError as error:
        raise CommandError(f"{args.scenario}: {error}") from None
    out = sys.stdout
    steps = 0  # the traces are the steps' (a ruleset's start line has none)
    for line in run.lines:
        if args.json:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
        else:
            out.write(describe(line) + "\n")
        if "step" in line:
            if args.trace and steps < len(run.traces):
                out.writelines(f"    | {entry}\n" for entry in run.traces[steps])
            steps += 1
    return 0


def _names(names: Any) -> str:
    return ", ".join(names) if names else "nobody"


def describe_event(event: Mapping[str, Any]) -> str:
    """Return one event as an English sentence."""
    kind = event.get("type")
    p = event.get("player")
    # The event kinds every ruleset shares (interfaces §3); a ruleset's own read as fields.
    sentences: dict[str, str] = {
        "death": f"{p} dies ({event.get('cause')})",
        "role_change": f"{p} is now {event.get('role')}",
        "mayor": f"{p} becomes mayor (by {event.get('via')})",
        "no_mayor": "no mayor: the election failed",
        "lynch": f"the village burns {p or 'nobody'} (totals {event.get('totals')})",
        "inactive": f"{p} missed a vote ({event.get('missed')} in a row)",
        "rejected": f"vote of {p} rejected: {event.get('reason')}",
        "win": f"game over: {_names(event.get('teams'))} win;"
        f" winners {_names(event.get('winners'))}",
    }
    if kind in sentences:
        return sentences[str(kind)]
    fields = ", ".join(f"{key} {value}" for key, value in event.items() if key != "type")
    return f"{kind}: {fields}" if fields else str(kind)


def describe(line: Mapping[str, Any]) -> str:
    """Return one transcript line as readable English."""
    if "start" in line:
        parts = ["[start]"]
        parts.extend(f"  * {describe_event(event)}" for event in line.get("events", []))
        return "\n".join(parts)
    if "end" in line:
        head = "The game is over." if line["end"] else "The script ends; the game goes on."
        text = (
            f"{head}\n  winners: {_names(line.get('winners'))}"
            f" (teams: {_names(line.get('teams'))})\n"
            f"  alive: {_names(line.get('alive'))}"
        )
        if "mayor" in line:
            text += f"\n  mayor: {line.get('mayor') or 'none'}"
        return text
    when = f"night {line['night']}" if line["night"] != line["day"] else f"day {line['day']}"
    if line["night"] == 0:
        when = "start"
    parts = [f"[{when}] {line['step']} — asked: {_names(line.get('asked'))}"]
    votes = line.get("votes", {})
    for key, targets in votes.items():
        parts.append(f"  {key} votes {', '.join(targets) if targets else 'blanco'}")
    for event in line.get("events", []):
        parts.append(f"  * {describe_event(event)}")
    return "\n".join(parts)
