"""Error explanations: the explainer type, a neutral default, and params as texts.

The parser words no reply itself: a ``ParseError``'s ``message`` comes from the explainer in
the :class:`parsing.MailContext` (the narrator passes one built from the story pack's wording).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

ErrorParams = Mapping[str, str | tuple[str, ...]]
"""The parameters of an error: texts, or lists of names (``choices``, ``names``, ...)."""

Explain = Callable[[str, ErrorParams], str]
"""An explainer: ``(error code, params) -> the reply text`` for one language; pure."""


class ParamTexts(dict[str, str]):
    """Params as texts for ``str.format_map``: lists joined with ``", "``, and ``"-"`` for an
    empty list or a missing key (a wording may name a param an error does not carry)."""

    def __init__(self, params: ErrorParams) -> None:
        super().__init__(
            {
                key: (", ".join(value) or "-") if isinstance(value, tuple) else value
                for key, value in params.items()
            }
        )

    def __missing__(self, key: str) -> str:
        return "-"


def explain_plainly(code: str, params: ErrorParams) -> str:
    """The default explainer: no sentence of any language, only the code and its params,
    e.g. ``no-name; choices: Anna, Bram; expected: 1`` (the story layer words the replies)."""
    texts = ParamTexts(params)
    details = "".join(f"; {key}: {texts[key]}" for key in sorted(texts))
    return f"{code}{details}"
