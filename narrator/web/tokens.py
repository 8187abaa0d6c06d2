"""The personal link of a player: a signed, unguessable token naming his game and his seat.

``{game id}.{player id}.{signature}``, the signature an HMAC-SHA256 (the ``[web] secret_env``
key) of the two ids, in URL-safe base64: nobody without the key can make one, and a token is
checked in constant time (:func:`hmac.compare_digest`), so its checking tells nothing by its
timing.  Tokens are never logged (the pages write no access log).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

_TOKEN = re.compile(r"([1-9][0-9]{0,18})\.([1-9][0-9]{0,18})\.([A-Za-z0-9_-]{43})")


@dataclass(frozen=True)
class Seat:
    """Whose page a valid token opens: the game's id and the player's."""

    game_id: int
    player_id: int


def _signature(secret: str, game_id: int, player_id: int) -> str:
    message = f"narrator/page/{game_id}/{player_id}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def page_token(secret: str, game_id: int, player_id: int) -> str:
    """The token of player `player_id`'s page in game `game_id`."""
    return f"{game_id}.{player_id}.{_signature(secret, game_id, player_id)}"


def read_token(secret: str, token: str) -> Seat | None:
    """The seat `token` opens, or None when it is malformed or not signed with `secret`."""
    match = _TOKEN.fullmatch(token)
    if match is None:
        return None
    game_id, player_id = int(match.group(1)), int(match.group(2))
    expected = _signature(secret, game_id, player_id)
    if not hmac.compare_digest(expected.encode(), match.group(3).encode()):
        return None
    return Seat(game_id, player_id)
