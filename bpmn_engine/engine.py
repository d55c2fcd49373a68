"""The public engine: the runtime's engine on a store opened from a path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bpmn_engine.runtime import engine as runtime_engine
from bpmn_engine.runtime.storage import Store
from bpmn_engine.store import open_store


class Engine(runtime_engine.Engine):
    """Runs instances of BPMN processes, checkpointing their steps in a store.

    `db` is a SQLite file (created when missing), `":memory:"`, or any `Store`. The other
    options are the runtime engine's: `handlers` maps service-task types (or element ids)
    to functions, or is a path to a Python file of such functions; `on_user_task` may
    answer a user task as soon as it waits; `checkpoint` is `"step"` (commit each step) or
    `"wait"` (commit a run's steps together when it waits); `job_timeout` caps how long a
    handler call keeps its job's lease alive; `clock` and `trust_scripts` as documented.
    """

    def __init__(self, db: str | Path | Store = ":memory:", **options: Any) -> None:
        super().__init__(open_store(db), **options)
