"""A mail's subject and body render from one Jinja context: as from a context each."""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from babel import Locale
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import StrictUndefined

from stories import (
    FileStore,
    Game,
    MemoryStore,
    Renderer,
    StoryError,
    StoryKey,
    StoryNotFound,
    StorySource,
    layout,
    vocab,
)
from stories.context import Action, clean_text, clean_texts
from stories.keys import BASE_THEME, MAIL_TYPES
from stories.layout import compile_layout
from stories.samples import big_mail_samples, mail_samples
from stories.sandbox import with_globals
from stories.words import load_words
from tests.support.shipped import SHIPPED_RENDERER

KEY = StoryKey("wakkerdam", "nl", "haven", "help_received")
CONTEXT = {"game": Game(name="WW5"), "players": (), "recipient": None}


def render(text: str, *parents: StorySource) -> tuple[str, str]:
    store = MemoryStore([StorySource(KEY, 1, text, "mail.1.j2"), *parents])
    mail = Renderer(store).render_mail(KEY, CONTEXT, 1)
    return mail.subject, mail.text


def two_contexts(text: str) -> tuple[str, str]:
    """The blocks as rendered before, each from a context of its own."""
    renderer = Renderer(MemoryStore([StorySource(KEY, 1, text, "mail.1.j2")]))
    template = renderer.compile(renderer.variants(KEY)[0]).template
    ctx = renderer.base_context(KEY, CONTEXT, random.Random(1))
    out = []
    for block in ("subject", "body"):
        context = template.new_context(ctx)
        out.append("".join(context.blocks[block][0](context)))
    return out[0], out[1]


def test_a_variable_the_subject_sets_is_unknown_to_the_body() -> None:
    text = (
        "{% block subject %}{% set told = 'ja' %}{{ game.name }} {{ told }}{% endblock %}"
        "{% block body %}{{ told }}{% endblock %}"
    )
    with pytest.raises(StoryError, match="told"):
        render(text)


def test_a_namespace_the_subject_changes_is_the_bodys_own() -> None:
    text = (
        "{% block subject %}{% set n = namespace(x=1) %}{% set n.x = 2 %}{{ n.x }}{% endblock %}"
        "{% block body %}{% set n = namespace(x=5) %}{{ n.x }} {{ range(3) | list }}"
        "{% endblock %}"
    )
    assert render(text) == ("2", "5 [0, 1, 2]\n")
    assert two_contexts(text) == ("2", "5 [0, 1, 2]")


def test_both_blocks_of_an_extending_mail_reach_their_parent() -> None:
    parent = StorySource(
        KEY.with_event("_frame"),
        1,
        "{% block subject %}[{{ game.name }}]{% endblock %}"
        "{% block body %}Begin.\n{% block middle %}-{% endblock %}\nEind.{% endblock %}",
        "frame.j2",
    )
    text = (
        '{% extends "_frame.j2" %}{% block subject %}{{ super() }} hulp{% endblock %}'
        "{% block middle %}{{ super() }}midden{{ super() }}{% endblock %}"
    )
    assert render(text, parent) == ("[WW5] hulp", "Begin.\n-midden-\nEind.\n")


def test_the_layouts_context_holds_its_globals_under_the_values() -> None:
    layout = compile_layout()
    merged = with_globals(layout, {"range": "mine", "lang": "nl"})
    assert merged["range"] == "mine" and merged["lang"] == "nl"
    assert {k: v for k, v in merged.items() if k not in ("range", "lang")} == {
        k: v for k, v in layout.globals.items() if k != "range"
    }
    assert layout.environment.undefined is StrictUndefined


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(), st.integers(), st.none()), max_size=12))
def test_texts_cleaned_at_once_are_each_cleaned(values: list[object]) -> None:
    assert clean_texts(values) == tuple(clean_text(str(value)) for value in values)


def test_a_name_that_prints_otherwise_is_cleaned_as_printed() -> None:
    class Shown(str):
        def __str__(self) -> str:
            return " shown\n"

    assert clean_texts(["Anna ", Shown("Bram")]) == ("Anna", "shown")
    action = Action.from_any({"kind": "lynch", "choices": [" Anna", "Bram\tde\x00Bakker"]})
    assert action.choices == ("Anna", "Bram de Bakker")


class JinjasOwnContexts(Renderer):
    """The renderer as it rendered before: a context of Jinja's own making for each block
    (``new_context`` copying the globals itself), the layout by ``Template.render`` (the test
    below gives it the layout as it was written)."""

    def _run_blocks(
        self, source: StorySource, blocks: Sequence[str | None], ctx: dict[str, Any]
    ) -> list[str]:
        compiled = self.compile(source)
        outs = []
        for block in blocks:
            context = compiled.template.new_context(ctx)
            parent = compiled
            while parent.parent is not None:
                parent = self.compile_named(parent.parent)
                for name, function in parent.template.blocks.items():
                    context.blocks.setdefault(name, []).append(function)
            assert block is not None
            outs.append("".join(context.blocks[block][0](context)))
        return outs


def _packs() -> list[tuple[str, str, str]]:
    keys = {(s.key.ruleset, s.key.language, s.key.theme) for s in FileStore().all()}
    return sorted(k for k in keys if k[2] != BASE_THEME)


@pytest.mark.parametrize(("ruleset", "language", "theme"), _packs())
def test_every_mail_of_every_pack_renders_as_from_jinjas_own_contexts(
    ruleset: str, language: str, theme: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = SHIPPED_RENDERER
    reference = JinjasOwnContexts(FileStore())
    samples = []
    for mail in sorted(MAIL_TYPES):
        key = StoryKey(ruleset, language, theme, mail)
        try:
            fast.variants(key)
        except StoryNotFound:  # a mail this pack does not write
            continue
        found = list(mail_samples(key))
        samples += [(key, sample) for sample in found[:: max(1, len(found) // 4)][:4]]
        samples += [(key, sample) for sample in itertools.islice(big_mail_samples(key), 1)]
    rendered = [fast.render_mail(key, sample, 7) for key, sample in samples]
    # The layout as it was written: its values read as attributes (`header.kind`).
    source = re.sub(r'\b(\w+)\["(\w+)"\]', r"\1.\2", layout.LAYOUT_FILE.read_text("utf-8"))
    assert '["' not in source and "header.kind" in source
    as_written = compile_layout().environment.from_string(source)
    monkeypatch.setattr(layout, "_render", lambda _, **values: as_written.render(**values))
    assert rendered == [reference.render_mail(key, sample, 7) for key, sample in samples]


@pytest.mark.parametrize(
    ("ruleset", "language"),
    [("wakkerdam", "nl"), ("mafia", "en"), ("example", "it"), ("mafia", "ru")],
)
def test_the_words_locale_tells_what_its_id_tells(ruleset: str, language: str) -> None:
    words = load_words(ruleset, language)
    assert str(words.cldr) == str(Locale.parse(words.locale))
    moment = dt.datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("Europe/Amsterdam"))
    for day in range(0, 370, 7):
        when = moment + dt.timedelta(days=day, hours=day % 24)
        assert vocab.when(when, words.when, words.cldr) == vocab.when(
            when, words.when, words.locale
        )
    for n in (0, 1, 1.5, 2, 3, 5, 11, 21, 22, 25, 101, 1000):
        for by in (words.cldr, words.locale):
            assert vocab.number(n, by) == vocab.number(n, words.locale)
            assert vocab.plural(n, by, ("a", "b", "c")) == vocab.plural(n, words.locale, "abc")
        for unit in ("duration-day", "duration-hour", "duration-minute"):
            amount = int(n) or 1
            assert vocab.duration_unit(amount, unit, words.cldr, "x") == vocab.duration_unit(
                amount, unit, words.locale, "x"
            )
