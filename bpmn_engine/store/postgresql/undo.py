"""The undo log on PostgreSQL: the shared concern's statements are standard SQL."""

from __future__ import annotations

from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.undo import UndoRows


class PgUndoRows(PostgresConnection, UndoRows):
    """Recording steps' before-images, and applying them in reverse."""
