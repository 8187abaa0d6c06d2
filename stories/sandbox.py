"""The Jinja2 sandbox stories run in, and compiling a template into a checked, safe form."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jinja2 import StrictUndefined, TemplateSyntaxError, meta, nodes
from jinja2.environment import Template
from jinja2.sandbox import ImmutableSandboxedEnvironment

from stories.helpers import StoryError, ucfirst

#: Jinja2 globals removed from the sandbox: not needed by stories, and each one more handle.
_REMOVED_GLOBALS = ("cycler", "joiner", "lipsum")
#: Filters removed: `random` draws from the global RNG (renders must be reproducible).
_REMOVED_FILTERS = ("random", "xmlattr", "tojson", "pprint")
_FORBIDDEN_NODES = (nodes.Include, nodes.Extends, nodes.Import, nodes.FromImport)
BLOCK_NAMES = ("subject", "body")


def make_environment() -> ImmutableSandboxedEnvironment:
    """A fresh sandbox: immutable, StrictUndefined, no loader, no autoescape (plain text)."""
    env = ImmutableSandboxedEnvironment(
        undefined=StrictUndefined,
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
    return env


@dataclass(frozen=True)
class Compiled:
    """A compiled story: the template, its block names and the free variables it uses."""

    template: Template
    blocks: frozenset[str]
    variables: frozenset[str]


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


def compile_story(
    env: ImmutableSandboxedEnvironment, source: str, origin: str, *, is_mail: bool
) -> Compiled:
    """Parse and compile one template, enforcing the pack's shape.

    Mail templates must define `{% block subject %}` and `{% block body %}` and nothing else
    outside them; event templates are fragments without blocks. No template may include,
    extend or import another. Raises StoryError with the origin and line on any problem.
    """
    try:
        tree = env.parse(keep_line_breaks(source), name=origin)
    except TemplateSyntaxError as error:
        raise StoryError(f"{origin}:{error.lineno}: syntax error: {error.message}") from None
    for node in tree.find_all(_FORBIDDEN_NODES):
        raise StoryError(
            f"{origin}:{node.lineno}: stories cannot include, extend or import other templates"
        )
    blocks = {block.name: block for block in tree.find_all(nodes.Block)}
    if is_mail:
        missing = [name for name in BLOCK_NAMES if name not in blocks]
        if missing:
            raise StoryError(
                f"{origin}: a mail template needs {{% block subject %}} and {{% block body %}}"
                f" (missing: {', '.join(missing)})"
            )
        extra = sorted(set(blocks) - set(BLOCK_NAMES))
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
    # Names the template assigns itself ({% set %}, loops, macros) are not context variables,
    # even where Jinja cannot prove the assignment runs first (a set inside an if).
    assigned = {node.name for node in tree.find_all(nodes.Name) if node.ctx in ("store", "param")}
    assigned |= {node.name for node in tree.find_all(nodes.Macro)}
    try:
        variables = frozenset(meta.find_undeclared_variables(tree)) - assigned
        template = env.from_string(tree)
    except TemplateSyntaxError as error:  # e.g. an unknown filter
        raise StoryError(f"{origin}:{error.lineno}: {error.message}") from None
    return Compiled(template, frozenset(blocks), variables)
