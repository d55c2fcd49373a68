"""What every part of an instance shares: its engine, rows, definitions, checkpoints and
scheduler (`InstanceParts`, the base of each mixin `Instance` is made of), the types a
caller passes in, and what an instance may use of its engine (`InstanceServices`): the
engine sits above the instance and makes it, so the instance knows it by this protocol."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, Self, TypeVar

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Definitions, FlowNode
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.rows import Event, Subscription, UserTask
from bpmn_engine.runtime.instance.checkpoints import Checkpoints
from bpmn_engine.runtime.instance.scheduler import Action, ActionKind, Scheduler
from bpmn_engine.runtime.step.context import Services, StepContext
from bpmn_engine.runtime.step.variables import storable_all

Listener = Callable[[Event], None]
StepWork = Callable[[StepContext], None]


def checked_variables(values: dict[str, Any]) -> dict[str, Any]:
    """Variables from a caller, as stored; a value that cannot be stored is the caller's error."""
    try:
        return storable_all(values)
    except ValueError as error:
        raise UsageError(str(error)) from None


M = TypeVar("M")  # the instance type


class Deliveries(Protocol[M]):
    """The engine's postman (`runtime/engine/outbox.py`): what steps sent, delivered after
    their commit."""

    def flush(self, sender: M | None = None, on_event: Listener | None = None) -> int: ...
    def deferred(self) -> AbstractContextManager[None]: ...


class Leases(Protocol):
    """The engine's heartbeat (`runtime/worker/leases.py`): a job's lease kept alive while
    its handler runs."""

    def holding(self, instance_id: str, track_id: int) -> AbstractContextManager[None]: ...


class InstanceServices(Services[StepContext], Protocol[M]):
    """What an instance may use of its engine (`Engine` is one): a step's services, its
    checkpoint policy and undo log, the postman, the heartbeat, whoever answers user tasks,
    the handlers it has, and other instances by id (its call tree's members)."""

    checkpoint: str
    undo: bool
    postman: Deliveries[M]
    heartbeat: Leases
    on_user_task: Callable[[M, UserTask], dict[str, Any] | None] | None

    def has_handler(self, node: FlowNode) -> bool: ...
    def family(self, instance_id: str) -> list[str]: ...
    def held_instance(self, instance_id: str) -> M | None: ...
    def instance(self, instance_id: str) -> M: ...


class InstanceParts:
    """The state `Instance.__init__` sets, which each part (reading, the loop, the steps,
    waits, operations, call replies) reads: one object, split by responsibility only."""

    engine: InstanceServices[Self]
    data: InstanceData
    definitions: Definitions
    checkpoints: Checkpoints
    scheduler: Scheduler
    # jobs a crash left `executing`, and jobs waiting for a handler this engine has
    _orphans: list[int]
    _jobs: list[int]
    _actions: dict[ActionKind, Callable[[Action, Any, Listener | None], None]]
    # message subscriptions that look for a buffered message in turn (`Steps._take_buffered`)
    _buffered_looks: list[Subscription] | None
    # a failed chain's replay: the most nodes each of the next chains may take (`chain.py`)
    _replays: list[int]
    # how many nodes the last `step_once` took: more than one for a chain (`chain.py`)
    nodes_stepped: int
