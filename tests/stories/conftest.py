"""Fixtures of the story tests: `stories check` of the shipped packs, run once per test run.

A whole check renders every template with every sample (over 40,000 renders, half a minute):
the tests that need its result share :func:`shipped_check`.  Under pytest-xdist (``make test``)
the first worker that needs it runs it and leaves the report in the run's temporary folder,
which every worker shares; the others wait for it and read it there (the recipe of xdist's
documentation for a session fixture run once).
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
from collections.abc import Callable, Iterator

import pytest

import stories.check
from stories import CheckReport, FileStore, TemplateStore, check_store


def _contents(store: TemplateStore) -> list[tuple[object, int, str]]:
    return sorted((s.key, s.variant, s.source) for s in store.all())


@pytest.fixture(scope="session")
def shipped_check(tmp_path_factory: pytest.TempPathFactory) -> CheckReport:
    """The report of `check_store` over the shipped packs (`stories check --files`), made once
    per test run; tests read it and never change it."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return check_store(FileStore())
    shared = tmp_path_factory.getbasetemp().parent / "shipped-packs-check.json"
    with shared.with_suffix(".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if shared.exists():
            return CheckReport(**json.loads(shared.read_text(encoding="utf-8")))
        report = check_store(FileStore())
        shared.write_text(json.dumps(dataclasses.asdict(report)), encoding="utf-8")
        return report


@pytest.fixture
def check_store_once(
    shipped_check: CheckReport, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[], int]]:
    """Make `stories check` (the command) use `shipped_check` for a store whose templates are
    exactly the shipped ones (the shipped files, or a database loaded with them) and that is
    checked in every language; yields a function telling how often it did.  Any other store is
    checked for real."""
    shipped = _contents(FileStore())
    uses = 0
    real = stories.check.check_store

    def once(store: TemplateStore, languages: object = None) -> CheckReport:
        nonlocal uses
        if languages is None and _contents(store) == shipped:
            uses += 1
            return shipped_check
        return real(store, languages)  # type: ignore[arg-type]

    monkeypatch.setattr(stories.check, "check_store", once)
    yield lambda: uses
