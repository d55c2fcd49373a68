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
from bpmn_engine.runtime.triggers import deliver_buffered, subscribe

WAITABLE = ("timer", "message", "signal")


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
    """Intermediate catch events wait for a timer, a message or a signal."""

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, WAITABLE)
        node = ctx.node
        assert isinstance(node, Event)
        if not node.definitions:
            raise Incident(f"intermediate catch event (line {node.line}) has no trigger", node.id)
        ctx.activated()
        definition = node.definitions[0]
        if definition.kind == "timer":
            timer = arm(ctx, node, definition, node.id)
            ctx.wait("timer", due=timer.due)
            return
        subscription = subscribe(ctx, node, definition, node.id)
        ctx.wait(definition.kind, name=subscription.name)
        deliver_buffered(ctx, [subscription])


class BoundaryEventBehaviour(FlowNodeBehaviour):
    """A token reaches a boundary event only when its trigger fired: it passes through."""


class EventBasedGatewayBehaviour(FlowNodeBehaviour):
    """Waits for every event after it at once; the first that fires wins (spec 13.4.4).

    The losing timers and subscriptions are cancelled in the same step, because the track
    leaves the gateway (see `Step.cancel_stale_waits`): no event can fire twice.
    """

    def execute(self, ctx: StepContext) -> None:
        subscriptions = []
        for flow in ctx.scope_model.outgoing(ctx.node):
            target = ctx.scope_model.nodes[flow.target]
            definitions = getattr(target, "definitions", ())
            if target.kind == "receiveTask":
                subscriptions.append(subscribe(ctx, target, None, ctx.node.id))
            elif target.kind == "intermediateCatchEvent" and definitions:
                if definitions[0].kind == "timer":
                    arm(ctx, target, definitions[0], ctx.node.id)
                elif definitions[0].kind in ("message", "signal"):
                    subscriptions.append(subscribe(ctx, target, definitions[0], ctx.node.id))
                else:
                    raise Incident(
                        f"{definitions[0].kind} events after an event-based gateway "
                        "are not supported yet",
                        target.id,
                    )
            else:
                raise Incident(
                    f"an event-based gateway must lead to catch events or receive tasks, "
                    f"not to {target.kind} {target.id!r}",
                    ctx.node.id,
                )
        ctx.wait("event")
        deliver_buffered(ctx, subscriptions)
