"""The shared store: one PostgreSQL database for many workers on many hosts.

One class per concern, as the SQLite store (`bpmn_engine.store.sqlite`), each the shared
concern on a PostgreSQL connection: its statements unchanged, the fragments that differ from
PostgreSQL's dialect (`dialect.py`), what PostgreSQL does differently (locks, NOTIFY, the
server's clock) overridden; `PostgresStore` is their sum and implements
`bpmn_engine.runtime.storage.Store`. See docs/postgresql.md.
"""

from __future__ import annotations

from bpmn_engine.store.postgresql.checkpoints import PgCheckpointRows
from bpmn_engine.store.postgresql.data_stores import PgDataStoreRows
from bpmn_engine.store.postgresql.deployments import PgDeploymentRows
from bpmn_engine.store.postgresql.leases import PgLeaseRows
from bpmn_engine.store.postgresql.messages import PgMessageRows
from bpmn_engine.store.postgresql.outbox import PgOutboxRows
from bpmn_engine.store.postgresql.undo import PgUndoRows
from bpmn_engine.store.postgresql.work import PgWorkQueries


class PostgresStore(
    PgCheckpointRows,
    PgOutboxRows,
    PgMessageRows,
    PgDataStoreRows,
    PgDeploymentRows,
    PgWorkQueries,
    PgLeaseRows,
    PgUndoRows,
):
    """Every instance, deployment and message in one PostgreSQL database (or schema)."""


__all__ = ["PostgresStore"]
