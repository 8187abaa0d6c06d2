"""A real browser opens the HTML of every kind of mail: headless Chromium screenshots each one.

Needs the Debian package ``chromium`` (CI installs it: .ci/run).  Without it the test fails in
CI (``CI=true``) and is skipped, with the reason, elsewhere.  Screenshots go to tmp_path only.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from stories import FileStore, Renderer, StoryKey
from stories.keys import BASE_THEME, MAIL_TYPES
from stories.samples import mail_samples
from tests.support.shipped import SHIPPED_RENDERER

pytestmark = pytest.mark.slow  # a browser per mail (`make test-fast` leaves them out)

WIDTH, HEIGHT = 800, 1200
MAIN = ("wakkerdam", "nl", "wakkerdam")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    message = "headless Chromium is not installed (Debian: apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; CI must install it (.ci/run)")
    pytest.skip(message)


def _cases() -> list[tuple[str, str, str, str]]:
    """Every mail of the main pack, and the step mail of every other pack."""
    packs = {(s.key.ruleset, s.key.language, s.key.theme) for s in FileStore().all()}
    others = sorted(p for p in packs if p[2] != BASE_THEME and p != MAIN)
    return [(*MAIN, mail) for mail in MAIL_TYPES] + [(*pack, "step") for pack in others]


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


@pytest.mark.parametrize(
    ("ruleset", "language", "theme", "mail"), _cases(), ids=["-".join(case) for case in _cases()]
)
def test_chromium_renders_the_mail(
    renderer: Renderer, tmp_path: Path, ruleset: str, language: str, theme: str, mail: str
) -> None:
    chromium = _chromium()
    key = StoryKey(ruleset, language, theme, mail)
    rendered = renderer.render_mail(key, next(iter(mail_samples(key))), "browser")
    page = tmp_path / f"{mail}.html"
    page.write_text(rendered.html, encoding="utf-8")
    shot = tmp_path / f"{mail}.png"
    result = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",  # root in a container has no user namespace for the sandbox
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",  # not the user's, not another test's
            f"--screenshot={shot}",
            f"--window-size={WIDTH},{HEIGHT}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    data = shot.read_bytes() if shot.exists() else b""
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), f"no PNG written: {result.stderr[-2000:]}"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (WIDTH, HEIGHT)


def test_without_chromium_ci_fails_and_elsewhere_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    """The browser check never passes silently: no Chromium is a failure in CI."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        _chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        _chromium()
