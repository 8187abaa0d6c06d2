"""The admin panel's locks: argon2 password hashes, the signed session cookie, CSRF tokens and
the limits on failed logins.

A session is a cookie the server keeps nothing of: the admin's address, when it expires, a
random nonce and a fingerprint of his password hash, signed with an HMAC-SHA256 of the ``[web]
secret_env`` key.  Setting a new password (or removing the admin) ends his sessions, since the
fingerprint (or the admin) no longer matches.  Every form carries a CSRF token, the HMAC of the
session's nonce (of a login cookie's nonce on the login form); signatures and tokens are
compared in constant time, and nothing here is ever logged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

#: The session cookie and the login form's cookie.
SESSION_COOKIE = "narrator_admin"
LOGIN_COOKIE = "narrator_login"
#: How long a session lasts from its login, in seconds.
SESSION_SECONDS = 8 * 3600
#: The shortest password ``narrator admin password`` takes.
MIN_PASSWORD_LENGTH = 12
#: A hash of a random password, verified when the address has none, so that a login takes as
#: long whether the address is an admin's or not (argon2-cffi's default parameters).
_DUMMY_HASH = (
    "$argon2id$v=19$m=65536,t=3,p=4$ZnbJKBrUhV4zJDhgsJ7F8g$"
    "fErB+d/6B7DUEQPSV7T3xcSi4G32LElRjJfHTcr2nyo"
)


def _hasher() -> PasswordHasher:
    return PasswordHasher()  # argon2id with RFC 9106's low-memory parameters


def hash_password(password: str) -> str:
    """The argon2id hash of `password` (PHC string format, salted)."""
    return _hasher().hash(password)


def check_password(stored: str | None, password: str) -> bool:
    """Whether `password` matches the `stored` hash (None: the address has no password; a
    hash is verified all the same, so the answer takes as long)."""
    try:
        _hasher().verify(stored or _DUMMY_HASH, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
    return stored is not None


def fingerprint(stored: str) -> str:
    """What a session remembers of the password hash it was opened with (not the hash)."""
    return hashlib.sha256(stored.encode()).hexdigest()[:32]


def _mac(secret: str, purpose: str, message: str) -> str:
    digest = hmac.new(secret.encode(), f"narrator/{purpose}/{message}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")


def new_nonce() -> str:
    """A random, unguessable nonce (of a session or a login form)."""
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class AdminSession:
    """Who is logged in (`email`), until when (`expires`, seconds since the epoch), the
    session's `nonce` (its CSRF tokens derive from it) and the password's `fingerprint`."""

    email: str
    expires: int
    nonce: str
    fingerprint: str


def session_cookie(secret: str, session: AdminSession) -> str:
    """The signed cookie value of `session`."""
    fields = [session.email, session.expires, session.nonce, session.fingerprint]
    payload = base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")
    return f"{payload}.{_mac(secret, 'admin-session', payload)}"


def read_session(secret: str, cookie: str | None, now: float) -> AdminSession | None:
    """The session `cookie` holds, when it is signed with `secret` and not expired at `now`
    (seconds since the epoch); else None."""
    if not cookie or len(cookie) > 4096 or "." not in cookie:
        return None
    payload, _, signature = cookie.rpartition(".")
    expected = _mac(secret, "admin-session", payload)
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        return None
    try:
        fields = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        email, expires, nonce, print_ = fields
    except (ValueError, TypeError):
        return None
    if not (
        isinstance(email, str)
        and isinstance(expires, int)
        and isinstance(nonce, str)
        and isinstance(print_, str)
    ):
        return None
    if expires <= now:
        return None
    return AdminSession(email, expires, nonce, print_)


def csrf_token(secret: str, nonce: str) -> str:
    """The CSRF token of the forms of the session (or login form) with `nonce`."""
    return _mac(secret, "admin-csrf", nonce)


def is_csrf_valid(secret: str, nonce: str | None, token: str | None) -> bool:
    """Whether a form's `token` is the one of `nonce` (constant time)."""
    if not nonce or not token:
        return False
    return hmac.compare_digest(csrf_token(secret, nonce).encode(), token.encode())


class LoginLimiter:
    """Failed logins counted over a sliding `window` (seconds): at most `per_address` for one
    address and `per_client` from one client; beyond that, logins wait (even right ones).

    Kept in the memory of the process that serves the panel (the app owns one), so a restart
    forgets them; at most `max_keys` addresses and clients are remembered (the oldest dropped).
    """

    def __init__(
        self,
        *,
        per_address: int = 5,
        per_client: int = 20,
        window: float = 15 * 60.0,
        max_keys: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_address = per_address
        self.per_client = per_client
        self.window = window
        self.max_keys = max_keys
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> int:
        failures = self._failures.get(key)
        if failures is None:
            return 0
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        if not failures:
            del self._failures[key]
            return 0
        return len(failures)

    def is_allowed(self, address: str, client: str) -> bool:
        """Whether a login of `address` from `client` may be tried now."""
        now = self._clock()
        return (
            self._recent(f"address:{address}", now) < self.per_address
            and self._recent(f"client:{client}", now) < self.per_client
        )

    def failed(self, address: str, client: str) -> None:
        """Count one failed login of `address` from `client`."""
        now = self._clock()
        for key in (f"address:{address}", f"client:{client}"):
            self._failures.setdefault(key, deque()).append(now)
        while len(self._failures) > self.max_keys:
            del self._failures[next(iter(self._failures))]

    def succeeded(self, address: str) -> None:
        """Forget the failed logins of `address` (its admin got in)."""
        self._failures.pop(f"address:{address}", None)
