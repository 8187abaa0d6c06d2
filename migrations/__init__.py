"""Alembic migrations of the narrator database, shipped as a package (see `narrator.db.upgrade`)."""
