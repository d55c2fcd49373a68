"""The embedded store: one SQLite file (or `:memory:`) holding every instance.

One class per concern (checkpoints, the outbox, messages, data stores, deployments,
finding work, leases, the undo log), all on one connection; `SqliteStore` is their sum and
implements `bpmn_engine.runtime.storage.Store`. The concerns' statements are the PostgreSQL
store's too: what the two say differently they ask `self.dialect` for (`store/dialect.py`).
"""

from __future__ import annotations

from bpmn_engine.records.data import InstanceData
from bpmn_engine.store.sqlite.checkpoints import CheckpointRows
from bpmn_engine.store.sqlite.data_stores import DataStoreRows
from bpmn_engine.store.sqlite.deployments import DeploymentRows
from bpmn_engine.store.sqlite.leases import LeaseRows
from bpmn_engine.store.sqlite.messages import MessageRows
from bpmn_engine.store.sqlite.outbox import OutboxRows
from bpmn_engine.store.sqlite.undo import UndoRows
from bpmn_engine.store.sqlite.work import WorkQueries


class SqliteStore(
    CheckpointRows,
    OutboxRows,
    MessageRows,
    DataStoreRows,
    DeploymentRows,
    WorkQueries,
    LeaseRows,
    UndoRows,
):
    """Every instance, deployment and message in one SQLite database."""

    def load(self, instance_id: str) -> InstanceData:
        """The rows of one instance read in one transaction (`reading`)."""
        with self.reading():
            return super().load(instance_id)


__all__ = ["SqliteStore"]
