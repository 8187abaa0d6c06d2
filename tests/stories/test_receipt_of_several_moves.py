"""Every shipped receipt tells a mail of several moves move by move (the receipt's `moves`):
each move as written, with what was recorded or why it was refused; and a receipt of one
move (no `moves`) says nothing of several."""

from __future__ import annotations

import random

import pytest

from stories import FileStore, default_pack_root
from stories.render import Renderer
from stories.samples import mail_samples

STORE = FileStore(default_pack_root())
RULESETS = ("wakkerdam", "lupus", "mafia", "vampiri")
RECEIPTS = [
    source
    for source in STORE.all()
    if source.key.event == "receipt" and source.key.ruleset in RULESETS
]


@pytest.mark.parametrize("source", RECEIPTS, ids=lambda s: f"{s.key}#{s.variant}")
def test_a_receipt_lists_every_move_of_a_mail_of_several(source: object) -> None:
    renderer = Renderer(STORE)
    samples = list(mail_samples(source.key))  # type: ignore[attr-defined]
    several = next(s for s in samples if s.get("moves"))
    one = next(s for s in samples if not s.get("moves"))
    text = renderer.render_source_mail(source, several, random.Random(0)).text  # type: ignore[arg-type]
    for move in several["moves"]:
        assert move["written"] in text, (move, text)
    assert several["moves"][-1]["refused"] in text  # why the refused one was not used
    alone = renderer.render_source_mail(source, one, random.Random(0)).text  # type: ignore[arg-type]
    assert "Xyzzy" not in alone and "Xyzzy" in text
