"""The system Chromium, driven by Playwright, launched once per test module: the `browser` fixture.

Launching it (Playwright's driver and the browser) costs about 1.4 s of CPU; the tests of a
module share one launch (tests/web/test_pages_browser.py launched one per test, and
tests/stories/test_mail_browser.py one Chromium process per mail) and open their pages in
contexts of their own (``browser.new_page()``, ``browser.new_context()``).  Not one per run:
while Playwright's synchronous API is open, its event loop counts as the thread's running loop,
so a later test's ``asyncio.run`` would fail ("cannot be called from a running event loop");
the module's end closes it.  The root conftest enables it (``pytest_plugins``).

Needs the Debian package ``chromium`` (/usr/bin/chromium; CI installs it: .ci/run) and the
``playwright`` package of the test extras (never its own browser download).  Without Chromium
a test that uses the browser fails in CI (``CI=true``) and is skipped, with the reason,
elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",  # root in a container has no user namespace for the sandbox
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium() -> Path:
    """The system Chromium; a failure in CI without it, else a skip with the reason."""
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    message = f"headless Chromium is not installed at {CHROMIUM} (Debian: apt-get install chromium)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; CI must install it (.ci/run)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """The system Chromium (a Playwright ``Browser``), launched at the module's first test that
    needs it and closed at the module's end; a test opens its pages in contexts of its own and
    closes them.  A module that uses it runs no ``asyncio.run`` of its own in between."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable), args=ARGS)
        try:
            yield launched
        finally:
            launched.close()
