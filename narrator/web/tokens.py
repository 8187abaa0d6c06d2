"""The personal link of a player: a signed, unguessable token naming his game, his seat and
the link's generation.

``{game id}.{player id}.{generation}.{signature}``, the signature an HMAC-SHA256 (the ``[web]
secret_env`` key) of the three numbers, in URL-safe base64: nobody without the key can make
one, and a token is checked in constant time (:func:`hmac.compare_digest`), so its checking
tells nothing by its timing.  The generation is the player's ``page_generation``: an admin
revokes a link by raising it (``narrator game revoke-link``), and a token of an older
generation opens nothing.  Tokens are never logged (the pages write no access log).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from urllib.parse import quote

_TOKEN = re.compile(
    r"([1-9][0-9]{0,18})\.([1-9][0-9]{0,18})\.(0|[1-9][0-9]{0,8})\.([A-Za-z0-9_-]{43})"
)


@dataclass(frozen=True)
class Seat:
    """Whose page a validly signed token opens: the game's id, the player's and the link's
    generation (the page opens only while it is the player's ``page_generation``)."""

    game_id: int
    player_id: int
    generation: int = 0


def _signature(secret: str, game_id: int, player_id: int, generation: int) -> str:
    message = f"narrator/page/{game_id}/{player_id}/{generation}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def page_token(secret: str, game_id: int, player_id: int, generation: int = 0) -> str:
    """The token of player `player_id`'s page in game `game_id`, of link `generation`."""
    signature = _signature(secret, game_id, player_id, generation)
    return f"{game_id}.{player_id}.{generation}.{signature}"


def read_token(secret: str, token: str) -> Seat | None:
    """The seat `token` opens, or None when it is malformed or not signed with `secret`."""
    match = _TOKEN.fullmatch(token)
    if match is None:
        return None
    game_id, player_id, generation = (int(match.group(i)) for i in (1, 2, 3))
    expected = _signature(secret, game_id, player_id, generation)
    if not hmac.compare_digest(expected.encode(), match.group(4).encode()):
        return None
    return Seat(game_id, player_id, generation)


@dataclass(frozen=True)
class PageLinks:
    """How mails write a player's personal link: the key and the pages' `base_url`."""

    secret: str
    base_url: str

    def link(self, game_id: int, player_id: int, generation: int) -> str:
        """The address of a player's own page."""
        return f"{self.base_url}/p/{page_token(self.secret, game_id, player_id, generation)}"

    def game(self, name: str) -> str:
        """The address of a game's public page (its story, who is alive and who is dead)."""
        return f"{self.base_url}/games/{quote(name, safe='')}"
