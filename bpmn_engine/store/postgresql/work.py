"""Finding work on PostgreSQL: the SQLite queries, due times compared as timestamptz."""

from __future__ import annotations

from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.work import WorkQueries


class PgWorkQueries(PostgresConnection, WorkQueries):
    """`bpmn worker` finds work by querying rows: nothing of an instance stays in memory."""
