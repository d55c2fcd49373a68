"""Event subprocesses: started by an error or escalation thrown in their scope, or by a
timer, message or signal their scope listens for.

When a BPMN error or escalation is thrown, each scope on the way out is asked first whether an
event subprocess of its own starts on it (spec 10.5.5), before the boundary events of the
activity that holds the scope. An interrupting one ends every other token of the scope; then
the event subprocess runs like an embedded subprocess, and when it ends, so does the scope.
"""

from __future__ import annotations

from bpmn_engine.model import FlowScope, StartEvent, SubProcess
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import LISTENING
from bpmn_engine.runtime.events.kinds import WAITABLE, arming
from bpmn_engine.runtime.step.context import StepContext


def catching_start(
    ctx: StepContext, model: FlowScope, code: str, kind: str
) -> tuple[SubProcess, StartEvent] | None:
    """The event subprocess of `model` whose start catches `code`, specific before catch-all."""
    codes = ctx.definitions.errors if kind == "error" else ctx.definitions.escalations
    catch_all = None
    for node in model.nodes.values():
        if not (isinstance(node, SubProcess) and node.triggered_by_event and node.scope):
            continue
        for start in node.scope.nodes.values():
            if not isinstance(start, StartEvent):
                continue
            for definition in start.definitions:
                if definition.kind != kind:
                    continue
                if definition.ref is None:
                    catch_all = catch_all or (node, start)
                elif codes.get(definition.ref, definition.ref) == code:
                    return node, start
    return catch_all


def start(ctx: StepContext, scope_id: int, node: SubProcess, event: StartEvent, **data) -> None:
    """Run the event subprocess in scope `scope_id`, interrupting it first if its start says so."""
    if event.interrupting:
        ctx.terminate_scope(scope_id)
    track = ctx.step.new_track(element=node.id, scope=scope_id, status=TrackState.EXECUTING)
    ctx.step.emit(
        "event_subprocess.started",
        node.id,
        track.id,
        start=event.id,
        interrupting=event.interrupting,
        **data,
    )
    ctx.step.emit("element.activated", node.id, track.id, type=node.kind, name=node.name)
    inner = ctx.step.new_scope(node.id, scope_id, track.id)
    track.move(TrackState.WAITING)
    track.wait = "subprocess"
    child = ctx.step.new_track(
        element=event.id, scope=inner.id, status=TrackState.READY, parent=track.id
    )
    ctx.step.emit("track.created", event.id, child.id, parent=track.id)


def listen(ctx: StepContext, scope_id: int, model: FlowScope) -> None:
    """Arm the timer, message and signal starts of a scope's event subprocesses.

    Each gets a listening track (not a token: it keeps no scope alive, see `Track.listening`)
    at the event subprocess node; its timers and subscriptions go when the scope ends.
    """
    for node in model.nodes.values():
        if not (isinstance(node, SubProcess) and node.triggered_by_event and node.scope):
            continue
        for event in node.scope.nodes.values():
            if not (isinstance(event, StartEvent) and event.definitions):
                continue
            waited = [d for d in event.definitions if d.kind in WAITABLE]
            if not waited:  # error and escalation starts are looked for by the thrower
                continue
            listener = ctx.step.new_track(
                element=node.id, scope=scope_id, status=TrackState.WAITING, wait=LISTENING
            )
            for definition in waited:  # a multiple start: each of its triggers
                arming(event, definition).arm(ctx.for_track(listener), event, definition, node.id)


def fired(ctx: StepContext, event: StartEvent, **data) -> None:
    """A listening track's start event fired: run the event subprocess (a non-interrupting
    start listens again: `trigger.listen_again`, and timer cycles in `trigger.fire_timer`)."""
    listener = ctx.track
    node = ctx.definitions.node_scopes[listener.element].nodes[listener.element]
    assert isinstance(node, SubProcess)
    start(ctx, listener.scope, node, event, **data)
