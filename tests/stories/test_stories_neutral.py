"""The stories package names no ruleset's ids: they come from the rulesets and the packs' files."""

from __future__ import annotations

import ast
from pathlib import Path

from rules.core.registry import get_ruleset, ruleset_ids
from tests.test_layering import CORE_WORDS

STORIES = Path(__file__).resolve().parents[2] / "stories"


def _ids() -> set[str]:
    ids: set[str] = set()
    for ruleset_id in ruleset_ids():
        ruleset = get_ruleset(ruleset_id)
        ids |= set(ruleset.roles) | set(ruleset.steps) | set(ruleset.causes)
        ids |= set(ruleset.teams) | set(ruleset.keywords)
    return ids - CORE_WORDS  # the core's own words may be a ruleset's ids too (Mafia's `night`)


def test_no_role_step_cause_team_or_keyword_id_is_a_literal_in_stories() -> None:
    ids = _ids()
    found = []
    for path in sorted(STORIES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in ids:
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert found == []


def test_no_language_test_in_stories() -> None:
    """Languages differ through words.toml and Babel, not through `if language == ...`."""
    found = []
    for path in sorted(STORIES.glob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "language ==" in line or "language in (" in line:
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert found == []


def test_the_wakkerdam_samples_follow_the_rules_step_table() -> None:
    """samples.toml repeats each step's phase (the Ruleset protocol does not expose it)."""
    from rules.wakkerdam.engine import STEP_TABLE
    from stories.pack import load_pack

    phases = load_pack("wakkerdam").data["phases"]
    told = {step: phase for phase, spec in phases.items() for step in spec["steps"]}
    assert told == {step: STEP_TABLE.get(step).phase for step in STEP_TABLE.ids()}
