"""The public engine: the runtime's engine on a store opened from a path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bpmn_engine.model import Definitions
from bpmn_engine.records.rows import DataStoreValue
from bpmn_engine.runtime.engine import engine as runtime_engine
from bpmn_engine.runtime.storage import Store
from bpmn_engine.store import open_store


class Engine(runtime_engine.Engine):
    """Runs instances of BPMN processes, checkpointing their steps in a store.

    `db` is a SQLite file (created when missing), `":memory:"`, or any `Store`. The other
    options are the runtime engine's: `handlers` maps service-task types (or element ids)
    to functions, or is a path to a Python file of such functions; `on_user_task` may
    answer a user task as soon as it waits; `checkpoint` is `"step"` (commit each step) or
    `"wait"` (commit a run's steps together when it waits); `job_timeout` caps how long a
    handler call keeps its job's lease alive; `simulate` completes a service task with no
    handler as a no-op, where it otherwise waits as a job for an engine that has one;
    `max_tree_size` is the most instances one call tree may hold (10,000); `clock` and
    `trust_scripts` as documented.

    `read_only=True` opens an existing SQLite file for looking only (`instances`, an
    instance's state and history): it is never created or written, so looking at a
    database another process is running cannot disturb it.
    """

    def __init__(
        self, db: str | Path | Store = ":memory:", *, read_only: bool = False, **options: Any
    ) -> None:
        super().__init__(open_store(db, read_only=read_only), **options)

    @property
    def database(self) -> str:
        """Where instances are stored: the SQLite file's path (or `:memory:`)."""
        return self.store.path

    @property
    def worker_id(self) -> str:
        """This engine's name in job leases (host:pid.n): who holds a claimed job."""
        return self.store.worker

    def data_store(self, name: str) -> DataStoreValue | None:
        """A data store of this database (docs/data-stores.md): its value, and when, by which
        instance and element it was last written; None when no step ever wrote it."""
        return self.store.data_store(name)

    def data_stores(self) -> list[DataStoreValue]:
        """Every data store ever written in this database, by name."""
        return self.store.data_stores()

    def definition_of(self, instance_id: str) -> Definitions:
        """The compiled definitions an instance runs on, without loading the instance."""
        return self.definitions(self.store.definition_of(self.store.resolve(instance_id)))
