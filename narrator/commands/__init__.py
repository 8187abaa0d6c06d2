"""CLI subcommands: each module here defines `register(subparsers, common)` for its commands."""
