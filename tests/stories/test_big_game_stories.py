"""A big game's mails in every shipped pack (stories.layout.BIG_GAME): a step mail and an error
reply say how many choices there are and link the reader's page instead of listing them, a
role mail, its roster and a story mail's give the counts (who just died) and the game's page;
`stories check` holds every step, role and error template to it."""

from __future__ import annotations

import re
from dataclasses import replace
from random import Random

import pytest

from stories import FileStore, Renderer, StoryKey, validate_source
from stories.context import Cast, Player, cast_counts
from stories.helpers import Helpers
from stories.keys import BASE_THEME
from stories.layout import BIG_GAME, ROSTER_SEPARATOR, fill, linked
from stories.samples import (
    BIG_GAME_LINK,
    BIG_PAGE_LINK,
    BIG_SAMPLE_EXTRA,
    action_kinds,
    big_error_samples,
    big_role_sample,
    big_sample,
    sample_game,
)
from stories.store import StorySource, over_shipped
from stories.words import load_words
from tests.support.shipped import SHIPPED_RENDERER


def _packs() -> list[tuple[str, str, str]]:
    keys = {(s.key.ruleset, s.key.language, s.key.theme) for s in FileStore().all()}
    return sorted(k for k in keys if k[2] != BASE_THEME)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


@pytest.mark.parametrize(("ruleset", "language", "theme"), _packs())
def test_a_big_games_step_mail_links_the_choices_and_sums_up_the_roster(
    renderer: Renderer, ruleset: str, language: str, theme: str
) -> None:
    key = StoryKey(ruleset, language, theme, "step")
    words = load_words(ruleset, language).mail
    for kind in action_kinds(ruleset):
        context = big_sample(key, kind)
        mail = renderer.render_mail(key, context, 1)
        story, _, roster = mail.text.partition(f"\n{ROSTER_SEPARATOR}\n")
        where = (key, kind)
        extra = [p.name for p in context["players"][-BIG_SAMPLE_EXTRA:]]
        listed = [name for name in extra if name in mail.text]
        assert len(listed) <= 3, (where, listed)  # an example or two, not the list
        for action in context["actions"]:
            if len(action.choices) > BIG_GAME and action.max > 0:
                count = len(action.choices)
                line = [x for x in story.splitlines() if BIG_PAGE_LINK in x and str(count) in x]
                assert line, (where, story)
        alive, dead, exiled = cast_counts(Cast(context["players"]))
        counts = fill(words.roster_count, alive=str(alive), dead=str(dead))
        if exiled:  # out of play but living (Lupus)
            counts += " " + fill(words.exiled, count=str(exiled)) + "."
        lines = roster.splitlines()
        assert lines[0] == counts, where
        assert lines[1] == fill(words.roster_fallen, names=context["fallen"][0]), where
        assert lines[2] == fill(words.roster_link, url=BIG_GAME_LINK), where
        assert f'<a href="{BIG_GAME_LINK}">{BIG_GAME_LINK}</a>' in mail.html, where
        assert f'href="{BIG_PAGE_LINK}"' in mail.html, where


@pytest.mark.parametrize("language", ["nl", "en"])
def test_a_big_games_story_mail_names_its_dead_and_links_the_game(
    renderer: Renderer, language: str
) -> None:
    players = [Player(f"Speler{n:02d}", alive=n > 3) for n in range(60)]
    key = StoryKey("wakkerdam", language, "wakkerdam", "night_result")
    context = {
        "game": sample_game(key, "ochtend"),
        "players": Cast(players),
        "recipient": None,
        "game_link": BIG_GAME_LINK,
    }
    dead = ["Speler02", "Speler03"]
    events = [
        {"type": "death", "audience": "public", "player": dead[0], "cause": "weerwolven"},
        {"type": "death", "audience": "public", "player": dead[1], "cause": "gif"},
    ]
    mail = renderer.render_story(key, context, events, "seed", part="public")
    assert mail is not None
    roster = mail.text.partition(f"\n{ROSTER_SEPARATOR}\n")[2].splitlines()
    words = load_words("wakkerdam", language)
    assert roster == [
        fill(words.mail.roster_count, alive="56", dead="4"),
        fill(words.mail.roster_fallen, names=Helpers(words, (), Random(0)).names(dead)),
        fill(words.mail.roster_link, url=BIG_GAME_LINK),
    ]
    assert "Speler10" not in mail.text and "Speler10" not in mail.html


def test_a_game_of_forty_living_players_is_no_big_game(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "step")
    context = big_sample(key, "brandstapel")
    dead = sum(1 for p in context["players"] if not p.alive)
    few = Cast([*context["players"]][: BIG_GAME + dead])  # 40 living, and the sample's dead
    assert sum(1 for p in few if p.alive) == BIG_GAME
    living = tuple(p.name for p in few if p.alive)
    action = context["actions"][0]
    small = {**context, "players": few, "actions": [replace(action, choices=living)]}
    mail = renderer.render_mail(key, small, 1)
    assert BIG_GAME_LINK not in mail.text
    for name in living:
        assert f"- {name}\n" in mail.text


@pytest.mark.parametrize(("ruleset", "language", "theme"), _packs())
def test_a_big_games_reminder_names_no_village(
    renderer: Renderer, ruleset: str, language: str, theme: str
) -> None:
    key = StoryKey(ruleset, language, theme, "reminder")
    for kind in action_kinds(ruleset):
        context = big_sample(key, kind)
        mail = renderer.render_mail(key, context, 1)
        extra = [p.name for p in context["players"][-BIG_SAMPLE_EXTRA:]]
        listed = [name for name in extra if name in mail.text]
        assert len(listed) <= 3, (key, kind, listed)
        assert BIG_GAME_LINK in mail.text, (key, kind)


@pytest.mark.parametrize(("ruleset", "language", "theme"), _packs())
def test_a_big_games_role_mail_sums_up_the_players_and_links_the_game(
    renderer: Renderer, ruleset: str, language: str, theme: str
) -> None:
    key = StoryKey(ruleset, language, theme, "role")
    context = big_role_sample(key)
    mail = renderer.render_mail(key, context, 1)
    extra = [p.name for p in context["players"][-BIG_SAMPLE_EXTRA:]]
    listed = [name for name in extra if name in mail.text]
    assert not listed, (key, listed)
    words = load_words(ruleset, language).mail
    alive, dead, exiled = cast_counts(Cast(context["players"]))
    counts = fill(words.roster_count, alive=str(alive), dead=str(dead))
    if exiled:  # out of play but living (Lupus)
        counts += " " + fill(words.exiled, count=str(exiled)) + "."
    summary = f"{counts} {fill(words.roster_link, url=BIG_GAME_LINK)}"
    assert summary in mail.text, (key, mail.text)
    assert str(linked(summary, BIG_GAME_LINK)) in mail.html, key  # the game's page a link
    assert not [n for n in extra if n in mail.html], key


def test_a_big_games_role_mail_without_the_pages_names_every_player(renderer: Renderer) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "role")
    context = {**big_role_sample(key), "game_link": None, "page_link": None}
    mail = renderer.render_mail(key, context, 1)
    for player in context["players"]:
        assert player.name in mail.text
    assert BIG_GAME_LINK not in mail.text


@pytest.mark.parametrize(("ruleset", "language", "theme"), _packs())
def test_a_big_games_error_mail_counts_the_choices_and_links_his_page(
    renderer: Renderer, ruleset: str, language: str, theme: str
) -> None:
    key = StoryKey(ruleset, language, theme, "error")
    words = load_words(ruleset, language)
    helpers = Helpers(words, (), Random(0))
    for context in big_error_samples(key):
        mail = renderer.render_mail(key, context, 1)
        where = (key, context["code"])
        extra = [p.name for p in context["players"][-BIG_SAMPLE_EXTRA:]]
        listed = [name for name in extra if name in mail.text]
        assert len(listed) <= 1, (where, listed)  # an example at most, not the list
        many = helpers.count(len(context["choices"]), *words.mail.name_forms)
        line = fill(words.mail.choices_elsewhere, count=many, url=BIG_PAGE_LINK)
        assert line in mail.text, (where, mail.text)
        assert str(linked(line, BIG_PAGE_LINK)) in mail.html, where  # his page a link
        assert len([n for n in extra if f">{n}<" in mail.html]) <= 1, where


#: Templates that list a big game's village: what `stories check` says of each (patterns).
LISTING_THE_VILLAGE = [
    (
        "step",
        "{% block subject %}{{ game.name }} — {{ moment }}: jouw beurt{% endblock %}"
        "{% block body %}Beste {{ player.name }},\n\n{% for a in actions %}Je keuzes:\n"
        "{% for name in a.choices %}- {{ name }}\n{% endfor %}\n{% endfor %}\n"
        "Stuur je stem voor {{ when(game.deadline) }} ({{ game.timezone }}).\n\n"
        "De Verteller{% endblock %}",
        ("big game's step mail .* lists", "does not say"),
    ),
    (
        "reminder",
        "{% block subject %}{{ game.name }} — {{ moment }}: nog even{% endblock %}"
        "{% block body %}Beste {{ player.name }},\n\n{% for a in actions %}"
        'Je kunt kiezen uit {{ names(a.choices, "or") }}.\n{% endfor %}\n'
        "De Verteller{% endblock %}",
        ("big game's reminder .* lists",),
    ),
    (
        "role",
        "{% block subject %}{{ game.name }} — je rol{% endblock %}"
        "{% block body %}Beste {{ player.name }},\n\nJe bent {{ role_name(role) }}.\n\n"
        'Spelers: {{ names(players | map(attribute="name")) }}.\n\n'
        "De Verteller{% endblock %}",
        ("big game's role mail lists", "big game's role mail does not say"),
    ),
    (
        "error",
        "{% block subject %}{{ game.name if game else 'De Verteller' }} — mis{% endblock %}"
        "{% block body %}Beste speler,\n\n{{ error_text(code) }}\n"
        "{% if choices %}\nJe kunt kiezen uit:\n{% for name in choices %}- {{ name }}\n"
        "{% endfor %}{% endif %}\nDe Verteller{% endblock %}",
        ("big game's error mail lists", "big game's error mail does not say"),
    ),
]


@pytest.mark.parametrize(("mail", "template", "said"), LISTING_THE_VILLAGE)
def test_stories_check_refuses_a_big_games_mail_that_lists_the_village(
    mail: str, template: str, said: tuple[str, ...]
) -> None:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", mail)
    source = StorySource(key, 9, template, f"test/{mail}.9.j2")
    problems = validate_source(source, Renderer(over_shipped(source))).problems
    for pattern in said:
        assert any(re.search(pattern, p) for p in problems), (pattern, problems)
