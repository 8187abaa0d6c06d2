"""Outgoing mail: composing (compose), delivery (transport), the outbox sender (sender)."""
