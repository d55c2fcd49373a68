"""What every part of an instance shares: its engine, rows, definitions, checkpoints and
scheduler (`InstanceParts`, the base of each mixin `Instance` is made of), and the types a
caller passes in."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Definitions
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.rows import Event, Subscription
from bpmn_engine.runtime.instance.checkpoints import Checkpoints
from bpmn_engine.runtime.instance.scheduler import Action, ActionKind, Scheduler
from bpmn_engine.runtime.step.context import StepContext
from bpmn_engine.runtime.step.variables import storable_all

if TYPE_CHECKING:
    from bpmn_engine.runtime.engine.engine import Engine

Listener = Callable[[Event], None]
StepWork = Callable[[StepContext], None]


def checked_variables(values: dict[str, Any]) -> dict[str, Any]:
    """Variables from a caller, as stored; a value that cannot be stored is the caller's error."""
    try:
        return storable_all(values)
    except ValueError as error:
        raise UsageError(str(error)) from None


class InstanceParts:
    """The state `Instance.__init__` sets, which each part (reading, the loop, the steps,
    waits, operations, call replies) reads: one object, split by responsibility only."""

    engine: Engine
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
