"""Embedded subprocess: its own scope, started at its start nodes, completed by its last track."""

from __future__ import annotations

from bpmn_engine.model import FlowScope, StartEvent, SubProcess
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.runtime.behaviours.base import ActivityBehaviour
from bpmn_engine.runtime.data import data_associations
from bpmn_engine.runtime.events import subprocesses as event_subprocesses
from bpmn_engine.runtime.step.context import Incident, StepContext

ARMED_TRIGGERS = frozenset(
    {"error", "escalation", "timer", "message", "signal", "conditional", "compensate"}
)


def unarmed_event_subprocesses(scope: FlowScope) -> list[tuple[str, str]]:
    """(id, message) for each event subprocess of the scope the engine does not listen for."""
    found = []
    for inner in scope.nodes.values():
        if not (isinstance(inner, SubProcess) and inner.triggered_by_event and inner.scope):
            continue
        kinds = {
            d.kind
            for start in inner.scope.nodes.values()
            if isinstance(start, StartEvent)
            for d in start.definitions
        }
        if not kinds <= ARMED_TRIGGERS:
            message = (
                f"event subprocess {inner.id!r} ({', '.join(sorted(kinds))}) is not armed: "
                "event subprocesses started this way are not supported yet"
            )
            found.append((inner.id, message))
    return found


def warn_unarmed_event_subprocesses(ctx: StepContext, scope: FlowScope) -> None:
    for _, message in unarmed_event_subprocesses(scope):
        ctx.warn(message)


class SubProcessBehaviour(ActivityBehaviour):
    kinds: tuple[str, ...] = ("subProcess",)  # what this class runs of `SUB_PROCESSES`

    def arrive(self, ctx: StepContext) -> None:
        node = ctx.node
        if node.kind not in self.kinds:
            raise Incident(f"{node.kind} (line {node.line}) is not supported yet", node.id)
        super().arrive(ctx)

    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, SubProcess)
        scope = ctx.step.new_scope(node.id, ctx.track.scope, ctx.track.id)
        ctx.set_local(scope.id, {**dict.fromkeys(node.scope.variables), **self.inputs(ctx)})
        ctx.wait("subprocess", scope=scope.id)
        warn_unarmed_event_subprocesses(ctx, node.scope)
        event_subprocesses.listen(ctx, scope.id, node.scope)
        starts = node.scope.start_nodes
        if not starts:
            ctx.scope_completed(scope.id)
            return
        for start in starts:
            child = ctx.step.new_track(
                element=start, scope=scope.id, status=TrackState.READY, parent=ctx.track.id
            )
            ctx.step.emit("track.created", start, child.id, parent=ctx.track.id)

    def complete(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, SubProcess)
        if (node.io is not None and node.io.outputs) or node.data is not None:
            inner = max(s.id for s in ctx.data.scopes.values() if s.track == ctx.track.id)
            locals_ = ctx.data.variables.visible(inner)
            if node.io is not None and node.io.outputs:
                ctx.set_variables(ctx.mapped(node.io.outputs, locals_))
            ctx.set_variables(data_associations.write(ctx, node, locals_))
        super().complete(ctx)
