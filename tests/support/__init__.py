"""Reusable test support: real servers on loopback (Dovecot, aiosmtpd) and async helpers."""
