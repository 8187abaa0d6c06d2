"""Fixtures for the inbound tests: the real-server fixtures of `tests.support.plugin`."""

from tests.support.plugin import (
    dovecot_account,
    dovecot_factory,
    dovecot_server,
    smtp_capture,
)

__all__ = ["dovecot_account", "dovecot_factory", "dovecot_server", "smtp_capture"]
