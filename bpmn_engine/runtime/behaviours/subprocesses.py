"""Embedded subprocess: its own scope, started at its start nodes, completed by its last track."""

from __future__ import annotations

from bpmn_engine.model import SubProcess
from bpmn_engine.runtime.behaviours.base import ActivityBehaviour
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.lifecycle import TrackState


class SubProcessBehaviour(ActivityBehaviour):
    def arrive(self, ctx: StepContext) -> None:
        node = ctx.node
        if node.kind != "subProcess":
            raise Incident(f"{node.kind} (line {node.line}) is not supported yet", node.id)
        super().arrive(ctx)

    def execute(self, ctx: StepContext) -> None:
        node = ctx.node
        assert isinstance(node, SubProcess)
        scope = ctx.step.new_scope(node.id, ctx.track.scope, ctx.track.id)
        ctx.set_local(scope.id, self.inputs(ctx))
        ctx.wait("subprocess", scope=scope.id)
        for inner in node.scope.nodes.values():
            if node.scope.is_event_subprocess(inner):
                ctx.warn(f"event subprocess {inner.id!r} is not armed: not supported yet")
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
        if node.io is not None and node.io.outputs:
            inner = max(s.id for s in ctx.data.scopes.values() if s.track == ctx.track.id)
            locals_ = ctx.data.variables.visible(inner)
            ctx.set_variables(ctx.mapped(node.io.outputs, locals_))
        super().complete(ctx)
