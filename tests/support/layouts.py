"""Counting the mail layout's compilations (stories.render.compile_layout) in a test."""

from __future__ import annotations

import pytest
from jinja2 import Template

import stories.render


def count_layout_compiles(monkeypatch: pytest.MonkeyPatch) -> list[Template]:
    """The layouts compiled from now on, in order, each the one its renderer keeps."""
    compiled: list[Template] = []
    compile_layout = stories.render.compile_layout

    def counted() -> Template:
        compiled.append(compile_layout())
        return compiled[-1]

    monkeypatch.setattr(stories.render, "compile_layout", counted)
    return compiled
