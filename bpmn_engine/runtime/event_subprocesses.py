"""Event subprocesses started by an error or an escalation thrown inside their scope.

When a BPMN error or escalation is thrown, each scope on the way out is asked first whether an
event subprocess of its own starts on it (spec 10.5.5), before the boundary events of the
activity that holds the scope. An interrupting one ends every other token of the scope; then
the event subprocess runs like an embedded subprocess, and when it ends, so does the scope.
"""

from __future__ import annotations

from bpmn_engine.model import FlowScope, StartEvent, SubProcess
from bpmn_engine.runtime.context import StepContext
from bpmn_engine.runtime.lifecycle import TrackState


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
