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
