"""The narrator's configuration: a TOML file (interfaces §2a) read into frozen dataclasses."""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints
from urllib.parse import quote, unquote

from narrator.durations import format_duration, parse_duration
from narrator.zones import DEFAULT_TIMEZONE, parse_timezone

DEFAULT_CONFIG_NAME = "narrator.toml"

_NOT_A_KEY = {"toml": False}  # field metadata: derived at load time, not read from the file
_WORD = re.compile(r"[A-Za-z0-9_-]{1,64}")
# A plain ASCII addr-spec (no display name, no quotes, no white space or control characters):
# the addresses of the configuration go into headers and logs as they are.
_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")
_LANGUAGE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]+)*")
#: A SQLite URL with a file and no query (the default's form): read without SQLAlchemy, whose
#: import costs a command that needs no database (`narrator parse`) most of its start-up.
_PLAIN_SQLITE = re.compile(r"(?P<scheme>sqlite(?:\+\w+)?:///)(?P<file>[^?]*)")


class ConfigError(ValueError):
    """The configuration file is unreadable or has an unknown key or a bad value (named)."""


@dataclass(frozen=True)
class NarratorSection:
    """``[narrator]``: the narrator's address, database, and the defaults of new games
    (language, ruleset, theme, time zone; an empty theme is the ruleset's own)."""

    address: str = "verteller@example.org"
    database: str = "sqlite:///narrator.db"
    language: str = "nl"
    ruleset: str = "wakkerdam"
    theme: str = ""
    # An IANA name: deadlines of new games are written in it (``game create --tz`` overrides).
    timezone: str = DEFAULT_TIMEZONE

    @property
    def default_theme(self) -> str:
        """The theme of new games: ``theme``, else the ruleset's own (named like it)."""
        return self.theme or self.ruleset


@dataclass(frozen=True)
class SmtpReceiverSection:
    """``[inbound.smtp]``: the built-in SMTP receiver (aiosmtpd); `lmtp` makes it speak LMTP."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8025
    lmtp: bool = False


@dataclass(frozen=True)
class ImapSection:
    """``[inbound.imap]``: the IMAP poller; the password comes from the `password_env` variable."""

    enabled: bool = False
    host: str = "imap.example.org"
    port: int = 993
    ssl: bool = True
    username: str = "verteller"
    password_env: str = "NARRATOR_IMAP_PASSWORD"
    mailbox: str = "INBOX"
    password: str | None = field(default=None, repr=False, metadata=_NOT_A_KEY)

    def require_password(self) -> str:
        """Return the password, or raise ConfigError naming the unset environment variable."""
        return _require_password("inbound.imap", self.password_env, self.password)


@dataclass(frozen=True)
class InboundSection:
    """``[inbound]``: where mail comes in, and how the daemon gathers it before a pass.

    Once woken by a stored mail, the inbox worker waits while mail keeps coming, so that the
    mails arriving close together are read in one pass (docs/operations.md, "Capacity"): its
    pass starts when no mail came for `gather_quiet`, or `gather_max` after the first mail.
    """

    smtp: SmtpReceiverSection = field(default_factory=SmtpReceiverSection)
    imap: ImapSection = field(default_factory=ImapSection)
    gather_quiet: timedelta = timedelta(seconds=0.1)
    gather_max: timedelta = timedelta(seconds=0.3)


@dataclass(frozen=True)
class SmtpSubmissionSection:
    """``[outbound.smtp]``: the SMTP server outgoing mail is submitted to (mode "smtp").

    An empty `username` means no authentication; `ssl` means implicit TLS (port 465);
    `timeout` bounds each wait for the server (connecting, every reply).
    """

    host: str = "smtp.example.org"
    port: int = 587
    starttls: bool = True
    ssl: bool = False
    username: str = "verteller"
    password_env: str = "NARRATOR_SMTP_PASSWORD"
    timeout: timedelta = timedelta(seconds=30)
    password: str | None = field(default=None, repr=False, metadata=_NOT_A_KEY)

    def require_password(self) -> str:
        """Return the password, or raise ConfigError naming the unset environment variable."""
        return _require_password("outbound.smtp", self.password_env, self.password)


@dataclass(frozen=True)
class OutboundSection:
    """``[outbound]``: how mail goes out: written to a Maildir (default) or sent over SMTP.

    The retry keys are :class:`~narrator.outbound.sender.RetryPolicy`'s (a failed attempt waits
    `retry_first_delay`, doubling up to `retry_max_delay`; given up after `max_attempts` or
    `give_up_after`); `lease` is how long a claimed mail is left to its sender (a crash mid-send
    delays it this long).
    """

    mode: str = "maildir"
    maildir: Path = Path("outbox")
    # SMTP mode: the send journal's folder (narrator/outbound/journal.py).
    journal: Path = Path("sent-journal")
    retry_first_delay: timedelta = timedelta(seconds=30)
    retry_max_delay: timedelta = timedelta(minutes=30)
    max_attempts: int = 100
    give_up_after: timedelta = timedelta(days=2)
    lease: timedelta = timedelta(minutes=10)
    smtp: SmtpSubmissionSection = field(default_factory=SmtpSubmissionSection)


@dataclass(frozen=True)
class AdminsSection:
    """``[admins]``: addresses that receive Help mails (besides those added by `narrator admin`)."""

    emails: tuple[str, ...] = ()


SENDER_AUTH_POLICIES = ("off", "dmarc", "dkim-or-spf")


@dataclass(frozen=True)
class SecuritySection:
    """``[security]``: the processing pipeline's defences (docs/security.md); 0 = no limit."""

    replies_per_hour: int = 20
    replies_per_day: int = 100
    stranger_replies_per_hour: int = 200
    max_message_bytes: int = 10 * 1024 * 1024
    max_players_per_game: int = 100
    max_games_per_address: int = 10
    sender_auth: str = "off"
    authserv_ids: tuple[str, ...] = ()
    plus_addressing: bool = False
    reply_secret_env: str = "NARRATOR_REPLY_SECRET"
    reply_secret: str | None = field(default=None, repr=False, metadata=_NOT_A_KEY)

    def require_reply_secret(self) -> str:
        """Return the plus-addressing key, or raise ConfigError naming the unset variable."""
        return _require_password("security", self.reply_secret_env, self.reply_secret)


@dataclass(frozen=True)
class WebSection:
    """``[web]``: the game pages served by the daemon (Starlette under uvicorn, docs/web.md).

    `port` 0 takes any free port (tests); `base_url` is the address the pages are reached at
    from outside (behind a reverse proxy, its https:// address), without a trailing slash.
    The key of the players' personal links is read from the `secret_env` variable: without
    it there are no personal pages.
    """

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8080
    base_url: str = "http://127.0.0.1:8080"
    secret_env: str = "NARRATOR_WEB_SECRET"
    secret: str | None = field(default=None, repr=False, metadata=_NOT_A_KEY)


@dataclass(frozen=True)
class Config:
    """The whole configuration. Paths and the SQLite file are absolute (resolved at load)."""

    narrator: NarratorSection = field(default_factory=NarratorSection)
    inbound: InboundSection = field(default_factory=InboundSection)
    outbound: OutboundSection = field(default_factory=OutboundSection)
    admins: AdminsSection = field(default_factory=AdminsSection)
    security: SecuritySection = field(default_factory=SecuritySection)
    web: WebSection = field(default_factory=WebSection)
    path: Path | None = field(default=None, metadata=_NOT_A_KEY)  # the file read, if any
    base_dir: Path = field(default=Path("."), metadata=_NOT_A_KEY)  # relative paths start here

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL of the database (a relative SQLite file made absolute)."""
        return self.narrator.database


def load_config(
    path: str | os.PathLike[str] | None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Config:
    """Read the configuration: `path`, else ``./narrator.toml`` if present, else the defaults.

    Relative paths (SQLite file, Maildir) are taken relative to the file's directory, or to
    `cwd` (default: the current directory) without a file. Passwords are read from the
    environment variables named by the ``password_env`` keys (`environ`, default ``os.environ``).
    Raises ConfigError naming the key on an unknown key or a value of the wrong type.
    """
    environ = os.environ if environ is None else environ
    workdir = Path.cwd() if cwd is None else Path(cwd)
    if path is None:
        candidate = workdir / DEFAULT_CONFIG_NAME
        config_path = candidate if candidate.is_file() else None
    else:
        config_path = workdir / Path(path)
    if config_path is None:
        table: dict[str, Any] = {}
        base_dir = workdir.resolve()
    else:
        table = _read_toml(config_path)
        base_dir = config_path.resolve().parent
    label = str(config_path) if config_path is not None else "configuration"
    config = _build(Config, table, "", label)
    return _resolve(config, config_path, base_dir, environ, label)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except FileNotFoundError:
        raise ConfigError(f"{path}: configuration file not found") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None


def _build(cls: type[Any], table: Mapping[str, Any], prefix: str, label: str) -> Any:
    """Make a section dataclass from a TOML table, checking every key and value type."""
    hints = get_type_hints(cls)
    keys = {f.name: f for f in dataclasses.fields(cls) if f.metadata.get("toml", True)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if key not in keys:
            known = ", ".join(sorted(keys))
            raise ConfigError(f"{label}: unknown key '{name}' (known here: {known})")
        expected = hints[key]
        if dataclasses.is_dataclass(expected):
            if not isinstance(value, dict):
                raise ConfigError(f"{label}: '{name}' must be a table ([{name}])")
            values[key] = _build(expected, value, f"{name}.", label)  # type: ignore[arg-type]
        else:
            values[key] = _convert(value, expected, name, label)
    return cls(**values)


def _convert(value: Any, expected: Any, name: str, label: str) -> Any:
    if expected is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{label}: '{name}' must be true or false, not {_shown(value)}")
    if expected is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ConfigError(f"{label}: '{name}' must be a whole number, not {_shown(value)}")
    if expected is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{label}: '{name}' must be a string, not {_shown(value)}")
    if expected is Path:
        if isinstance(value, str) and value:
            return Path(value)
        raise ConfigError(f"{label}: '{name}' must be a path (a non-empty string)")
    if expected is timedelta:
        return _duration(value, name, label)
    if get_origin(expected) is tuple:
        (item_type, _ellipsis) = get_args(expected)
        if isinstance(value, list) and all(isinstance(item, item_type) for item in value):
            return tuple(value)
        raise ConfigError(f"{label}: '{name}' must be a list of strings, not {_shown(value)}")
    raise TypeError(f"unsupported configuration type {expected!r} for {name}")


def _duration(value: Any, name: str, label: str) -> timedelta:
    """A duration in the file: ``"30s"``, ``"10m"``, ``"1d12h"``, or seconds (``2.5``)."""
    try:
        if isinstance(value, str):
            duration = timedelta(seconds=parse_duration(value))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            # What rounds to zero counts as zero (a timedelta keeps microseconds).
            duration = timedelta(seconds=value) if math.isfinite(value) else timedelta(0)
        else:
            raise ValueError(value)
    except OverflowError:
        raise ConfigError(f"{label}: '{name}' is too long: {value!r}") from None
    except ValueError:
        duration = timedelta(0)
    if duration > timedelta(0):
        return duration
    raise ConfigError(
        f'{label}: \'{name}\' must be a duration longer than zero ("30s", "10m", "2h", '
        f'"2d", "1d12h") or a number of seconds, not {_shown(value)}'
    )


def _shown(value: Any) -> str:
    kind = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return f"the list {value!r}"
    return f"{kind.get(type(value), type(value).__name__)} ({value!r})"


def _resolve(
    config: Config,
    config_path: Path | None,
    base_dir: Path,
    environ: Mapping[str, str],
    label: str,
) -> Config:
    """Check values, make relative paths absolute and read the secrets from the environment."""
    narrator = config.narrator
    if not _LANGUAGE.fullmatch(narrator.language):
        raise ConfigError(f"{label}: 'narrator.language' must be a language code like \"nl\"")
    if not _is_address(narrator.address) or len(narrator.address) > 254:
        raise ConfigError(
            f"{label}: 'narrator.address' must be an e-mail address like "
            f'"verteller@example.org", not {_printable(narrator.address)}'
        )
    if not _WORD.fullmatch(narrator.ruleset):
        raise ConfigError(f"{label}: 'narrator.ruleset' must be a ruleset id like \"wakkerdam\"")
    if narrator.theme and not _WORD.fullmatch(narrator.theme):
        raise ConfigError(f"{label}: 'narrator.theme' may hold only letters, digits, '-' and '_'")
    try:
        parse_timezone(narrator.timezone)
    except ValueError as error:
        raise ConfigError(f"{label}: 'narrator.timezone': {error}") from None
    database = _absolute_database(narrator.database, base_dir, label)
    for name, port in (
        ("inbound.smtp.port", config.inbound.smtp.port),
        ("inbound.imap.port", config.inbound.imap.port),
        ("outbound.smtp.port", config.outbound.smtp.port),
    ):
        if not 0 < port < 65536:
            raise ConfigError(f"{label}: '{name}' must be a port number (1-65535), not {port}")
    outbound = config.outbound
    if outbound.mode not in ("maildir", "smtp"):
        raise ConfigError(f'{label}: \'outbound.mode\' must be "maildir" or "smtp"')
    if outbound.smtp.ssl and outbound.smtp.starttls:
        raise ConfigError(f"{label}: 'outbound.smtp': set either ssl or starttls, not both")
    _check_outbound_timings(outbound, label)
    if config.inbound.gather_max < config.inbound.gather_quiet:
        raise ConfigError(
            f"{label}: 'inbound.gather_max' ({_seconds(config.inbound.gather_max)}) must not be "
            f"shorter than 'inbound.gather_quiet' ({_seconds(config.inbound.gather_quiet)})"
        )
    for index, email in enumerate(config.admins.emails):
        if not _is_address(email.strip()) or len(email.strip()) > 254:
            raise ConfigError(
                f"{label}: 'admins.emails[{index}]' is not an e-mail address: {_printable(email)}"
            )
    security = _checked_security(config.security, environ, label)
    web = _checked_web(config.web, label)
    web = dataclasses.replace(web, secret=environ.get(web.secret_env) or None)
    imap = config.inbound.imap
    smtp = outbound.smtp
    return dataclasses.replace(
        config,
        narrator=dataclasses.replace(narrator, database=database),
        inbound=dataclasses.replace(
            config.inbound,
            imap=dataclasses.replace(imap, password=environ.get(imap.password_env)),
        ),
        outbound=dataclasses.replace(
            outbound,
            maildir=base_dir / outbound.maildir,
            journal=base_dir / outbound.journal,
            smtp=dataclasses.replace(smtp, password=environ.get(smtp.password_env)),
        ),
        admins=dataclasses.replace(
            config.admins, emails=tuple(email.strip().lower() for email in config.admins.emails)
        ),
        security=security,
        web=web,
        path=config_path.resolve() if config_path is not None else None,
        base_dir=base_dir,
    )


def _is_address(value: str) -> bool:
    return _ADDRESS.fullmatch(value) is not None


def _printable(value: str) -> str:
    """`value` quoted with its control characters escaped (a CR/LF never reaches the log)."""
    return ascii(value[:100])


def _check_outbound_timings(outbound: OutboundSection, label: str) -> None:
    if outbound.max_attempts < 1:
        raise ConfigError(
            f"{label}: 'outbound.max_attempts' must be 1 or more, not {outbound.max_attempts}"
        )
    if outbound.retry_max_delay < outbound.retry_first_delay:
        raise ConfigError(
            f"{label}: 'outbound.retry_max_delay' ({_seconds(outbound.retry_max_delay)}) must not "
            f"be shorter than 'outbound.retry_first_delay' ({_seconds(outbound.retry_first_delay)})"
        )
    if outbound.mode == "smtp" and outbound.lease <= outbound.smtp.timeout:
        raise ConfigError(
            f"{label}: 'outbound.lease' ({_seconds(outbound.lease)}) must be longer than "
            f"'outbound.smtp.timeout' ({_seconds(outbound.smtp.timeout)}): a mail still being "
            "sent would be claimed again"
        )


def _seconds(duration: timedelta) -> str:
    seconds = duration.total_seconds()
    return format_duration(int(seconds)) if seconds.is_integer() else f"{seconds:g}s"


def _checked_security(
    security: SecuritySection, environ: Mapping[str, str], label: str
) -> SecuritySection:
    for name in (
        "replies_per_hour",
        "replies_per_day",
        "stranger_replies_per_hour",
        "max_message_bytes",
        "max_players_per_game",
        "max_games_per_address",
    ):
        if getattr(security, name) < 0:
            raise ConfigError(f"{label}: 'security.{name}' must be 0 (no limit) or more")
    if security.sender_auth not in SENDER_AUTH_POLICIES:
        choices = ", ".join(f'"{policy}"' for policy in SENDER_AUTH_POLICIES)
        raise ConfigError(f"{label}: 'security.sender_auth' must be one of {choices}")
    ids = tuple(value.strip().lower() for value in security.authserv_ids if value.strip())
    if security.sender_auth != "off" and not ids:
        raise ConfigError(
            f"{label}: 'security.sender_auth' needs 'security.authserv_ids' (the authserv-id "
            "your mail server writes in its Authentication-Results headers)"
        )
    secret = environ.get(security.reply_secret_env)
    if security.plus_addressing and not secret:
        raise ConfigError(
            f"'security.plus_addressing' needs a secret key: environment variable "
            f"{security.reply_secret_env} is not set ('security.reply_secret_env')"
        )
    return dataclasses.replace(security, authserv_ids=ids, reply_secret=secret)


def _checked_web(web: WebSection, label: str) -> WebSection:
    if not web.host.strip() or any(char.isspace() for char in web.host):
        raise ConfigError(f"{label}: 'web.host' must be a host name or address like \"127.0.0.1\"")
    if not 0 <= web.port < 65536:
        raise ConfigError(
            f"{label}: 'web.port' must be a port number (1-65535, or 0: any free port), "
            f"not {web.port}"
        )
    base_url = web.base_url.rstrip("/")
    scheme, _, rest = base_url.partition("://")
    host = rest.split("/", 1)[0]
    if scheme not in ("http", "https") or not host or any(char.isspace() for char in base_url):
        raise ConfigError(
            f"{label}: 'web.base_url' must be an http:// or https:// address like "
            f'"https://narrator.example.org", not {web.base_url!r}'
        )
    return dataclasses.replace(web, base_url=base_url)


def _absolute_database(database: str, base_dir: Path, label: str) -> str:
    plain = _PLAIN_SQLITE.fullmatch(database)
    if plain is not None:  # the same result as below, without SQLAlchemy (test_narrator_config)
        written = unquote(plain.group("file"))
        if (
            not written
            or written == ":memory:"
            or written.startswith("file:")
            or Path(written).is_absolute()
        ):
            return database
        return plain.group("scheme") + quote(str(base_dir / written), safe=" +/")
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(database)
    except ArgumentError:
        raise ConfigError(
            f"{label}: 'narrator.database' is not a database URL "
            '(e.g. "sqlite:///narrator.db" or "postgresql+psycopg://user@host/db")'
        ) from None
    if url.get_backend_name() != "sqlite":
        return database
    file = url.database
    if not file or file == ":memory:" or file.startswith("file:") or Path(file).is_absolute():
        return database
    return url.set(database=str(base_dir / file)).render_as_string(hide_password=False)


def _require_password(section: str, variable: str, password: str | None) -> str:
    if password is None:
        raise ConfigError(
            f"'{section}.password_env': environment variable {variable} is not set "
            f"(it holds the password)"
        )
    return password
