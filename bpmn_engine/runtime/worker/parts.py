"""What every part of a worker shares: the state `Worker.__init__` sets (`WorkerParts`, the
base of each mixin `Worker` is made of), its report, how a part listens and reports trouble;
and what a worker may use of its engine (`WorkerServices`)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from bpmn_engine.model import Definitions
from bpmn_engine.records.rows import Event
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.handlers import Handler
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import InstanceServices, Listener
from bpmn_engine.runtime.storage import Store


class WorkerServices(InstanceServices[Instance], Protocol):
    """What a worker uses of its engine (`Engine` is one), besides what its instances use:
    the definitions by version, its handlers and job cap, the outbox, starting at a start
    event. The engine sits above the worker (it keeps the worker's heartbeat), so the worker
    knows it by this protocol."""

    handlers: Mapping[str, Handler]
    job_timeout: float | None

    def definitions(self, version: str) -> Definitions: ...
    def deliver_outbox(self, on_event: Listener | None = None) -> int: ...
    def start_at(
        self,
        definitions: Definitions,
        process_id: str | None,
        start_event_id: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        instance_id: str | None = None,
        trigger: tuple[str, dict[str, Any]] | None = None,
    ) -> Instance: ...


QUARANTINE_SECONDS = 60.0  # an instance whose step raised is left alone this long


@dataclass
class WorkerReport:
    """What a worker did, for its last line of output."""

    steps: int = 0
    instances: set[str] = field(default_factory=set)
    started: int = 0  # instances started by start timers
    conflicts: int = 0  # steps another writer won (the instance was reloaded later)
    ghosts: int = 0  # job results refused: the job no longer counted (`GhostResult`)
    leases_released: int = 0
    jobs_given_up: int = 0  # jobs past the absolute cap (`--job-timeout`), failed
    woken: int = 0  # waits a commit elsewhere ended early (PostgreSQL's NOTIFY)
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "worker.stopped",
            "steps": self.steps,
            "instances": len(self.instances),
            "started": self.started,
            "conflicts": self.conflicts,
            "ghosts": self.ghosts,
            "leases_released": self.leases_released,
            "jobs_given_up": self.jobs_given_up,
            "woken": self.woken,
            "errors": len(self.errors),
        }


class WorkerParts:
    """The state `Worker.__init__` sets, which each part (the turn loop, the upkeep of each
    turn, time) reads: one object, split by responsibility only."""

    engine: WorkerServices
    store: Store
    clock: Clock
    poll: float
    lease: float
    once: bool
    horizon: timedelta | None
    on_event: Listener | None
    on_error: Callable[[str], None] | None
    report: WorkerReport
    _stopping: bool
    _quarantine: dict[str, float]
    _random: random.Random
    _until: datetime | None
    _serves: dict[tuple[str, str], bool]  # (version, element): handler known

    def _listen(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _trouble(self, instance_id: str | None, message: str) -> None:
        self.report.errors.append(message)
        if instance_id is not None:
            self._quarantine[instance_id] = time.monotonic() + QUARANTINE_SECONDS
        if self.on_error is not None:
            self.on_error(message)
