"""Fixtures for the daemon tests: real mail servers (Dovecot) from `tests.support.plugin`."""

from __future__ import annotations

from tests.support.plugin import dovecot_account, dovecot_server

__all__ = ["dovecot_account", "dovecot_server"]
