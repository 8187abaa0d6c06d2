"""The layering rule: `rules/` and `parsing/` stay pure (no database, mail I/O, sockets, clock)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "rules": {
        "sqlalchemy",
        "jinja2",
        "email",
        "smtplib",
        "imaplib",
        "socket",
        "asyncio",
        "time",
        "datetime",
        "random",
        "aiosmtpd",
        "aioimaplib",
        "apscheduler",
        "narrator",
        "parsing",
        "stories",
        "os",
        "subprocess",
    },
    "parsing": {
        "sqlalchemy",
        "jinja2",
        "smtplib",
        "imaplib",
        "socket",
        "asyncio",
        "aiosmtpd",
        "aioimaplib",
        "apscheduler",
        "narrator",
        "stories",
        "subprocess",
    },
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_pure_packages_import_nothing_impure(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & FORBIDDEN[package])
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    offenders = {name: bad for name, bad in offenders.items() if bad}
    assert offenders == {}, f"{package}/ must stay pure; forbidden imports: {offenders}"


# --------------------------------------------------------------------------- the ruleset seam

# Where no ruleset's ids may be written: the daemon, the parser and the story machinery read
# them from the ruleset (rules/<id>/) and its story packs (stories/<id>/), never spell them.
SEAM_FILES = (
    *sorted((ROOT / "narrator").rglob("*.py")),
    *sorted((ROOT / "parsing").glob("*.py")),
    *sorted((ROOT / "stories").glob("*.py")),
)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (prose may name a role as an example)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _string_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
    ]


# The core's own words (transcript keys and phases, interfaces §3; the event types every ruleset
# shares; the role mail and a player's `role`): a ruleset may name a step or a keyword like one of
# them (Mafia's `night`, `lynch`, `role`), and the core may still write them, meaning its own.
CORE_WORDS = frozenset(
    {"start", "night", "day", "end", "step", "asked", "votes", "events", "winners", "teams"}
    | {"alive", "roles", "mayor", "death", "lynch", "role_change", "inactive", "rejected", "win"}
    | {"role"}
)


def _ruleset_ids() -> dict[str, str]:
    """Every role and step id of every registered ruleset -> the ruleset that has it (the core's
    own words aside)."""
    from rules import get_ruleset, ruleset_ids

    ids: dict[str, str] = {}
    for ruleset_id in ruleset_ids():
        ruleset = get_ruleset(ruleset_id)
        for value in (*ruleset.roles, *ruleset.steps):
            if value not in CORE_WORDS:
                ids.setdefault(value, ruleset_id)
    return ids


def test_no_ruleset_id_is_spelt_outside_its_ruleset() -> None:
    ids = _ruleset_ids()
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {value!r} ({ids[value]})"
        for path in SEAM_FILES
        for line, value in _string_literals(path)
        if value in ids
    ]
    assert offenders == [], "role/step ids written outside rules/ and the packs:\n" + "\n".join(
        offenders
    )
