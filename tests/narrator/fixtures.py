"""Database fixtures for every test suite (registered by ``tests/conftest.py``).

- ``postgres_url`` (session): the server in ``NARRATOR_TEST_POSTGRES_URL``; skips with the reason
  when it is unset or unreachable.
- ``fresh_database``: a factory ``(backend) -> url`` of new, empty databases (no tables), removed
  after the test; backend ``"sqlite"`` (a file in tmp_path) or ``"postgresql"``.
- ``db_url``: a migrated, empty database, parametrised over SQLite and PostgreSQL
  (test ids ``[sqlite]`` / ``[postgresql]``; the PostgreSQL one is marked ``postgres``). On
  PostgreSQL a test's database is emptied when it ends and handed to the next test of the
  worker (``_PostgresPool``), not created and dropped each time.
- Every PostgreSQL database a test was given (``db_url``, ``postgres_db_url``,
  ``fresh_database``) is checked when the test ends: a connection to it this process still has
  open (an engine not disposed, a session or connection not closed) fails that test, instead
  of being garbage-collected, with a ResourceWarning, in whichever later test runs the
  collector.
- ``sqlite_url`` / ``postgres_db_url``: the same on one backend only.
- ``engine``, ``sessions`` (a sessionmaker) and ``session`` on ``db_url``.
- ``config_file``: a ``narrator.toml`` in tmp_path pointing at ``db_url`` (Maildir in tmp_path).
- ``run_cli``: runs ``narrator.cli.main`` with that config; returns (status, stdout, stderr).
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from narrator import tables
from narrator.cli import main
from narrator.db import make_engine, session_factory, upgrade

POSTGRES_ENV = "NARRATOR_TEST_POSTGRES_URL"
DATABASE_PREFIX = "narrator_t_"
#: The tables of the models, emptied between two tests of a reused PostgreSQL database.
MODEL_TABLES = frozenset(table.name for table in tables.metadata.sorted_tables)
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


@dataclass(frozen=True)
class CliResult:
    """What one `narrator` command did: exit status and captured output."""

    status: int
    out: str
    err: str


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class LeakedConnectionError(AssertionError):
    """A test left connections to its PostgreSQL database open in this process."""


def _own_sockets_to(port: int) -> frozenset[int] | None:
    """The local ports of this process's open TCP connections to ``port`` (on any host), read
    from Linux's /proc; None where there is no /proc to read."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return None
    inodes: set[str] = set()
    for fd in os.listdir(fds):
        try:
            target = os.readlink(fds / fd)
        except OSError:  # closed meanwhile (the listing's own descriptor, say)
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports: set[int] = set()
    for table in (Path("/proc/self/net/tcp"), Path("/proc/self/net/tcp6")):
        try:
            rows = table.read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            # sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
            fields = row.split()
            if fields[9] in inodes and int(fields[2].rsplit(":", 1)[1], 16) == port:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return frozenset(ports)


def _fail_if_leaked(leaked: list[str]) -> None:
    if leaked:
        raise LeakedConnectionError(
            f"the test left {len(leaked)} connection(s) to its PostgreSQL database open"
            " (dispose of engines, close sessions and connections, e.g. in a finally):\n  "
            + "\n  ".join(leaked)
        )


class _PostgresServer:
    """Creates and drops uniquely named databases on one server (for parallel test runs)."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.admin: Engine = create_engine(
            self.url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5}
        )
        self.created: list[str] = []

    def create(self, template: str | None = None) -> str:
        name = f"{DATABASE_PREFIX}{uuid.uuid4().hex[:16]}"
        clause = f" TEMPLATE {_quoted(template)}" if template else ""
        with self.admin.connect() as connection:
            connection.execute(text(f"CREATE DATABASE {_quoted(name)}{clause}"))
        self.created.append(name)
        return name

    def url_of(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def open_here(self, name: str) -> list[str]:
        """The connections to database ``name`` that this process still has open (a test
        that ended should have closed them all), described for an error message.

        Matched by the client's TCP port (pg_stat_activity) against this process's own open
        sockets: a connection this process closed is never counted, even while its server
        process is still ending, nor is one of another process (a daemon the test ran).
        Empty where that cannot be told (no /proc; a Unix socket).
        """
        with self.admin.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT pid, client_port, state, left(query, 200) FROM pg_stat_activity"
                    " WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            ).all()
        if not rows:  # the common case: nobody is connected (no need to read /proc)
            return []
        ours = _own_sockets_to(self.url.port or 5432) or frozenset()
        return [
            f"backend {pid} ({state}; last statement: {query!r})"
            for pid, port, state, query in rows
            if port in ours
        ]

    def drop(self, name: str) -> None:
        # FORCE ends the sessions still in it; one the server itself runs there (autovacuum)
        # may only be ended by a member of pg_signal_backend, else it is waited out.
        for attempt in range(50):
            try:
                with self.admin.connect() as connection:
                    connection.execute(
                        text(f"DROP DATABASE IF EXISTS {_quoted(name)} WITH (FORCE)")
                    )
                break
            except SQLAlchemyError:
                if attempt == 49:
                    raise
                time.sleep(0.1)
        self.created.remove(name)

    def close(self) -> None:
        for name in list(self.created):
            self.drop(name)
        self.admin.dispose()


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test PostgreSQL server's URL; skips when none is configured or reachable."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(f"no PostgreSQL: set {POSTGRES_ENV} (`make test` starts one and sets it)")
    engine = create_engine(url, connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", error)).strip().splitlines()[0]
        pytest.skip(f"PostgreSQL at {make_url(url).host} is unreachable: {reason}")
    finally:
        engine.dispose()
    return url


@pytest.fixture(scope="session")
def _postgres_server(postgres_url: str) -> Iterator[_PostgresServer]:
    server = _PostgresServer(postgres_url)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def _postgres_template(_postgres_server: _PostgresServer) -> str:
    """A migrated database that each test's database is copied from (fast, isolated)."""
    name = _postgres_server.create()
    upgrade(_postgres_server.url_of(name))
    return name


class _PostgresPool:
    """Migrated databases handed to one test after another: a test's database is emptied
    (TRUNCATE … RESTART IDENTITY) when it ends and handed to the next test, instead of a new
    one copied from the template and dropped (about half a second a test, of a CPU shared with
    the tests).  A database a test changed beyond its rows (its migration or its tables), or
    that cannot be emptied, is dropped and never handed out again."""

    def __init__(self, server: _PostgresServer, template: str) -> None:
        self.server = server
        self.template = template
        self.idle: list[str] = []
        self.schema = self._schema(template)

    def take(self) -> str:
        """An empty, migrated database's name."""
        return self.idle.pop() if self.idle else self.server.create(template=self.template)

    def give_back(self, name: str) -> None:
        """Empty ``name`` for the next test, or drop it; then raise LeakedConnectionError if
        the test left connections to it open (they are ended first either way)."""
        leaked = self.server.open_here(name)
        if self._emptied(name):
            self.idle.append(name)
        else:
            self.server.drop(name)
        _fail_if_leaked(leaked)

    def _connect(self, name: str) -> Engine:
        return create_engine(
            self.server.url_of(name),
            isolation_level="AUTOCOMMIT",
            connect_args={"connect_timeout": 5},
        )

    def _schema(self, name: str) -> tuple[str | None, frozenset[str]]:
        """The migration ``name`` is at and its tables (but alembic's own)."""
        engine = self._connect(name)
        try:
            with engine.connect() as connection:
                return _schema_of(connection)
        finally:
            engine.dispose()

    def _emptied(self, name: str) -> bool:
        engine = self._connect(name)
        try:
            with engine.connect() as connection:
                # End what the test left connected (a daemon's pool, a LISTEN), as DROP … FORCE
                # would: its locks and session state go with it.
                connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                )
                if _schema_of(connection) != self.schema or self.schema[1] != MODEL_TABLES:
                    return False
                connection.execute(text("SET lock_timeout = '5s'"))
                # The rows (children before parents; deleting a few rows is far cheaper than
                # TRUNCATE's new files), then every sequence back to its start.
                for table in reversed(tables.metadata.sorted_tables):
                    connection.execute(table.delete())
                for sequence in connection.scalars(
                    text("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")
                ).all():
                    connection.execute(text("SELECT setval(:s, 1, false)"), {"s": sequence})
            return True
        except SQLAlchemyError:
            return False
        finally:
            engine.dispose()


def _schema_of(connection: Connection) -> tuple[str | None, frozenset[str]]:
    """The migration a database is at and its tables (but alembic's own)."""
    version = connection.scalar(text("SELECT version_num FROM alembic_version"))
    names = connection.scalars(
        text(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            " AND tablename <> 'alembic_version'"
        )
    ).all()
    return version, frozenset(names)


@pytest.fixture(scope="session")
def _postgres_pool(_postgres_server: _PostgresServer, _postgres_template: str) -> _PostgresPool:
    return _PostgresPool(_postgres_server, _postgres_template)


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "narrator.db"
    upgrade(f"sqlite:///{path}")  # the WAL is checkpointed into the file when upgrade closes it
    return path


@pytest.fixture
def fresh_database(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[str], str]]:
    """A factory of new, empty databases without tables: ``fresh_database("sqlite")`` -> URL."""
    made: list[tuple[_PostgresServer, str]] = []
    counter = iter(range(1_000_000))

    def make(backend: str) -> str:
        if backend == "sqlite":
            return f"sqlite:///{tmp_path / f'fresh-{next(counter)}.db'}"
        if backend == "postgresql":
            server: _PostgresServer = request.getfixturevalue("_postgres_server")
            name = server.create()
            made.append((server, name))
            return server.url_of(name)
        raise ValueError(f"unknown backend {backend!r}")

    yield make
    leaked: list[str] = []
    for server, name in made:
        leaked += server.open_here(name)
        server.drop(name)
    _fail_if_leaked(leaked)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database on SQLite and (when reachable) on PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "narrator.db"
        shutil.copyfile(request.getfixturevalue("_sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    pool: _PostgresPool = request.getfixturevalue("_postgres_pool")
    name = pool.take()
    try:
        yield pool.server.url_of(name)
    finally:
        pool.give_back(name)


@pytest.fixture
def sqlite_url(tmp_path: Path, _sqlite_template: Path) -> str:
    """A migrated, empty SQLite database file in tmp_path."""
    path = tmp_path / "narrator.db"
    shutil.copyfile(_sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def postgres_db_url(_postgres_pool: _PostgresPool) -> Iterator[str]:
    """A migrated, empty PostgreSQL database (skips without a server)."""
    name = _postgres_pool.take()
    try:
        yield _postgres_pool.server.url_of(name)
    finally:
        _postgres_pool.give_back(name)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine (narrator settings) on `db_url`, disposed after the test."""
    engine = make_engine(db_url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def sessions(engine: Engine) -> sessionmaker[Session]:
    """The narrator's session factory on `db_url`."""
    return session_factory(engine)


@pytest.fixture
def session(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """A session on `db_url`; commit yourself, it is closed (rolled back) after the test."""
    with sessions() as session:
        yield session


@pytest.fixture
def config_file(db_url: str, tmp_path: Path) -> Path:
    """A ``narrator.toml`` for `db_url` with its Maildir outbox in tmp_path."""
    path = tmp_path / "narrator.toml"
    path.write_text(
        "[narrator]\n"
        f'database = "{db_url}"\n'
        'address = "verteller@example.org"\n'
        "[outbound]\n"
        'maildir = "outbox"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def run_cli(config_file: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run ``narrator ARGS… --config <config_file>``; returns a CliResult."""

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        try:
            status = main([*args, "--config", str(config_file)])
        except SystemExit as exit_:  # argparse usage errors
            status = exit_.code if isinstance(exit_.code, int) else 2
        captured = capsys.readouterr()
        return CliResult(status, captured.out, captured.err)

    return run
