"""What every part of a step context shares: the state `StepContext.__init__` sets
(`StepParts`, the base of each mixin `StepContext` is made of) and how a part records what
happened; with what a step may use of its engine (`Services`), how an element runs
(`Behaviour`) and what stops a step (`Incident`), which every part and every behaviour name.

`context.py` builds `StepContext` from these parts, so nothing here names it: the protocols
take the step context as a type parameter, and a part knows the whole as `Self`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

from bpmn_engine.model import Definitions, FlowNode, FlowScope, Listener, Process, Task
from bpmn_engine.model import SequenceFlow as Flow
from bpmn_engine.model.retries import Backoff
from bpmn_engine.parse.folders import FoundFile
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.rows import Track
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.handlers import Handler
from bpmn_engine.runtime.storage import Store

C = TypeVar("C", contravariant=True)  # the step context (`context.py`'s `StepContext`)

NO_OUTPUT: Any = object()
"""`StepContext.output` before the node's work gave one."""


class Incident(Exception):
    """A behaviour cannot go on: the step is rolled back and the track fails with this."""

    def __init__(self, message: str, element: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.element = element


class HandlerInChain(Exception):
    """A listener's handler would run in a node that a chain of automatic nodes took as part
    of one step (`runtime/instance/chain.py`): the chain is cut before the call, and the node
    runs again as a step of its own, so that no handler is ever called twice."""


class Behaviour(Protocol[C]):
    """How one BPMN element family runs (`behaviours/base.py` documents the hooks)."""

    def arrive(self, ctx: C) -> None: ...
    def execute(self, ctx: C) -> None: ...
    def complete(self, ctx: C) -> None: ...
    def terminate(self, ctx: C) -> None: ...
    def inner_left(self, ctx: C, inner: C) -> None: ...
    def may_complete(self, ctx: C, scope_id: int) -> bool: ...


class Services(Protocol[C]):
    """What a step may use of its engine. The engine provides it; the behaviours and events
    reach each other through `behaviour_for`, so that neither imports the other."""

    store: Store
    clock: Clock
    trust_scripts: bool
    simulate: bool  # a service task with no handler completes as a no-op, not waits
    backoff: Backoff  # a failing handler's default tries (runtime/instance/retries.py)

    def handler_for(self, node: Task | Listener) -> tuple[Handler | None, str | None]: ...
    def behaviour_for(self, node: FlowNode) -> Behaviour[C]: ...
    def listen(self, ctx: C, event: str, subject: FlowNode | Flow | Process) -> None:
        """Run the listeners of `subject` for `event` (`runtime/step/listeners.py`)."""

    def callable_definitions(
        self, process_id: str, caller: Definitions, binding: str = ..., version: int | None = ...
    ) -> Definitions: ...
    def announce(self, process_id: str, caller: Definitions) -> FoundFile | None:
        """The file of a folder a call took the process from, the first time only."""


class StepParts:
    """The state `StepContext.__init__` sets, which each part (values, moving on) reads: one
    object, split by responsibility only."""

    engine: Services[Self]
    definitions: Definitions
    data: InstanceData
    step: Step
    track: Track
    scope_model: FlowScope
    node: FlowNode
    external: Callable[[], dict[str, Any] | None] | None
    start_inputs: tuple[str, dict[str, Any]] | None
    post_scripts_ran: str | None
    output: Any

    if TYPE_CHECKING:  # the whole's (`StepContext`), which a part calls on itself

        def for_track(self, track: Track) -> Self: ...

    def behaviour(self, node: FlowNode) -> Behaviour[Self]:
        return self.engine.behaviour_for(node)

    def emit(self, event: str, **data: Any) -> None:
        self.step.record(event, self.node.id, self.track.id, data)

    def warn(self, message: str) -> None:
        self.emit("warning", message=message)
