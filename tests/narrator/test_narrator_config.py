"""Loading the configuration: defaults, files, relative paths, errors naming the key, secrets."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from narrator.cli import main
from narrator.config import Config, ConfigError, load_config
from narrator.daemon import Gathering, gathering_of
from narrator.outbound.sender import DEFAULT_LEASE, RetryPolicy
from narrator.outbound.transport import DEFAULT_TIMEOUT, SmtpSettings

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_file_the_embedded_defaults_apply(tmp_path: Path) -> None:
    config = load_config(None, cwd=tmp_path, environ={})
    assert config.path is None
    assert config.narrator.address == "verteller@example.org"
    assert config.narrator.language == "nl"
    assert config.database_url == f"sqlite:///{tmp_path.resolve()}/narrator.db"
    assert config.inbound.smtp.enabled is True
    assert (config.inbound.smtp.host, config.inbound.smtp.port) == ("127.0.0.1", 8025)
    assert config.inbound.imap.enabled is False
    assert config.outbound.mode == "maildir"
    assert config.outbound.maildir == tmp_path.resolve() / "outbox"
    assert config.admins.emails == ()
    web = config.web
    assert (web.enabled, web.host, web.port) == (True, "127.0.0.1", 8080)
    assert web.base_url == "http://127.0.0.1:8080"


def test_the_web_pages_take_a_host_a_port_and_their_address(tmp_path: Path) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(
        '[web]\nenabled = false\nhost = "0.0.0.0"\nport = 0\n'
        'base_url = "https://wolven.example.org/spel/"\n',
        encoding="utf-8",
    )
    web = load_config(path, environ={}).web
    assert (web.enabled, web.host, web.port) == (False, "0.0.0.0", 0)  # 0: any free port
    assert web.base_url == "https://wolven.example.org/spel"  # no trailing slash
    assert web.secret is None  # no key: no personal pages


def test_the_key_of_the_personal_pages_comes_from_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text('[web]\nsecret_env = "WOLF_PAGES"\n', encoding="utf-8")
    web = load_config(path, environ={"WOLF_PAGES": "s3cret"}).web
    assert web.secret == "s3cret" and "s3cret" not in repr(web)


def test_the_example_file_states_the_defaults_except_its_admin(tmp_path: Path) -> None:
    example = load_config(ROOT / "config.example.toml", environ={})
    defaults = load_config(None, cwd=ROOT, environ={})
    assert example.admins.emails == ("beheer@example.org",)
    comparable = dataclasses.replace(example, admins=defaults.admins, path=None)
    assert comparable == defaults


def test_narrator_toml_in_the_current_directory_is_used(tmp_path: Path) -> None:
    (tmp_path / "narrator.toml").write_text('[narrator]\nlanguage = "en"\n', encoding="utf-8")
    config = load_config(None, cwd=tmp_path, environ={})
    assert config.narrator.language == "en"
    assert config.path == (tmp_path / "narrator.toml").resolve()


def test_relative_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    (folder / "site.toml").write_text(
        '[narrator]\ndatabase = "sqlite:///data/games.db"\n[outbound]\nmaildir = "mail/out"\n',
        encoding="utf-8",
    )
    config = load_config(folder / "site.toml", cwd=tmp_path / "elsewhere", environ={})
    assert config.database_url == f"sqlite:///{folder.resolve()}/data/games.db"
    assert config.outbound.maildir == folder.resolve() / "mail" / "out"
    assert config.base_dir == folder.resolve()


@pytest.mark.parametrize(
    "database",
    [
        "sqlite:////var/lib/narrator/narrator.db",
        "sqlite:///:memory:",
        "sqlite://",
        "postgresql+psycopg://verteller:geheim@db.example.org/narrator",
    ],
)
def test_absolute_and_server_urls_are_kept(tmp_path: Path, database: str) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(f'[narrator]\ndatabase = "{database}"\n', encoding="utf-8")
    assert load_config(path, environ={}).database_url == database


@pytest.mark.parametrize(
    "database",
    [
        "sqlite:///narrator.db",
        "sqlite:///data/games.db",
        "sqlite+pysqlite:///data/games.db",
        "sqlite:///with space/ümlaut.db",
        "sqlite:///percent%20sign.db",
        "sqlite:///data/games.db?timeout=5",
        "sqlite:///file:games.db?mode=ro&uri=true",
        "sqlite:////var/lib/narrator/narrator.db",
        "sqlite:///:memory:",
        "sqlite:///",
        "sqlite:///#hash.db",
    ],
)
def test_sqlite_urls_read_without_sqlalchemy_as_sqlalchemy_reads_them(
    tmp_path: Path, database: str
) -> None:
    """The config reads a plain SQLite URL itself (no SQLAlchemy import for `narrator parse`):
    the relative file it names is made absolute exactly as through SQLAlchemy's URL."""
    path = tmp_path / "narrator.toml"
    path.write_text(f'[narrator]\ndatabase = "{database}"\n', encoding="utf-8")
    url = make_url(database)
    file = url.database or ""
    expected = database  # an absolute or in-memory database is kept as written
    if (
        file
        and file != ":memory:"
        and not file.startswith("file:")
        and not Path(file).is_absolute()
    ):
        url = url.set(database=str(tmp_path.resolve() / file))
        expected = url.render_as_string(hide_password=False)
    assert load_config(path, environ={}).database_url == expected


def test_every_key_of_the_interface_can_be_set(tmp_path: Path) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(
        """
[narrator]
address = "wolf@example.net"
database = "postgresql+psycopg://u@h/d"
language = "en"
[inbound.smtp]
enabled = false
host = "0.0.0.0"
port = 2525
[inbound.imap]
enabled = true
host = "imap.example.net"
port = 143
ssl = false
username = "wolf"
password_env = "WOLF_IMAP"
mailbox = "Wolves"
[outbound]
mode = "smtp"
maildir = "/srv/out"
[outbound.smtp]
host = "smtp.example.net"
port = 465
starttls = false
ssl = true
username = ""
password_env = "WOLF_SMTP"
[admins]
emails = ["Boss@Example.NET", "deputy@example.net"]
""",
        encoding="utf-8",
    )
    config = load_config(path, environ={"WOLF_IMAP": "imap-secret", "WOLF_SMTP": "smtp-secret"})
    assert config.narrator.address == "wolf@example.net"
    assert config.inbound.smtp == dataclasses.replace(
        config.inbound.smtp, enabled=False, host="0.0.0.0", port=2525
    )
    imap = config.inbound.imap
    assert (imap.enabled, imap.host, imap.port, imap.ssl, imap.username, imap.mailbox) == (
        True,
        "imap.example.net",
        143,
        False,
        "wolf",
        "Wolves",
    )
    assert imap.require_password() == "imap-secret"
    smtp = config.outbound.smtp
    assert (smtp.host, smtp.port, smtp.starttls, smtp.ssl, smtp.username) == (
        "smtp.example.net",
        465,
        False,
        True,
        "",
    )
    assert smtp.require_password() == "smtp-secret"
    assert config.outbound.mode == "smtp"
    assert config.outbound.maildir == Path("/srv/out")
    assert config.admins.emails == ("boss@example.net", "deputy@example.net")


def test_the_outbound_timings_take_durations_or_seconds(tmp_path: Path) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(
        """
[outbound]
mode = "smtp"
retry_first_delay = "1m30s"
retry_max_delay = 7200
max_attempts = 12
give_up_after = "1d12h"
lease = 2.5
[outbound.smtp]
username = ""
timeout = "2s"
""",
        encoding="utf-8",
    )
    outbound = load_config(path, environ={}).outbound
    assert (
        outbound.retry_first_delay,
        outbound.retry_max_delay,
        outbound.max_attempts,
        outbound.give_up_after,
        outbound.lease,
        outbound.smtp.timeout,
    ) == (
        timedelta(seconds=90),
        timedelta(hours=2),
        12,
        timedelta(days=1, hours=12),
        timedelta(seconds=2.5),
        timedelta(seconds=2),
    )
    assert RetryPolicy.from_section(outbound) == RetryPolicy(
        first_delay=timedelta(seconds=90),
        max_delay=timedelta(hours=2),
        max_attempts=12,
        max_age=timedelta(days=1, hours=12),
    )
    assert SmtpSettings.from_section(outbound.smtp).timeout == 2.0


def test_the_gathering_defaults_to_the_workers_own_and_takes_durations(tmp_path: Path) -> None:
    """``[inbound]`` ``gather_quiet`` and ``gather_max`` default to the inbox worker's own
    gathering (narrator.daemon.Gathering) and take durations or seconds."""
    assert gathering_of(load_config(None, cwd=tmp_path, environ={})) == Gathering()
    path = tmp_path / "narrator.toml"
    path.write_text('[inbound]\ngather_quiet = "1s"\ngather_max = 2.5\n', encoding="utf-8")
    assert gathering_of(load_config(path, environ={})) == Gathering(quiet=1.0, max_delay=2.5)


def test_the_outbound_timings_default_to_the_senders_own_defaults(tmp_path: Path) -> None:
    outbound = load_config(None, cwd=tmp_path, environ={}).outbound
    assert RetryPolicy.from_section(outbound) == RetryPolicy()
    assert outbound.lease == DEFAULT_LEASE
    assert outbound.smtp.timeout == timedelta(seconds=DEFAULT_TIMEOUT)
    assert load_config(None, cwd=tmp_path, environ={}).inbound.smtp.lmtp is False


def test_secrets_come_from_the_environment_and_stay_out_of_repr(tmp_path: Path) -> None:
    config = load_config(None, cwd=tmp_path, environ={"NARRATOR_IMAP_PASSWORD": "hunter2"})
    assert config.inbound.imap.password == "hunter2"
    assert "hunter2" not in repr(config)
    assert config.outbound.smtp.password is None
    with pytest.raises(ConfigError, match="NARRATOR_SMTP_PASSWORD is not set"):
        config.outbound.smtp.require_password()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[inbound.smtp]\nprot = 25\n", "unknown key 'inbound.smtp.prot'"),
        ("[outbund]\nmode = 'smtp'\n", "unknown key 'outbund'"),
        ("[narrator]\npassword = 'x'\n", "unknown key 'narrator.password'"),
        ("[inbound.imap]\npassword = 'x'\n", "unknown key 'inbound.imap.password'"),
        ("[inbound.smtp]\nport = '25'\n", "'inbound.smtp.port' must be a whole number"),
        ("[inbound.smtp]\nport = 2.5\n", "'inbound.smtp.port' must be a whole number"),
        ("[inbound.imap]\nenabled = 'yes'\n", "'inbound.imap.enabled' must be true or false"),
        ("[inbound.smtp]\nenabled = 1\n", "'inbound.smtp.enabled' must be true or false"),
        ("[narrator]\naddress = 7\n", "'narrator.address' must be a string"),
        ("[admins]\nemails = 'a@example.org'\n", "'admins.emails' must be a list of strings"),
        ("[admins]\nemails = [1]\n", "'admins.emails' must be a list of strings"),
        ("[admins]\nemails = ['not an address']\n", "'admins.emails[0]' is not an e-mail"),
        ("inbound = 3\n", "'inbound' must be a table"),
        ("[outbound]\nmode = 'carrier-pigeon'\n", "'outbound.mode' must be"),
        ("[outbound]\nmaildir = ''\n", "'outbound.maildir' must be a path"),
        ("[inbound.smtp]\nport = 70000\n", "'inbound.smtp.port' must be a port number"),
        ("[narrator]\ndatabase = 'no url'\n", "'narrator.database' is not a database URL"),
        ("[narrator]\nlanguage = 'Dutch!'\n", "'narrator.language' must be a language code"),
        ("[narrator]\naddress = 'verteller'\n", "'narrator.address' must be an e-mail"),
        ("[outbound.smtp]\nssl = true\n", "set either ssl or starttls"),
        ("[outbound]\nlease = '10 minutes'\n", "'outbound.lease' must be a duration longer"),
        ("[outbound]\nlease = '0s'\n", "or a number of seconds, not a string ('0s')"),
        ("[outbound]\nlease = 0\n", "'outbound.lease' must be a duration longer than zero"),
        ("[outbound]\nlease = -5\n", "or a number of seconds, not a number (-5)"),
        ("[outbound]\nlease = nan\n", "or a number of seconds, not a number (nan)"),
        ("[outbound]\nlease = 1e-9\n", "or a number of seconds, not a number (1e-09)"),
        ("[outbound]\nlease = true\n", "'outbound.lease' must be a duration"),
        ("[outbound]\ngive_up_after = [2]\n", "'outbound.give_up_after' must be a duration"),
        ("[outbound]\ngive_up_after = 1e300\n", "'outbound.give_up_after' is too long"),
        ("[outbound]\nretry_first_delay = '1h'\n", "'outbound.retry_max_delay' (30m) must not"),
        ("[outbound]\nmax_attempts = 0\n", "'outbound.max_attempts' must be 1 or more, not 0"),
        ("[outbound]\nmax_attempts = '3'\n", "'outbound.max_attempts' must be a whole number"),
        ("[outbound.smtp]\ntimeout = '1 minute'\n", "'outbound.smtp.timeout' must be a duration"),
        (
            "[outbound]\nmode = 'smtp'\nlease = '1m'\n[outbound.smtp]\ntimeout = '2m'\n",
            "'outbound.lease' (1m) must be longer than 'outbound.smtp.timeout' (2m)",
        ),
        ("[inbound.smtp]\nlmtp = 'yes'\n", "'inbound.smtp.lmtp' must be true or false"),
        (
            "[inbound]\ngather_max = 0.05\n",
            "'inbound.gather_max' (0.05s) must not be shorter than 'inbound.gather_quiet' (0.1s)",
        ),
        ("[inbound]\ngather_quiet = 'soon'\n", "'inbound.gather_quiet' must be a duration"),
        ("[inbound]\ngather_quiet = 0\n", "'inbound.gather_quiet' must be a duration longer"),
        ("[narrator\n", "not valid TOML"),
        ("[narrator]\ntimezone = 'Mars/Olympus'\n", "'narrator.timezone': unknown time zone"),
        ("[narrator]\ntimezone = ''\n", "'narrator.timezone': a time zone may not be empty"),
        ("[narrator]\ntimezone = '../etc/passwd'\n", "'narrator.timezone': not a time zone"),
        ("[narrator]\ntimezone = 1\n", "'narrator.timezone' must be a string"),
        ("[web]\nenabled = 'yes'\n", "'web.enabled' must be true or false"),
        ("[web]\nport = 65536\n", "'web.port' must be a port number (1-65535, or 0"),
        ("[web]\nport = -1\n", "'web.port' must be a port number"),
        ("[web]\nhost = ''\n", "'web.host' must be a host name"),
        ("[web]\nbase_url = 'narrator.example.org'\n", "'web.base_url' must be an http://"),
        ("[web]\nbase_url = 'ftp://x.example.org'\n", "'web.base_url' must be an http://"),
        ("[web]\nbase_url = 'https://'\n", "'web.base_url' must be an http://"),
        ("[web]\nbind = '::'\n", "unknown key 'web.bind'"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_config(path, environ={})
    assert message in str(error.value)
    assert str(path) in str(error.value)


def test_the_time_zone_of_new_games_defaults_to_utc(tmp_path: Path) -> None:
    assert load_config(None, cwd=tmp_path, environ={}).narrator.timezone == "UTC"
    path = tmp_path / "narrator.toml"
    path.write_text('[narrator]\ntimezone = "Europe/Amsterdam"\n', encoding="utf-8")
    assert load_config(path, environ={}).narrator.timezone == "Europe/Amsterdam"


def test_a_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "absent.toml", environ={})


def test_config_is_frozen(tmp_path: Path) -> None:
    config = load_config(None, cwd=tmp_path, environ={})
    assert isinstance(config, Config)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.narrator.language = "en"  # type: ignore[misc]


def test_the_cli_reports_a_bad_config_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text("[inbound.smtp]\nprot = 25\n", encoding="utf-8")
    assert main(["db", "upgrade", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unknown key 'inbound.smtp.prot'" in err
