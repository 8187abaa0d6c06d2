"""Subject lines show on lock screens: no shipped template names a role in its subject."""

from __future__ import annotations

import random
import re

import pytest

from rules import get_ruleset
from stories import FileStore, Renderer, StorySource
from stories.samples import mail_samples
from stories.words import load_words
from tests.support.shipped import SHIPPED_RENDERER

pytestmark = pytest.mark.slow  # every shipped template rendered


def role_words(ruleset: str, language: str) -> list[str]:
    """Every playable role's name of `ruleset` in `language`, singular and plural (its pack's
    words; a public title such as the Mayor is no secret)."""
    named = load_words(ruleset, language).roles
    roles = [named[role] for role in get_ruleset(ruleset).roles]
    words = {word for role in roles for word in (role.name, role.plural)}
    return sorted(words, key=len, reverse=True)


def mail_sources() -> list[StorySource]:
    return [source for source in FileStore().all() if source.key.is_mail]


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


@pytest.mark.parametrize(
    ("language", "wolf", "seers"), [("nl", "Weerwolf", "Zieners"), ("en", "Werewolf", "Seers")]
)
def test_the_role_words_are_read(language: str, wolf: str, seers: str) -> None:
    words = role_words("wakkerdam", language)
    assert wolf in words and seers in words


@pytest.mark.parametrize("source", mail_sources(), ids=lambda s: f"{s.key}#{s.variant}")
def test_no_subject_names_a_role(renderer: Renderer, source: StorySource) -> None:
    words = role_words(source.key.ruleset, source.key.language)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)
    subjects = set()
    for number, context in enumerate(mail_samples(source.key)):
        mail = renderer.render_source_mail(source, context, random.Random(number))
        subjects.add(mail.subject)
    assert subjects
    leaks = sorted(s for s in subjects if pattern.search(s))
    assert leaks == [], f"{source.origin}: a role in the subject"
