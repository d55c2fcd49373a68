"""Events without triggers: none start, none/terminate end, none intermediate throw.

Events that need a trigger (timers, messages, signals, errors...) are incidents when a token
reaches them, until event support lands.
"""

from __future__ import annotations

from bpmn_engine.model import Event
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.errors import throw_error
from bpmn_engine.runtime.lifecycle import TrackState
from bpmn_engine.runtime.timer_events import arm


def refuse_definitions(ctx: StepContext, allowed: tuple[str, ...] = ()) -> None:
    node = ctx.node
    assert isinstance(node, Event)
    for definition in node.definitions:
        if definition.kind not in allowed:
            raise Incident(
                f"{definition.kind} {node.kind} (line {node.line}) is not supported yet",
                node.id,
            )


class NoneEventBehaviour(FlowNodeBehaviour):
    """None start events and none intermediate throw events: the token passes through."""

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx)
        super().arrive(ctx)


class EndEventBehaviour(FlowNodeBehaviour):
    """Ends the track; a terminate end event first ends every other track of its scope.

    In the process scope that ends the instance (completed, as in Camunda and Zeebe); in a
    subprocess only the subprocess ends and its parent goes on (spec 10.5.3).
    """

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, ("terminate", "error"))
        ctx.activated()
        ctx.completed()
        node = ctx.node
        assert isinstance(node, Event)
        for definition in node.definitions:
            if definition.kind == "error":
                # the token ends here without completing its scope: the error decides
                ctx.step.touch_track(ctx.track).move(TrackState.COMPLETED)
                code = ctx.definitions.errors.get(definition.ref or "", definition.ref or "")
                throw_error(ctx, code)
                return
        if "terminate" in node.definition_kinds:
            ctx.terminate_scope(ctx.track.scope, keep=ctx.track)
        ctx.end_track(TrackState.COMPLETED)


class CatchEventBehaviour(FlowNodeBehaviour):
    """Intermediate catch events wait for their trigger; timers are the ones supported yet."""

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, ("timer",))
        node = ctx.node
        assert isinstance(node, Event)
        if not node.definitions:
            raise Incident(f"intermediate catch event (line {node.line}) has no trigger", node.id)
        ctx.activated()
        timer = arm(ctx, node, node.definitions[0], node.id)
        ctx.wait("timer", due=timer.due)


class BoundaryEventBehaviour(FlowNodeBehaviour):
    """A token reaches a boundary event only when its trigger fired: it passes through."""
