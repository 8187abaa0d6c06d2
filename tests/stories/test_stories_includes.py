"""Stories may include, import and extend templates of their own pack and the language's _base."""

from __future__ import annotations

import pytest

from stories import (
    Game,
    MemoryStore,
    Player,
    Renderer,
    StoryError,
    StoryKey,
    StorySource,
    validate_source,
)
from stories.check import CheckReport
from tests.support.shipped import SHIPPED_RENDERER

KEY = StoryKey("wakkerdam", "nl", "haven", "death")
CONTEXT = {"game": Game(name="WW5"), "players": (Player("Anna", "vrouw"),), "recipient": None}
EVENT = {"type": "death", "player": "Anna", "cause": "gif"}
MACROS = "{% macro hello(who) %}Dag {{ who }}{% endmacro %}"


def source(key: StoryKey, text: str, variant: int = 1) -> StorySource:
    return StorySource(key, variant, text, f"{key}.{variant}.j2")


def store(*sources: StorySource) -> MemoryStore:
    return MemoryStore(sources)


def render(templates: MemoryStore) -> str:
    return Renderer(templates).render_event(KEY, CONTEXT, EVENT, 1)


def test_a_story_includes_a_partial_of_its_own_pack() -> None:
    partial = source(KEY.with_event("_line"), "{{ event.player }} is dood.")
    text = render(store(source(KEY, '{% include "_line.j2" %} Stil.'), partial))
    assert text == "Anna is dood. Stil."


def test_a_story_imports_macros_from_the_languages_base() -> None:
    macros = source(KEY.with_theme("_base").with_event("_macros"), MACROS)
    story = source(KEY, '{% import "_base/_macros.j2" as m %}{{ m.hello(event.player) }}.')
    assert render(store(story, macros)) == "Dag Anna."


@pytest.mark.parametrize(
    "written",
    [
        "../wakkerdam/_line.j2",
        "wakkerdam/nl/wakkerdam/_line.j2",
        "/etc/passwd",
        "_base/../x.j2",
        "_line",
    ],
)
def test_nothing_outside_the_pack_and_its_base_can_be_reached(written: str) -> None:
    other = source(StoryKey("wakkerdam", "nl", "wakkerdam", "_line"), "geheim")
    report = validate_source(source(KEY, f'{{% include "{written}" %}}'), Renderer(store(other)))
    assert report.problems and "cannot include" in report.problems[0]


def test_another_language_is_another_pack() -> None:
    english = source(StoryKey("wakkerdam", "en", "_base", "_line"), "secret")
    templates = store(source(KEY, '{% include "_base/_line.j2" %}'), english)
    with pytest.raises(StoryError, match="wakkerdam/nl/_base/_line"):
        render(templates)


def test_an_include_must_be_written_out() -> None:
    report = validate_source(source(KEY, "{% include event.cause %}"))
    assert report.problems and "written-out name" in report.problems[0]


def test_check_reports_a_missing_include() -> None:
    renderer = Renderer(store())
    report = validate_source(source(KEY, '{% include "_nope.j2" %}'), renderer, CheckReport())
    assert report.problems == [
        f"{KEY}.1.j2: includes missing template(s): wakkerdam/nl/haven/_nope"
    ]


def test_a_theme_extends_the_shared_error_mail() -> None:
    renderer = SHIPPED_RENDERER
    context = {"game": None, "players": (), "recipient": None, "code": "no-game"}
    haven = renderer.render_mail(KEY.with_event("error"), context, 1)
    main = renderer.render_mail(KEY.with_theme("wakkerdam").with_event("error"), context, 1)
    assert haven.text.partition("\n-- \n")[0].rstrip().endswith("De Havenmeester")
    assert main.text.partition("\n-- \n")[0].rstrip().endswith("De Verteller")
    assert haven.text.replace("De Havenmeester", "De Verteller") == main.text
    assert main.key.theme == "_base"
