"""Is a mail really from its From address?  Authentication-Results and per-player reply addresses.

Two defences against forged votes (docs/security.md):

- **Authentication-Results** (RFC 8601): the receiving mail server checks DKIM, SPF and DMARC
  and writes the results in a header headed by its *authserv-id*.  Only the topmost such
  header with a configured authserv-id is read — the one our own server added above
  everything the sender wrote; headers further down (and headers with any other id) may have
  been written by the sender and are ignored.  The policy ``dmarc`` refuses mail whose DMARC
  check failed; ``dkim-or-spf`` refuses mail unless DKIM or SPF passed for the From domain.
- **Reply addresses** (plus-addressing): every mail to a player of a game carries a personal
  ``Reply-To: verteller+<game>-<secret>@domain``; a vote must be addressed to it.  The secret
  is an HMAC of a configured key, the game and the player's address: it is never stored, and
  only ever sent to that address, so a forger who does not read the player's mail can't know it.
"""

from __future__ import annotations

import base64
import email.parser
import email.utils
import hashlib
import hmac
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from email.policy import compat32

from narrator.config import Config
from narrator.models import Game, fold_email
from parsing import ParsedMail
from parsing.mime import MAX_HEADER_FIELDS

POLICIES = ("off", "dmarc", "dkim-or-spf")
MAX_HEADER_BYTES = 256 * 1024
TOKEN_LENGTH = 10
RECIPIENT_HEADERS = ("to", "cc", "delivered-to", "x-original-to", "envelope-to")

_HEADER_END = re.compile(rb"\r?\n\r?\n")
_SLUG = re.compile(r"[^a-z0-9]+")


# --- headers ------------------------------------------------------------------------------


def header_items(raw: bytes, parsed: ParsedMail | None = None) -> list[tuple[str, str]]:
    """The header fields of `raw` in order, names lower-cased, values unfolded (never raises).

    `parsed`, the parser's reading of `raw` (or of its header block alone), has read them
    already (:attr:`parsing.ParsedMail.header_fields`): they are taken from it when the header
    block ends within :data:`MAX_HEADER_BYTES` (the parser read the same block), not parsed
    again; a `parsed` with none (a header of no field, or one made by hand) is not believed.
    """
    match = _HEADER_END.search(raw, 0, MAX_HEADER_BYTES)
    if match and parsed is not None and parsed.header_fields:
        return list(parsed.header_fields)
    head = raw[: match.start()] if match else raw[:MAX_HEADER_BYTES]
    try:
        message = email.parser.BytesHeaderParser(policy=compat32).parsebytes(head + b"\r\n\r\n")
        items = message.raw_items()
    except Exception:  # any bytes: a header we can't read is a header we don't trust
        return []
    result = []
    for name, value in list(items)[:MAX_HEADER_FIELDS]:
        text = re.sub(r"\r?\n[ \t]*", " ", str(value)).strip()
        result.append((str(name).strip().lower(), text))
    return result


# --- the From field ------------------------------------------------------------------------

_ANGLE_ADDRESS = re.compile(r"<([^<>]*)>")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_ADDRESS_LIKE = re.compile(r"[^\s\"'<>(),;:\[\]]+@[^\s\"'<>(),;:\[\]]+\.[^\s\"'<>(),;:\[\]]+")
# Most mail's From: a display name of letters, digits and spaces, then one plain address in
# angle brackets, or that address alone.  It names one sender and nothing outside the
# brackets, so it is no problem without reading it as an address list (what
# :func:`_one_from_problem` would find: see tests/security/test_from_field.py).
_PLAIN_ADDRESS = r"[A-Za-z0-9._+-]+@[A-Za-z0-9.-]+"
_PLAIN_FROM = re.compile(rf"[A-Za-z0-9 ]*<{_PLAIN_ADDRESS}>|{_PLAIN_ADDRESS}")


def from_problem(items: Sequence[tuple[str, str]]) -> str | None:
    """Why the mail's From names no single sender (None when it names one, or none at all).

    A From with two addresses, two From fields, or an address written outside the angle
    brackets (``frits@sec.test <mallory@evil.test>``) leaves it open whose mail it is: the
    receiving server checks one address (DMARC: the mailbox in the brackets), a lenient
    reader may take another.  A display name that repeats the address itself
    (``"anna@example.net" <anna@example.net>``, as some clients write) is fine, and so is any
    quoted display name.
    """
    values = [value for name, value in items if name == "from"]
    if len(values) > 1:
        return "two From fields"
    if not values:
        return None
    value = values[0]
    if _PLAIN_FROM.fullmatch(value):
        return None
    return _one_from_problem(value)


def _one_from_problem(value: str) -> str | None:
    """Why the one From field `value` names no single sender (None when it names one)."""
    try:
        pairs = email.utils.getaddresses([value])
    except Exception:  # any header: an unreadable From is read by the parser's rules
        return None
    if len([address for _, address in pairs if address]) > 1:
        return "several addresses in From"
    # Outside the brackets and outside quotes an address is no display name: a lenient reader
    # takes it for the sender.  (A quoted or encoded display name is only a name: the parser
    # reads the bracketed address, the one the receiving server checked.)
    inside = {address.strip().lower() for address in _ANGLE_ADDRESS.findall(value)}
    outside = _QUOTED.sub(" ", _ANGLE_ADDRESS.sub(" ", value))
    written = {address.lower().strip(".") for address in _ADDRESS_LIKE.findall(outside)}
    if inside and written - inside:
        return "an address outside the angle brackets"
    return None


# --- Authentication-Results ---------------------------------------------------------------


@dataclass(frozen=True)
class AuthResult:
    """One method's result: ``dkim=pass header.d=example.org`` -> method, result, properties."""

    method: str
    result: str
    properties: dict[str, str] = field(default_factory=dict)


def _strip_comments(value: str) -> str:
    """Remove RFC 5322 comments (nested parentheses) outside quoted strings."""
    out: list[str] = []
    depth = 0
    quoted = False
    escaped = False
    for char in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(char)
            continue
        if char == "\\":
            escaped = True
            if depth == 0:
                out.append(char)
            continue
        if quoted:
            out.append(char)
            if char == '"':
                quoted = False
            continue
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif depth == 0:
            if char == '"':
                quoted = True
            out.append(char)
    return "".join(out)


def _split_outside_quotes(value: str, separator: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for char in value:
        if char == '"':
            quoted = not quoted
        if char == separator and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def parse_authentication_results(value: str) -> tuple[str, list[AuthResult]]:
    """Parse one Authentication-Results value into its authserv-id and results (lower-cased)."""
    parts = _split_outside_quotes(_strip_comments(value), ";")
    head = parts[0].split()
    authserv_id = head[0].lower() if head else ""
    results = []
    for part in parts[1:]:
        tokens = part.split()
        if not tokens or "=" not in tokens[0]:
            continue
        method, _, result = tokens[0].partition("=")
        properties = {}
        for token in tokens[1:]:
            key, eq, prop = token.partition("=")
            if eq:
                properties[key.lower()] = prop.strip('"').lower()
        results.append(AuthResult(method.split("/")[0].lower(), result.lower(), properties))
    return authserv_id, results


def trusted_results(
    items: Sequence[tuple[str, str]], authserv_ids: Iterable[str]
) -> list[AuthResult] | None:
    """The results of our own server: the topmost Authentication-Results header with one of
    `authserv_ids` (None when there is none).

    Only that one header is read.  Our server adds its header above everything the sender
    wrote, so the topmost one is ours as long as the server adds one to every mail (or strips
    headers with its id from incoming mail, RFC 8601 §5); a header lower down may be a forgery
    placed there by the sender, even directly below ours.
    """
    ids = {value.strip().lower() for value in authserv_ids}
    for name, value in items:
        if name != "authentication-results":
            continue
        authserv_id, results = parse_authentication_results(value)
        if authserv_id in ids:
            return results
    return None


def _domain(value: str) -> str:
    return value.rpartition("@")[2].strip().strip(".<>").lower()


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment without a public-suffix list: equal, or one a subdomain of the other."""
    if not domain or not from_domain:
        return False
    return (
        domain == from_domain
        or domain.endswith("." + from_domain)
        or from_domain.endswith("." + domain)
    )


@dataclass(frozen=True)
class SenderAuth:
    """The sender-authentication policy: ``off``, ``dmarc`` or ``dkim-or-spf``."""

    policy: str = "off"
    authserv_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown sender authentication policy {self.policy!r}")

    @property
    def enabled(self) -> bool:
        """Whether mail is checked at all."""
        return self.policy != "off"

    def check(self, items: Sequence[tuple[str, str]], sender: str) -> str | None:
        """None when `sender` may be trusted under the policy, else why not (for logs and mail)."""
        if not self.enabled:
            return None
        results = trusted_results(items, self.authserv_ids)
        if results is None:
            return "no Authentication-Results from our mail server"
        from_domain = _domain(sender)
        # Only a DMARC result about the sender's own domain says anything about him: a pass
        # (or fail) for another domain is about another From (a second address, a forger's
        # own domain), and a result without ``header.from`` is about no domain at all.
        dmarc = [
            r
            for r in results
            if r.method == "dmarc"
            and from_domain
            and r.properties.get("header.from") == from_domain
        ]
        if any(r.result == "fail" for r in dmarc):
            return "dmarc=fail"
        if any(r.result == "pass" for r in dmarc):
            return None
        if self.policy == "dmarc":
            found = next((r.result for r in results if r.method == "dmarc"), None)
            if found is None:
                return "no dmarc result"
            return f"no dmarc=pass for {from_domain or 'the sender'}"
        if any(_passes_aligned(r, from_domain) for r in results):
            return None
        return "neither DKIM nor SPF passed for " + (from_domain or "the sender")


def _passes_aligned(r: AuthResult, from_domain: str) -> bool:
    """Whether `r` is a DKIM or SPF pass for a domain aligned with the sender's."""
    if r.result != "pass":
        return False
    if r.method == "dkim":
        signer = r.properties.get("header.d") or _domain(r.properties.get("header.i", ""))
        return aligned(signer, from_domain)
    if r.method == "spf":
        return aligned(_domain(r.properties.get("smtp.mailfrom", "")), from_domain)
    return False


# --- per-player reply addresses -------------------------------------------------------------


@dataclass(frozen=True)
class ReplyAddresses:
    """Personal reply addresses ``local+<game>-<token>@domain`` for the players of a game."""

    address: str
    key: bytes = field(repr=False)

    def token(self, game_id: int, email: str) -> str:
        """The secret of (game, player address): a truncated HMAC-SHA256, base32, lower case."""
        message = f"reply-address/{game_id}/{fold_email(email)}".encode()
        digest = hmac.new(self.key, message, hashlib.sha256).digest()
        return base64.b32encode(digest).decode("ascii").lower()[:TOKEN_LENGTH]

    def for_player(self, game: Game, email: str) -> str:
        """The address `email` should send its votes in `game` to."""
        local, _, domain = self.address.rpartition("@")
        slug = _SLUG.sub("", game.name_key.lower())[:20] or "game"
        return f"{local}+{slug}-{self.token(game.id, email)}@{domain}"

    def is_addressed(self, items: Sequence[tuple[str, str]], game_id: int, email: str) -> bool:
        """Whether the mail (its To, Cc or delivery headers) names the player's reply address."""
        expected = self.token(game_id, email)
        local = self.address.rpartition("@")[0].lower()
        for recipient in recipients(items):
            base, plus, detail = recipient.partition("@")[0].partition("+")
            if not plus or base != local:
                continue
            given = detail.rpartition("-")[2]
            if hmac.compare_digest(given.encode(), expected.encode()):
                return True
        return False


def recipients(items: Sequence[tuple[str, str]]) -> list[str]:
    """Every address in the mail's recipient and delivery headers, lower-cased."""
    values = [value for name, value in items if name in RECIPIENT_HEADERS][:50]
    try:
        pairs = email.utils.getaddresses(values)
    except Exception:  # any header: unreadable recipients are no recipients
        return []
    return [address.strip().strip("<>").lower() for _, address in pairs[:200] if address]


def sender_auth_from_config(config: Config) -> SenderAuth:
    """The sender-authentication policy of ``[security]``."""
    return SenderAuth(config.security.sender_auth, config.security.authserv_ids)


def reply_addresses_from_config(config: Config) -> ReplyAddresses | None:
    """Personal reply addresses when ``[security] plus_addressing`` is on, else None.

    Raises ConfigError when the secret key's environment variable is unset.
    """
    if not config.security.plus_addressing:
        return None
    key = config.security.require_reply_secret().encode("utf-8")
    return ReplyAddresses(config.narrator.address, key)
