"""Data stores on PostgreSQL: the shared concern's statements are standard SQL (an upsert
waits for a concurrent writer of the same store, then writes after it: last writer wins)."""

from __future__ import annotations

from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.data_stores import DataStoreRows


class PgDataStoreRows(PostgresConnection, DataStoreRows):
    """Reading the data stores (steps write them with their commit)."""
