"""Time zones of games: IANA names checked with :mod:`zoneinfo`, deadlines shown in them."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_TIMEZONE = "UTC"
TIMEZONE_LENGTH = 64
# An IANA key: "UTC", "Europe/Amsterdam", "America/Argentina/Buenos_Aires", "Etc/GMT+1".
_ZONE_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")


def parse_timezone(name: str) -> ZoneInfo:
    """Return the zone called `name` (an IANA name such as ``Europe/Amsterdam``).

    Raises ValueError saying why for an empty, malformed, too long or unknown name.
    """
    if not name:
        raise ValueError("a time zone may not be empty (write e.g. UTC or Europe/Amsterdam)")
    if len(name) > TIMEZONE_LENGTH or not _ZONE_KEY.fullmatch(name):
        raise ValueError(f"not a time zone name: {name!r} (write e.g. UTC or Europe/Amsterdam)")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(
            f"unknown time zone {name!r} (an IANA name such as UTC or Europe/Amsterdam)"
        ) from None


def zone_or_utc(name: str | None) -> ZoneInfo:
    """The zone called `name`, or UTC when it is empty or unknown here.

    A stored zone that this machine's zone database lacks falls back to UTC rather than
    failing a mail (the name was checked when the game was created); the caller names the
    zone it got (``zone.key``), so a deadline is never written in one zone and named in another.
    """
    try:
        return parse_timezone(name or DEFAULT_TIMEZONE)
    except ValueError:
        return ZoneInfo(DEFAULT_TIMEZONE)
