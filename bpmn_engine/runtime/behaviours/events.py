"""Events without triggers: none start, none/terminate end, none intermediate throw.

Events that need a trigger (timers, messages, signals, errors...) are incidents when a token
reaches them, until event support lands.
"""

from __future__ import annotations

from bpmn_engine.model import Event
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Sent
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.errors import throw_error, throw_escalation
from bpmn_engine.runtime.timer_events import arm
from bpmn_engine.runtime.triggers import (
    condition_holds,
    deliver,
    deliver_buffered,
    subscribe,
    throw_message,
)

WAITABLE = ("timer", "message", "signal", "conditional")


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
    """Start events: the token passes through. A start event with a trigger is reached only
    when it fired (the start of an event subprocess)."""

    def arrive(self, ctx: StepContext) -> None:
        holder = ctx.definitions.node_scopes.get(ctx.scope_model.id)
        node = holder.nodes.get(ctx.scope_model.id) if holder else None
        if not getattr(node, "triggered_by_event", False):
            refuse_definitions(ctx)
        super().arrive(ctx)


class ThrowEventBehaviour(FlowNodeBehaviour):
    """Intermediate throw events: none, link (jump to the catch of that name), signal
    (broadcast once the step is committed) and escalation."""

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, ("link", "signal", "escalation", "message"))
        node = ctx.node
        assert isinstance(node, Event)
        ctx.activated()
        for definition in node.definitions:
            if definition.kind == "link":
                ctx.completed()
                jump_to_link(ctx, definition.ref or "")
                return
            if definition.kind == "signal":
                throw_signal(ctx, definition.ref)
            if definition.kind == "message" or definition.kind == "message":
                throw_message(ctx, definition.ref)
            elif definition.kind == "escalation":
                throw_escalation(ctx, code_of(ctx, definition.ref, "escalation"))
                if not ctx.track.live or ctx.track.element != node.id:
                    return  # an interrupting catcher ended the thrower's scope
        self.complete(ctx)


def code_of(ctx: StepContext, ref: str | None, kind: str) -> str:
    codes = ctx.definitions.errors if kind == "error" else ctx.definitions.escalations
    return codes.get(ref or "", ref or "")


def throw_signal(ctx: StepContext, ref: str | None) -> None:
    name = ctx.definitions.signals.get(ref or "", ref)
    if not name:
        raise Incident(f"signal throw (line {ctx.node.line}) names no signal", ctx.node.id)
    ctx.step.sent.append(Sent("signal", name))
    ctx.emit("signal.thrown", name=name)


def jump_to_link(ctx: StepContext, name: str) -> None:
    """A link throw continues at the link catch event of the same name in the same scope."""
    targets = [
        n.id
        for n in ctx.scope_model.nodes.values()
        if n.kind == "intermediateCatchEvent"
        and any(d.kind == "link" and d.ref == name for d in getattr(n, "definitions", ()))
    ]
    if len(targets) != 1:
        found = "no" if not targets else f"{len(targets)}"
        raise Incident(f"link {name!r} has {found} catch events in this scope", ctx.node.id)
    ctx.step.emit("link.taken", ctx.node.id, ctx.track.id, link=name, target=targets[0])
    ctx.step.ready(ctx.track, targets[0], None)


class EndEventBehaviour(FlowNodeBehaviour):
    """Ends the track; a terminate end event first ends every other track of its scope.

    In the process scope that ends the instance (completed, as in Camunda and Zeebe); in a
    subprocess only the subprocess ends and its parent goes on (spec 10.5.3).
    """

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, ("terminate", "error", "escalation", "signal", "message"))
        ctx.activated()
        ctx.completed()
        node = ctx.node
        assert isinstance(node, Event)
        for definition in node.definitions:
            if definition.kind == "error":
                # the token ends here without completing its scope: the error decides
                ctx.step.touch_track(ctx.track).move(TrackState.COMPLETED)
                throw_error(ctx, code_of(ctx, definition.ref, "error"))
                return
            if definition.kind == "escalation":
                throw_escalation(ctx, code_of(ctx, definition.ref, "escalation"))
                if not ctx.track.live:
                    return  # an interrupting catcher ended the thrower's scope
            if definition.kind == "signal":
                throw_signal(ctx, definition.ref)
            if definition.kind == "message":
                throw_message(ctx, definition.ref)
        if "terminate" in node.definition_kinds:
            ctx.terminate_scope(ctx.track.scope, keep=ctx.track)
        ctx.end_track(TrackState.COMPLETED)


class CatchEventBehaviour(FlowNodeBehaviour):
    """Intermediate catch events wait for a timer, a message or a signal; a link catch is
    reached only by a jump from its throw, and passes the token on."""

    def arrive(self, ctx: StepContext) -> None:
        refuse_definitions(ctx, (*WAITABLE, "link"))
        node = ctx.node
        assert isinstance(node, Event)
        if not node.definitions:
            raise Incident(f"intermediate catch event (line {node.line}) has no trigger", node.id)
        ctx.activated()
        definition = node.definitions[0]
        if definition.kind == "link":
            self.complete(ctx)
            return
        if definition.kind == "timer":
            timer = arm(ctx, node, definition, node.id)
            ctx.wait("timer", due=timer.due)
            return
        subscription = subscribe(ctx, node, definition, node.id)
        ctx.wait(definition.kind, name=subscription.name)
        if definition.kind == "conditional":
            if condition_holds(ctx, subscription):  # already true: no need to wait
                deliver(ctx, subscription, {})
            return
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
