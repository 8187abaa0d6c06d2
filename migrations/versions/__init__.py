"""Alembic revisions, one module each, applied in order by `narrator db upgrade`."""
