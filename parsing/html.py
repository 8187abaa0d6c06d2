"""HTML mail to plain text: quote containers kept as ``>`` lines, signatures and tails dropped.

Parsed with selectolax (the Lexbor HTML5 engine: fast, and tolerant of any broken markup).
Rendering is deliberately simple: block elements and ``<br>`` end lines, ``<blockquote>``
prefixes its lines with ``>`` (so the plain-text quote rules apply to Gmail, Apple Mail and
Thunderbird quotes alike), and the nodes below are removed first:

- scripts, styles, the head;
- signature containers (Gmail ``gmail_signature``, Thunderbird ``moz-signature``, Outlook
  ``Signature``, mobile Outlook's signature);
- Outlook's reply block (``divRplyFwdMsg``, ``appendonsend``, the bordered header ``div`` of
  Outlook desktop) *and everything after it*: Outlook does not quote the original, it appends it.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

MAX_NODES = 50_000
# Lexbor's tree building grows quadratically with nesting depth; the player's text is at the
# top, so markup past this many tags is cut before parsing.
MAX_TAGS = 10_000

_DROP = (
    "head, script, style, title, template, noscript, "
    ".gmail_signature, [data-smartmail=gmail_signature], .moz-signature, #Signature, "
    "#ms-outlook-mobile-signature, .ms-outlook-mobile-signature, #signature, .signature"
)
_OUTLOOK_TAIL = (
    "#divRplyFwdMsg, #x_divRplyFwdMsg, #appendonsend, #x_appendonsend, .OutlookMessageHeader, "
    "#mail-editor-reference-message-container, .yahoo_quoted, #OLK_SRC_BODY_SECTION"
)
_BLOCKS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "center",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "html",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)


def html_to_text(html: str) -> str:
    """Render an HTML mail body as plain text (see the module docstring)."""
    if not html.strip():
        return ""
    html = _cut_after_tags(html, MAX_TAGS)
    tree = LexborHTMLParser(html)
    root = tree.body or tree.root
    if root is None:
        return ""
    for node in root.css(_DROP):
        node.decompose()
    _drop_outlook_tail(root)
    return _render(root)


def _cut_after_tags(html: str, limit: int) -> str:
    position = -1
    for _ in range(limit):
        position = html.find("<", position + 1)
        if position < 0:
            return html
    return html[:position]


def _drop_outlook_tail(root: LexborNode) -> None:
    marker = root.css_first(_OUTLOOK_TAIL)
    if marker is None:
        marker = _outlook_desktop_header(root)
    if marker is None:
        return
    # Remove the marker, its following siblings, and those of every ancestor up to the root.
    node: LexborNode | None = marker
    while node is not None and node.mem_id != root.mem_id:
        following = node.next
        while following is not None:
            after = following.next
            following.decompose()
            following = after
        parent = node.parent
        if node is marker:
            node.decompose()
        node = parent


def _outlook_desktop_header(root: LexborNode) -> LexborNode | None:
    for node in root.css("div[style*='border-top']"):
        style = (node.attributes.get("style") or "").replace(" ", "").lower()
        if "border:none" in style and "padding:3.0pt" in style:
            return node
    return None


def _render(root: LexborNode) -> str:
    lines: list[str] = []
    current: list[str] = []
    depth_of_line = [0]
    count = 0

    def end_line(depth: int, blank: bool = False) -> None:
        text = " ".join("".join(current).split())
        if text:
            lines.append("> " * depth_of_line[0] + text)
        if (blank or not text) and lines and lines[-1] != "" and (blank or tag == "br"):
            lines.append("")  # a paragraph's end, or <br> on an empty line
        current.clear()
        depth_of_line[0] = depth

    # Iterative walk (deeply nested markup must not exhaust the stack).
    stack: list[tuple[LexborNode, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, closing = stack.pop()
        tag = node.tag or ""
        if closing:
            if tag in _BLOCKS:
                end_line(depth, blank=tag == "p")
            continue
        count += 1
        if count > MAX_NODES:
            break
        if tag == "-text":
            if not current:
                depth_of_line[0] = depth
            current.append(node.text_content or "")
            continue
        if tag == "br":
            end_line(depth)
            continue
        if tag == "img":
            continue
        child_depth = depth + 1 if tag == "blockquote" else depth
        if tag in _BLOCKS:
            end_line(child_depth)
        stack.append((node, depth, True))
        children = []
        child = node.child
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend((child, child_depth, False) for child in reversed(children))
    tag = ""
    end_line(0)
    return "\n".join(lines).strip()
