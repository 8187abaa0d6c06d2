"""Fixtures for the fault tests: private Dovecot servers from `tests.support.plugin`."""

from __future__ import annotations

from tests.support.plugin import dovecot_factory

__all__ = ["dovecot_factory"]
