"""Stories run in a sandbox: Python internals, files and configuration stay out of reach."""

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

ATTACKS = [
    "{{ ''.__class__ }}",
    "{{ ().__class__.__base__.__subclasses__() }}",
    "{{ names.__globals__ }}",
    "{{ pick.__self__ }}",
    "{{ cycler.__init__.__globals__.os }}",
    "{{ self._TemplateReference__context }}",
    "{{ config }}",
    "{{ os.system('id') }}",
    "{{ lipsum.__globals__ }}",
    "{% include '/etc/passwd' %}",
    "{% import 'os' as os %}",
    "{% extends '/etc/passwd' %}",
    "{{ event.clear() }}",
    "{{ players.__class__.__mro__ }}",
    "{{ event.player.__class__.__subclasses__() }}",
    "{{ [1] | random }}",
]

KEY = StoryKey("wakkerdam", "nl", "wakkerdam", "death")
CONTEXT = {
    "game": Game(name="WW5"),
    "players": (Player("Anna", "vrouw"),),
    "recipient": None,
}
EVENT = {"type": "death", "player": "Anna", "cause": "gif"}


@pytest.mark.parametrize("attack", ATTACKS)
def test_validation_refuses_the_template(attack: str) -> None:
    report = validate_source(StorySource(KEY, 1, attack, "evil.j2"))
    assert not report.ok
    assert all(problem.startswith("evil.j2") for problem in report.problems)


@pytest.mark.parametrize("attack", ATTACKS)
def test_rendering_fails_cleanly(attack: str) -> None:
    renderer = Renderer(MemoryStore([StorySource(KEY, 1, attack, "evil.j2")]))
    with pytest.raises(StoryError, match=r"^evil\.j2"):
        renderer.render_event(KEY, CONTEXT, EVENT, 1)


def test_sandbox_errors_say_why() -> None:
    renderer = Renderer(MemoryStore([StorySource(KEY, 1, "{{ ''.__class__ }}", "evil.j2")]))
    with pytest.raises(StoryError, match="not allowed in a story"):
        renderer.render_event(KEY, CONTEXT, EVENT, 1)
    unknown = Renderer(MemoryStore([StorySource(KEY, 1, "{{ config }}", "evil.j2")]))
    with pytest.raises(StoryError, match="unknown variable"):
        unknown.render_event(KEY, CONTEXT, EVENT, 1)


def test_a_mail_template_needs_its_blocks() -> None:
    key = KEY.with_event("receipt")
    report = validate_source(StorySource(key, 1, "Dank je wel!", "receipt.j2"))
    assert "needs {% block subject %} and {% block body %}" in report.problems[0]
    outside = "{% block subject %}x{% endblock %}lost{% block body %}y{% endblock %}"
    report = validate_source(StorySource(key, 1, outside, "receipt.j2"))
    assert "would be lost" in report.problems[0]


def test_validation_renders_every_gender_case() -> None:
    # Fine for a man, broken for a woman: only a render with every sample finds it.
    source = "{% if hij(event.player) == 'zij' %}{{ nope }}{% endif %}{{ event.player }}"
    report = validate_source(StorySource(KEY, 1, source, "half.j2"))
    assert any("unknown variable" in p for p in report.problems)


def test_validation_finds_a_missing_field() -> None:
    report = validate_source(StorySource(KEY, 1, "{{ event.victim }}", "typo.j2"))
    assert report.problems and "unknown variable or field" in report.problems[0]


def test_the_names_of_the_cast_are_mapped_in_seat_order() -> None:
    source = '{{ names(players | map(attribute="name")) }}|{{ players | map("upper") | join }}'
    renderer = Renderer(MemoryStore([StorySource(KEY, 1, source, "names.j2")]))
    context = {**CONTEXT, "players": (Player("Anna", "vrouw"), Player("Bram", "man"))}
    text = renderer.render_event(KEY, context, EVENT, 1)
    assert text.startswith("Anna en Bram|"), text


@pytest.mark.parametrize("attribute", ["__class__", "name.__class__", "_seats"])
def test_mapping_the_cast_on_any_other_attribute_is_the_sandboxs(attribute: str) -> None:
    # Only `map(attribute="name")` over the cast skips the sandbox's check (stories.sandbox);
    # an internal attribute reads as undefined, as Jinja's sandbox makes it.
    source = f"{{{{ players | map(attribute={attribute!r}) | list }}}}"
    renderer = Renderer(MemoryStore([StorySource(KEY, 1, source, "evil.j2")]))
    assert renderer.render_event(KEY, CONTEXT, EVENT, 1) == "[Undefined]"


def test_the_stories_own_data_is_checked_as_jinjas_sandbox_checks_it() -> None:
    # The sandbox answers at once for a Game, Player or Action (stories.sandbox): the same
    # verdict as Jinja's immutable sandbox on every attribute they have, and more.
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from stories import Action
    from stories.sandbox import make_environment

    ours, jinjas = make_environment(), ImmutableSandboxedEnvironment()
    objects = [Game(name="WW5"), Player("Anna", "vrouw"), Action("ziener", ("Anna",))]
    assert {type(obj) for obj in objects} == ours.plain_data
    others = ["mro", "clear", "pop", "update", "append", "add", "_x", "__class__", "func_code"]
    for obj in objects:
        for attr in [*dir(obj), *others]:
            value = getattr(obj, attr, None)
            verdict = jinjas.is_safe_attribute(obj, attr, value)
            assert ours.is_safe_attribute(obj, attr, value) == verdict, (obj, attr)
    assert ours.is_safe_attribute(objects[0], "name", "WW5")
    assert not ours.is_safe_attribute(objects[0], "__class__", Game)


@pytest.mark.parametrize(
    "attack", ["{{ game.__class__ }}", "{{ game._x }}", "{{ game.from_any.__func__ }}"]
)
def test_the_stories_own_data_keeps_its_internals_out_of_reach(attack: str) -> None:
    renderer = Renderer(MemoryStore([StorySource(KEY, 1, attack, "evil.j2")]))
    with pytest.raises(StoryError, match=r"^evil\.j2"):
        renderer.render_event(KEY, CONTEXT, EVENT, 1)
