"""The outbox on PostgreSQL: the shared concern's statements are standard SQL."""

from __future__ import annotations

from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.outbox import OutboxRows


class PgOutboxRows(PostgresConnection, OutboxRows):
    """Pending sends, who already received each, and marking one delivered."""
