"""Where templates come from: the template-store interface, the shipped file packs, memory."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from stories.keys import StoryKey, StoryKeyError, key_from_path


@dataclass(frozen=True)
class StorySource:
    """One template variant: its key, variant number, Jinja2 source and where it came from."""

    key: StoryKey
    variant: int
    source: str
    origin: str = ""


class TemplateStore(Protocol):
    """A source of story templates (the file packs, the database, a test's memory)."""

    def variants(self, key: StoryKey) -> Sequence[StorySource]:
        """Every variant stored under `key`, in variant order (empty when there is none)."""
        ...

    def all(self) -> Sequence[StorySource]:
        """Every stored template, sorted by key and variant."""
        ...


def default_pack_root() -> Path:
    """The directory holding the shipped packs (`<root>/<ruleset>/<lang>/<theme>/*.j2`)."""
    return Path(__file__).resolve().parent


class MemoryStore:
    """A template store held in memory (tests, and validation before storing)."""

    def __init__(self, sources: Iterable[StorySource] = ()) -> None:
        self._sources: dict[tuple[StoryKey, int], StorySource] = {}
        self._by_key: dict[StoryKey, list[StorySource]] = {}
        for source in sources:
            self.put(source)

    def put(self, source: StorySource) -> None:
        """Add or replace one variant."""
        self._sources[(source.key, source.variant)] = source
        variants = [s for s in self._by_key.get(source.key, []) if s.variant != source.variant]
        variants.append(source)
        self._by_key[source.key] = sorted(variants, key=lambda s: s.variant)

    def variants(self, key: StoryKey) -> Sequence[StorySource]:
        """Every variant stored under `key`, in variant order."""
        return list(self._by_key.get(key, ()))

    def all(self) -> Sequence[StorySource]:
        """Every stored template, sorted by key and variant."""
        return [source for _, source in sorted(self._sources.items())]


class FileStore(MemoryStore):
    """The shipped packs: every `<root>/<ruleset>/<lang>/<theme>/<event>[.N].j2` file."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_pack_root()
        super().__init__(load_pack_files(self.root))


def load_pack_files(root: Path) -> list[StorySource]:
    """Read every pack file below `root` (exactly four levels deep).

    Raises StoryKeyError for a `.j2` file whose name does not follow the layout.
    """
    sources = []
    for path in sorted(root.glob("*/*/*/*.j2")):
        relative = path.relative_to(root)
        try:
            key, variant = key_from_path(relative)
        except StoryKeyError as error:
            raise StoryKeyError(f"{path}: {error}") from None
        sources.append(StorySource(key, variant, path.read_text(encoding="utf-8"), str(path)))
    return sources


def over_shipped(*sources: StorySource) -> MemoryStore:
    """The shipped packs with `sources` added (replacing the same key and variant): a store in
    which a template not stored yet finds what it includes, imports or extends."""
    store = MemoryStore(FileStore().all())
    for source in sources:
        store.put(source)
    return store
