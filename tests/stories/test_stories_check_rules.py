"""`stories check` refuses the slips the mails once made: a subject that repeats itself, a
mail with no greeting or no signature, a warning and a death of one player in one mail."""

from __future__ import annotations

import pytest

from stories import Renderer, StoryKey, validate_source
from stories.check import _apart_problems, _repeated_words
from stories.store import StorySource, over_shipped

NIGHT = StoryKey("wakkerdam", "nl", "wakkerdam", "night_result")
RECEIPT = StoryKey("wakkerdam", "nl", "wakkerdam", "receipt")


def _problems(source: StorySource) -> list[str]:
    """What `stories check` finds in `source`, a template added over the shipped packs: only
    that template is checked (the shipped ones are, once, by test_stories_packs)."""
    report = validate_source(source, Renderer(over_shipped(source)))
    assert report.templates == 1 and report.renders > 0
    return report.problems


def test_a_repeated_word_is_found() -> None:
    assert _repeated_words("WW5 — Nacht 1: de nacht") == ["nacht"]
    assert _repeated_words("WW5 — Het begin: het begin") == ["begin"]
    assert _repeated_words("WW5 — Nacht 3: de ochtend") == []


def test_a_subject_that_repeats_itself_is_refused() -> None:
    source = StorySource(
        NIGHT,
        9,
        "{% block subject %}{{ game.name }} — {{ moment }}: {{ moment }}{% endblock %}"
        "{% block body %}Beste dorpelingen,\n\n{{ stories | join }}\n\nDe Verteller{% endblock %}",
        "test/night_result.9.j2",
    )
    problems = _problems(source)
    assert any("repeats" in p for p in problems), problems


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("Je stem is binnen.\n\nDe Verteller", "no greeting"),
        ("Beste {{ player.name }},\n\nJe stem is binnen.", "no signature"),
    ],
)
def test_a_variant_without_greeting_or_signature_is_refused(body: str, problem: str) -> None:
    source = StorySource(
        RECEIPT,
        9,
        "{% block subject %}{{ game.name }} — Stem{% endblock %}{% block body %}"
        + body
        + "{% endblock %}",
        "test/receipt.9.j2",
    )
    problems = _problems(source)
    assert any(problem in p for p in problems), problems


def test_a_warning_and_a_death_in_one_mail_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    renderer = Renderer(over_shipped())
    assert _apart_problems(renderer, "wakkerdam", "nl") == []
    told = Renderer.render_story

    def in_one_mail(self: Renderer, *args: object, **kwargs: object) -> object:
        kwargs["part"] = "all"  # the old way: everything a reader may see in one mail
        return told(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Renderer, "render_story", in_one_mail)
    problems = _apart_problems(renderer, "wakkerdam", "nl")
    assert problems and "inactive and a death" in problems[0], problems


@pytest.mark.parametrize("greeting", ["Goedemorgen, {{ player.name }}.", "Goedemorgen."])
def test_a_clipped_salutation_is_a_greeting(greeting: str) -> None:
    source = StorySource(
        RECEIPT,
        9,
        "{% block subject %}{{ game.name }} — Stem{% endblock %}{% block body %}"
        + greeting
        + "\n\nJe stem is binnen.\n\nDe Verteller{% endblock %}",
        "test/receipt.9.j2",
    )
    problems = _problems(source)
    assert not any("no greeting" in p for p in problems), problems


STEP = StoryKey("wakkerdam", "nl", "wakkerdam", "step")


def test_every_action_kind_of_the_rules_is_sampled() -> None:
    from rules import get_ruleset
    from stories.samples import action_kinds

    for ruleset in ("wakkerdam", "lupus", "mafia", "vampiri"):
        assert set(action_kinds(ruleset)) <= set(get_ruleset(ruleset).action_kinds)
    # the White Werewolf's solo kill, as the rules ask it; the Dwaas is asked as the Ziener
    assert "witte" in action_kinds("wakkerdam") and "dwaas" not in action_kinds("wakkerdam")


def test_a_step_mail_with_no_words_for_a_kind_of_the_rules_is_refused() -> None:
    shipped = Renderer(over_shipped()).variants(STEP)[0]
    text = shipped.source
    start = text.index('{% elif a.kind == "witte" %}')
    end = text.index("{% elif", start + 1)
    source = StorySource(STEP, 9, text[:start] + text[end:], "test/step.9.j2")
    problems = _problems(source)
    assert any("no words for the action 'witte'" in p for p in problems), problems
    assert not any("no words" in p for p in _problems(StorySource(STEP, 9, text, "t/step.9.j2")))


def test_a_sample_of_an_action_the_rules_never_ask_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import stories.check

    assert stories.check.sample_problems("wakkerdam") == []
    monkeypatch.setattr(stories.check, "sampled_kinds", lambda ruleset: ("witte_weerwolf",))
    [problem] = stories.check.sample_problems("wakkerdam")
    assert "[actions.witte_weerwolf] is no action the rules ask" in problem, problem
