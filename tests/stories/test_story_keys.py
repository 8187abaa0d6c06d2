"""A story key's event is checked where a key comes from outside: a pack's file name."""

from __future__ import annotations

from pathlib import Path

import pytest

from stories import StoryKey, StoryKeyError, key_from_path


def test_a_pack_file_for_an_event_the_ruleset_never_tells_is_refused() -> None:
    with pytest.raises(StoryKeyError, match="unknown event or mail 'dragon'"):
        key_from_path(Path("/packs/wakkerdam/nl/wakkerdam/dragon.j2"))
    key, variant = key_from_path(Path("/packs/wakkerdam/nl/wakkerdam/lynch.2.j2"))
    assert (key, variant) == (StoryKey("wakkerdam", "nl", "wakkerdam", "lynch"), 2)


def test_checked_accepts_events_mails_optional_mails_and_partials() -> None:
    for event in ("lynch", "step", "help_digest", "_macros"):
        key = StoryKey("wakkerdam", "nl", "wakkerdam", event)
        assert key.checked() is key
    with pytest.raises(StoryKeyError):
        StoryKey("wakkerdam", "nl", "wakkerdam", "dragon").checked()
    with pytest.raises(StoryKeyError, match="bad event"):
        StoryKey("wakkerdam", "nl", "wakkerdam", "Dragon!")
