"""Fixtures for the inbound tests: the real-server fixtures of `tests.support.plugin`.

Database fixtures (`sessions`, `db_url`, parametrised over SQLite and PostgreSQL) come from
`tests/narrator/fixtures.py`, registered by the root conftest.
"""

from tests.support.plugin import (
    dovecot_account,
    dovecot_factory,
    dovecot_server,
    smtp_capture,
)

__all__ = ["dovecot_account", "dovecot_factory", "dovecot_server", "smtp_capture"]
