"""Subject lines show on lock screens: no shipped template names a role in its subject."""

from __future__ import annotations

import random
import re

import pytest

from stories import FileStore, Renderer, StorySource
from stories.helpers import Helpers
from stories.samples import mail_samples
from stories.vocab import LANGUAGES, ROLES


def role_words(language: str) -> list[str]:
    """Every playable role's name in `language`, singular and plural, through the helpers."""
    helpers = Helpers(language, (), random.Random(0))
    words = {helpers.role_name(role, n) for role in ROLES for n in (1, 2)}
    return sorted(words, key=len, reverse=True)


def mail_sources() -> list[StorySource]:
    return [source for source in FileStore().all() if source.key.is_mail]


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(FileStore())


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_role_words_are_read(language: str) -> None:
    words = role_words(language)
    assert ("Weerwolf" if language == "nl" else "Werewolf") in words
    assert ("Zieners" if language == "nl" else "Seers") in words


@pytest.mark.parametrize("source", mail_sources(), ids=lambda s: f"{s.key}#{s.variant}")
def test_no_subject_names_a_role(renderer: Renderer, source: StorySource) -> None:
    words = role_words(source.key.language)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)
    subjects = set()
    for number, context in enumerate(mail_samples(source.key)):
        mail = renderer.render_source_mail(source, context, random.Random(number))
        subjects.add(mail.subject)
    assert subjects
    leaks = sorted(s for s in subjects if pattern.search(s))
    assert leaks == [], f"{source.origin}: a role in the subject"
