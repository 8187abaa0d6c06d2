"""Pure mail parsing: a raw message to a command or a clear error (no database, no I/O)."""
