"""What every part of the engine shares: its store, clock, options and caches
(`EngineParts`, the base of each mixin `Engine` is made of)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bpmn_engine.model import CallActivity, Definitions, Task
from bpmn_engine.model.retries import Backoff
from bpmn_engine.parse import folders
from bpmn_engine.records.rows import UserTask
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.data.decisions import DecisionRegistry
from bpmn_engine.runtime.engine.outbox import Postman
from bpmn_engine.runtime.engine.session import Session
from bpmn_engine.runtime.handlers import Handler
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.storage import Store
from bpmn_engine.runtime.worker.leases import Heartbeat

UserTaskAnswer = Callable[[Instance, UserTask], "dict[str, Any] | None"]


class EngineParts:
    """The state `Engine.__init__` sets, which each part (definitions, starts, calls,
    instances) reads: one object, split by responsibility only."""

    store: Store
    clock: Clock
    checkpoint: str
    undo: bool
    job_timeout: float | None
    max_tree_size: int
    heartbeat: Heartbeat
    handlers: Mapping[str, Handler]
    trust_scripts: bool
    simulate: bool
    backoff: Backoff
    on_user_task: UserTaskAnswer | None
    postman: Postman
    session: Session
    decisions: DecisionRegistry
    _definitions: dict[str, Definitions]
    _deployed: dict[str, None]
    _held: dict[str, Instance]
    _checked: dict[tuple[str, str, bool], list[tuple[str, str]]]
    _outward: dict[tuple[str, str], tuple[list[CallActivity], list[Task]]]
    _search_path: tuple[folders.Folder, ...]
    _folders: dict[str, folders.Folder | None]
    _in_folders: dict[tuple[tuple[folders.Folder, ...], str], folders.FoundFile | None]
    _taken: dict[tuple[str, str], folders.FoundFile]
    _announced: set[tuple[str, str]]
