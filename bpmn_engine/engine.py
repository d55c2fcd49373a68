"""The public engine: the runtime's engine on a store opened from a path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bpmn_engine.model import Definitions
from bpmn_engine.runtime import engine as runtime_engine
from bpmn_engine.runtime.instance import Instance
from bpmn_engine.runtime.storage import Store
from bpmn_engine.store import SqliteStore, open_store


@dataclass(frozen=True)
class Snapshot:
    """An instance's rows at one moment (`Engine.snapshot`), to put back with `restore`.

    History is append-only, so a snapshot keeps its length, not a copy of it.
    """

    instance: str
    rows: dict[str, list[tuple]]
    history_length: int


class Engine(runtime_engine.Engine):
    """Runs instances of BPMN processes, checkpointing their steps in a store.

    `db` is a SQLite file (created when missing), `":memory:"`, or any `Store`. The other
    options are the runtime engine's: `handlers` maps service-task types (or element ids)
    to functions, or is a path to a Python file of such functions; `on_user_task` may
    answer a user task as soon as it waits; `checkpoint` is `"step"` (commit each step) or
    `"wait"` (commit a run's steps together when it waits); `job_timeout` caps how long a
    handler call keeps its job's lease alive; `clock` and `trust_scripts` as documented.

    `read_only=True` opens an existing SQLite file for looking only (`instances`, an
    instance's state and history): it is never created or written, so looking at a
    database another process is running cannot disturb it.
    """

    def __init__(
        self, db: str | Path | Store = ":memory:", *, read_only: bool = False, **options: Any
    ) -> None:
        store = (
            SqliteStore(db, read_only=True) if read_only and isinstance(db, str | Path) else None
        )
        super().__init__(store or open_store(db), **options)

    @property
    def database(self) -> str:
        """Where instances are stored: the SQLite file's path (or `:memory:`)."""
        return self.store.path

    @property
    def worker_id(self) -> str:
        """This engine's name in job leases (host:pid): who holds a claimed job."""
        return self.store.worker

    def definition_of(self, instance_id: str) -> Definitions:
        """The compiled definitions an instance runs on, without loading the instance."""
        return self.definitions(self.store.definition_of(self.store.resolve(instance_id)))

    def snapshot(self, instance: Instance) -> Snapshot:
        """The instance's committed rows now, for `restore` (the step REPL's `back`)."""
        rows = self.store.snapshot(instance.id, with_history=False)
        return Snapshot(instance.id, rows, instance.data.head.next_event)

    def restore(self, snapshot: Snapshot) -> Instance:
        """Put an instance's rows back as `snapshot` took them (history after it dropped),
        and reopen it from them."""
        self.store.restore(
            snapshot.instance, snapshot.rows, keep_history_below=snapshot.history_length
        )
        return self.instance(snapshot.instance)
