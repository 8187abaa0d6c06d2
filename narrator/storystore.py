"""The stories table as a template store, layered over the shipped packs (what the daemon renders).

Writers add templates to the table (`narrator stories add`); for keys the table lacks, the
shipped packs (`stories/<ruleset>/<lang>/<theme>/`) are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from narrator.models import Story
from stories import FileStore, StoryKey, StoryKeyError, StorySource, TemplateStore


class DatabaseStore:
    """The stories table as a template store (one session; nothing cached)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @staticmethod
    def _source(row: Story) -> StorySource:
        key = StoryKey(row.ruleset, row.language, row.theme, row.event)
        return StorySource(key, row.variant, row.source, f"db:{key}#{row.variant}")

    def _rows(self, key: StoryKey) -> list[Story]:
        query = (
            select(Story)
            .where(Story.ruleset == key.ruleset)
            .where(Story.language == key.language)
            .where(Story.theme == key.theme)
            .where(Story.event == key.event)
            .order_by(Story.variant)
        )
        return list(self.session.scalars(query))

    def variants(self, key: StoryKey) -> Sequence[StorySource]:
        """Every variant stored under `key`, in variant order."""
        return [self._source(row) for row in self._rows(key)]

    def all(self) -> Sequence[StorySource]:
        """Every stored template, sorted by key and variant."""
        rows = self.session.scalars(
            select(Story).order_by(
                Story.ruleset, Story.language, Story.theme, Story.event, Story.variant
            )
        )
        sources = []
        for row in rows:
            try:
                sources.append(self._source(row))
            except StoryKeyError:
                continue  # a row for an event this version does not know: never rendered
        return sources

    def put(self, source: StorySource, *, replace: bool) -> str:
        """Store a variant; returns "added", "replaced", "unchanged" (same text stored) or
        "exists" (another text stored and not `replace`)."""
        for row in self._rows(source.key):
            if row.variant == source.variant:
                if row.source == source.source:
                    return "unchanged"
                if not replace:
                    return "exists"
                row.source = source.source
                return "replaced"
        key = source.key
        self.session.add(
            Story(
                ruleset=key.ruleset,
                language=key.language,
                theme=key.theme,
                event=key.event,
                variant=source.variant,
                source=source.source,
            )
        )
        self.session.flush()
        return "added"

    def remove(self, key: StoryKey, variant: int | None) -> int:
        """Delete one variant (or all when `variant` is None); returns how many were removed."""
        removed = 0
        for row in self._rows(key):
            if variant is None or row.variant == variant:
                self.session.delete(row)
                removed += 1
        return removed

    def next_variant(self, key: StoryKey) -> int:
        """The lowest free variant number above every stored one."""
        return max((row.variant for row in self._rows(key)), default=0) + 1


@dataclass
class LayeredStore:
    """Templates from `first` where it has any for a key, else from `fallback`."""

    first: TemplateStore
    fallback: TemplateStore

    def variants(self, key: StoryKey) -> Sequence[StorySource]:
        """`first`'s variants of `key`, or `fallback`'s when `first` has none."""
        return self.first.variants(key) or self.fallback.variants(key)

    def all(self) -> Sequence[StorySource]:
        """Every template that `variants` can return."""
        first = list(self.first.all())
        keys = {source.key for source in first}
        rest = [s for s in self.fallback.all() if s.key not in keys]
        return sorted(first + rest, key=lambda s: (s.key, s.variant))


class ReloadedStore:
    """The templates a mailer renders now: `current`, which the mailer's reload replaces
    (:meth:`narrator.service.mailer.Mailer.reload`).

    Its renderer (and the web pages that share it) render through it, so a reload changes
    what they render without a new renderer, and the templates compiled before it are kept.
    Only the mailer that built it swaps `current`: no renderer shared by several mailers
    renders through one (a renderer's store is fixed).
    """

    def __init__(self, current: TemplateStore) -> None:
        self.current = current

    def variants(self, key: StoryKey) -> Sequence[StorySource]:
        """`current`'s variants of `key`."""
        return self.current.variants(key)

    def all(self) -> Sequence[StorySource]:
        """Every template of `current`."""
        return self.current.all()


def runtime_store(session: Session) -> TemplateStore:
    """The store the daemon renders from: the stories table, over the shipped packs for keys
    the table does not have."""
    return LayeredStore(DatabaseStore(session), FileStore())


def load_defaults(session: Session, *, replace: bool = False) -> dict[str, int]:
    """Load every shipped pack file into the stories table.

    Existing variants are kept unless `replace`. Returns counts of added/replaced/kept.
    """
    store = DatabaseStore(session)
    counts = {"added": 0, "replaced": 0, "kept": 0}
    for source in FileStore().all():
        outcome = store.put(source, replace=replace)
        counts[outcome if outcome in counts else "kept"] += 1
    return counts
