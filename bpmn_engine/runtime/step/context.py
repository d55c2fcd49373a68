"""What a behaviour may do during a step: read variables, evaluate, wait, take flows, end.

`StepContext` is one object made of parts, one module per responsibility (over `parts.py`,
which also holds `Incident`, `Behaviour` and the engine as the `Services` protocol):

- `values.py`: variables, data stores, expressions, scripts, I/O mappings;
- `moving.py`: taking flows, waiting, ending tracks, completing and terminating scopes and
  the instance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bpmn_engine.model import Definitions, FlowNode, FlowScope
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Track
from bpmn_engine.runtime.step.moving import MovingOn
from bpmn_engine.runtime.step.parts import NO_OUTPUT, Behaviour, Incident, Services
from bpmn_engine.runtime.step.values import Values

__all__ = ["NO_OUTPUT", "Behaviour", "Incident", "Services", "StepContext"]


class StepContext(Values, MovingOn):
    """A track at a node, during one step."""

    def __init__(
        self,
        engine: Services[StepContext],
        definitions: Definitions,
        data: InstanceData,
        step: Step,
        track: Track,
    ) -> None:
        self.engine = engine
        self.definitions = definitions
        self.data = data
        self.step = step
        self.track = track
        self.scope_model: FlowScope = definitions.node_scopes[track.element]
        self.node: FlowNode = self.scope_model.nodes[track.element]
        self.external: Callable[[], dict[str, Any] | None] | None = None
        # (node id, input-mapped locals) computed for its start listeners, reused by its work
        self.start_inputs: tuple[str, dict[str, Any]] | None = None
        # the node whose SpiffWorkflow post-scripts ran before its outputs (not again at its end)
        self.post_scripts_ran: str | None = None
        # what the work of the node gave back (bpmn-engine's `content.output`: a script's
        # `next(null, value)`, a handler's result, a user task's values), for its output
        # mappings and its outgoing conditions in this step
        self.output: Any = NO_OUTPUT

    def next_node(self) -> None:
        """The track went on to its next node in this same step (a chain of automatic nodes,
        `runtime/instance/chain.py`): what the last node's work left here is forgotten."""
        self.scope_model = self.definitions.node_scopes[self.track.element]
        self.node = self.scope_model.nodes[self.track.element]
        self.external = None
        self.start_inputs = None
        self.post_scripts_ran = None
        self.output = NO_OUTPUT
        self.step.chained += 1
        self.step.node_began = len(self.step.events)

    def for_track(self, track: Track) -> StepContext:
        return StepContext(self.engine, self.definitions, self.data, self.step, track)

    def body_of(self, track: Track) -> Track | None:
        """For an inner instance of a loop or multi-instance activity, the track that waits at
        the activity for the whole body (`behaviours/multi_instance.py`); else None.

        An inner instance is the one track at an element whose scope belongs to that element.
        """
        scope = self.data.scopes.get(track.scope)
        if scope is None or scope.element != track.element or scope.track is None:
            return None
        return self.data.tracks[scope.track]

    # --- events -------------------------------------------------------------------------------
    def activated(self) -> None:
        self.step.touch_track(self.track)
        self.track.move(TrackState.EXECUTING)
        self.emit("element.activated", type=self.node.kind, name=self.node.name)
        self.engine.listen(self, "start", self.node)

    def completed(self) -> None:
        self.engine.listen(self, "end", self.node)
        self.emit("element.completed", type=self.node.kind)
