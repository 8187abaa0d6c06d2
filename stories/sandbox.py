"""The Jinja2 sandbox stories run in, and compiling a template into a checked, safe form."""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from jinja2 import StrictUndefined, TemplateSyntaxError, meta, nodes, pass_context
from jinja2.environment import Template
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from stories.helpers import StoryError, ucfirst
from stories.keys import BASE_THEME, StoryKey, StoryKeyError

#: Jinja2 globals removed from the sandbox: not needed by stories, and each one more handle.
_REMOVED_GLOBALS = ("cycler", "joiner", "lipsum")
#: Filters removed: `random` draws from the global RNG (renders must be reproducible).
_REMOVED_FILTERS = ("random", "xmlattr", "tojson", "pprint")
_LINK_NODES = (nodes.Include, nodes.Extends, nodes.Import, nodes.FromImport)
BLOCK_NAMES = ("subject", "body")


def resolve_name(written: str, parent: str | None) -> str:
    """The template `written` in an include/import/extends of template `parent`, as a full
    name `ruleset/lang/theme/event`: `"x.j2"` is in the parent's own pack (theme),
    `"_base/x.j2"` in the language's shared base.  Nothing else can be reached.

    Raises StoryError for any other name.
    """
    parts = (parent or "").split("/")
    if len(parts) != 4:
        raise StoryError(f"cannot include {written!r} here")
    ruleset, language, theme, _ = parts
    name = written
    if name.startswith(BASE_THEME + "/"):
        theme, name = BASE_THEME, name[len(BASE_THEME) + 1 :]
    if "/" in name or not name.endswith(".j2"):
        raise StoryError(
            f"cannot include {written!r}: write 'name.j2' (this pack) or "
            f"'{BASE_THEME}/name.j2' (the language's shared templates)"
        )
    try:
        key = StoryKey(ruleset, language, theme, name[:-3])
    except StoryKeyError as error:
        raise StoryError(f"cannot include {written!r}: {error}") from None
    return key.template_name


class StoryEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox, whose include/import/extends reach only the same pack and `_base`."""

    #: The stories' own frozen dataclasses (the game, a player, an action: what templates read
    #: most), whose attributes the sandbox's check passes unless private (see
    #: :meth:`is_safe_attribute`); set by :func:`make_environment`.
    plain_data: frozenset[type] = frozenset()

    def join_path(self, template: str, parent: str) -> str:
        """The full name of `template` written in `parent` (see :func:`resolve_name`)."""
        return resolve_name(template, parent)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """The sandbox's verdict (Jinja's documented hook for it), found at once for an object
        of :attr:`plain_data`: none is a function, method, type, code, frame or generator, nor
        a mutable container, so Jinja's own check of it comes down to the name not being
        private (``_`` first).  Its isinstance tests (against the mutable ABCs too) cost more
        than a template's whole read of ``game.name``; a test compares both verdicts."""
        if type(obj) in self.plain_data:
            return not attr.startswith("_")
        return super().is_safe_attribute(obj, attr, value)


def make_environment() -> StoryEnvironment:
    """A fresh sandbox: immutable, StrictUndefined, no autoescape (plain text); templates it
    includes come from the loader the renderer sets (its store), never from files."""
    env = StoryEnvironment(
        undefined=StrictUndefined,
        cache_size=0,  # the renderer keeps compiled templates, per source text
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,
    )
    for name in _REMOVED_GLOBALS:
        env.globals.pop(name, None)
    for name in _REMOVED_FILTERS:
        env.filters.pop(name, None)
    env.filters["ucfirst"] = ucfirst
    env.filters["map"] = _names_of_a_cast_at_once(env.filters["map"])
    from stories.context import Action, Game, Player  # (as in _names_of_a_cast_at_once)

    env.plain_data = frozenset({Game, Player, Action})
    return env


def _names_of_a_cast_at_once(jinja_map: Callable[..., Any]) -> Callable[..., Any]:
    """Jinja's ``map`` filter, but ``players | map(attribute="name")`` over the cast (a role
    mail lists every player) reads each player's name directly: the sandbox's check of each
    attribute read cost a thousand-player game's start a million checks (a name is a plain
    field of the stories' own Player).  Every other use is Jinja's own, checked as ever."""
    from stories.context import Cast  # the cast's module reads the rulesets: not at import

    @pass_context
    def map_filter(context: Context, value: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        if type(value) is Cast and not args and kwargs == {"attribute": "name"}:
            return (player.name for player in value)
        result: Iterator[Any] = jinja_map(context, value, *args, **kwargs)
        return result

    return map_filter


@dataclass(frozen=True)
class Compiled:
    """A compiled story: the template, its block names, the templates it includes or imports
    and the one it extends (full names).  The context variables it uses are
    :func:`story_variables`'s (only `stories check` asks)."""

    template: Template
    blocks: frozenset[str]
    includes: tuple[str, ...] = ()
    parent: str | None = None


def with_globals(template: Template, values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` over `template`'s globals, as one dict: what ``template.new_context(values)``
    copies them into, for ``new_context(..., shared=True)``, which takes it as it is (Jinja
    makes the copy from its chain of globals one key at a time, in Python)."""
    found = template.globals
    layers = found.maps if isinstance(found, ChainMap) else [found]
    merged: dict[str, Any] = {}
    for layer in reversed(layers):  # the first layer wins, as in the chain
        merged.update(layer)
    merged.update(values)
    return merged


_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def keep_line_breaks(source: str) -> str:
    """Keep the line break after a tag that ends a line of text.

    Jinja's `trim_blocks` drops the newline after every block tag, which is right for a line
    holding only tags, but joins a text line such as `- {{ x }}{% if y %} (z){% endif %}` to
    the next one.  Such tags get Jinja's `+%}` marker, which keeps the newline; line numbers
    stay the same.
    """
    masked = _TAG.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    lines = source.split("\n")
    for number, (line, mask) in enumerate(zip(lines, masked.split("\n"), strict=True)):
        stripped = line.rstrip()
        if (
            stripped.endswith("%}")
            and not stripped.endswith(("-%}", "+%}"))
            and mask.strip()
            and number < len(lines) - 1
        ):
            lines[number] = stripped[:-2] + "+%}" + line[len(stripped) :]
    return "\n".join(lines)


def _links(tree: nodes.Template, name: str, origin: str) -> tuple[list[str], str | None]:
    """The full names a template includes/imports, and the one it extends (or None)."""
    includes: list[str] = []
    parent = None
    for node in tree.find_all(_LINK_NODES):
        target = cast(nodes.Include, node).template  # every link node has `template`
        if not isinstance(target, nodes.Const) or not isinstance(target.value, str):
            raise StoryError(
                f"{origin}:{node.lineno}: include, import and extends take a written-out "
                "name ('name.j2' or '_base/name.j2')"
            )
        try:
            resolved = resolve_name(target.value, name)
        except StoryError as error:
            raise StoryError(f"{origin}:{node.lineno}: {error}") from None
        if isinstance(node, nodes.Extends):
            if parent is not None:
                raise StoryError(f"{origin}:{node.lineno}: a template extends one template")
            parent = resolved
        elif resolved not in includes:
            includes.append(resolved)
    return includes, parent


def compile_story(
    env: ImmutableSandboxedEnvironment,
    source: str,
    origin: str,
    *,
    is_mail: bool,
    name: str | None = None,
    is_partial: bool = False,
) -> Compiled:
    """Parse and compile one template, enforcing the pack's shape.

    Mail templates must define `{% block subject %}` and `{% block body %}` and nothing else
    outside them (or extend a mail template and override its blocks); event templates are
    fragments without blocks (unless they extend).  `name` is the template's full name
    (`ruleset/lang/theme/event`): include, import and extend names are resolved from it, and
    must be written out; a partial (`_name`) may have any shape.  Raises StoryError with the
    origin and line on any problem.
    """
    try:
        tree = env.parse(keep_line_breaks(source), name=name or origin)
    except TemplateSyntaxError as error:
        raise StoryError(f"{origin}:{error.lineno}: syntax error: {error.message}") from None
    includes, parent = _links(tree, name or "", origin)
    blocks = {block.name: block for block in tree.find_all(nodes.Block)}
    if is_partial or parent is not None:
        pass  # a piece of another template, or a variation of one: the parent has the shape
    elif is_mail:
        missing = [name for name in BLOCK_NAMES if name not in blocks]
        if missing:
            raise StoryError(
                f"{origin}: a mail template needs {{% block subject %}} and {{% block body %}}"
                f" (missing: {', '.join(missing)})"
            )
        top = {node.name for node in tree.body if isinstance(node, nodes.Block)}
        extra = sorted(top - set(BLOCK_NAMES))  # blocks inside them are for extending
        if extra:
            raise StoryError(f"{origin}: unknown block(s) {', '.join(extra)}")
        for node in tree.body:
            if isinstance(node, nodes.Block):
                continue
            if isinstance(node, nodes.Output) and all(
                isinstance(child, nodes.TemplateData) and not child.data.strip()
                for child in node.nodes
            ):
                continue
            raise StoryError(
                f"{origin}:{node.lineno}: text outside {{% block subject %}} and "
                "{% block body %} would be lost"
            )
    elif blocks:
        raise StoryError(f"{origin}: event templates are fragments; remove the blocks")
    try:
        code = env.compile(tree, name=name, filename=origin)
        template = env.template_class.from_code(env, code, env.make_globals(None), None)
    except TemplateSyntaxError as error:  # e.g. an unknown filter
        raise StoryError(f"{origin}:{error.lineno}: {error.message}") from None
    return Compiled(template, frozenset(blocks), tuple(includes), parent)


def story_variables(
    env: ImmutableSandboxedEnvironment, source: str, origin: str, name: str | None = None
) -> frozenset[str]:
    """The context variables a template reads (`stories check` compares them with what its
    event's context holds).

    A template :func:`compile_story` accepted parses again here: finding them is a second
    pass of Jinja's code generator over the template, as long as compiling it, which the
    renderer, compiling every template the first time a mail needs it, has no use for.
    """
    tree = env.parse(keep_line_breaks(source), name=name or origin)
    # Names the template assigns itself ({% set %}, loops, macros) are not context variables,
    # even where Jinja cannot prove the assignment runs first (a set inside an if).
    assigned = {node.name for node in tree.find_all(nodes.Name) if node.ctx in ("store", "param")}
    assigned |= {node.name for node in tree.find_all(nodes.Macro)}
    return frozenset(meta.find_undeclared_variables(tree)) - assigned
