"""Gateways: they only choose flows. Joins live in `runtime/step/joins.py`."""

from __future__ import annotations

from bpmn_engine.model import Gateway, SequenceFlow
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.step import joins
from bpmn_engine.runtime.step.context import Incident, StepContext


class ExclusiveGatewayBehaviour(FlowNodeBehaviour):
    """Takes the first flow (document order) whose condition holds, else the default. A flow
    without a condition holds, as in Camunda 7 and bpmn-engine: when none has one, that is
    the first flow (the parser warns that the diagram does not choose); in a process not
    marked executable (a descriptive diagram) such a fork is an incident instead: nothing
    says which way, and the first flow is often a loop back."""

    def outgoing(self, ctx: StepContext) -> list[SequenceFlow]:
        flows = ctx.scope_model.outgoing(ctx.node)
        default = getattr(ctx.node, "default", None)
        if (
            len(flows) > 1
            and not default
            and all(f.condition is None for f in flows)
            and not ctx.definitions.processes[ctx.data.head.process].is_executable
        ):
            raise Incident(
                f"exclusive gateway with {len(flows)} outgoing flows and no conditions in a "
                "process not marked executable: the diagram does not say which way to go "
                "(add conditions or a default flow, or pick one with `bpmn step` and "
                "`choose`)",
                ctx.node.id,
            )
        for flow in flows:
            if flow.id != default and ctx.condition_holds(flow):
                return [flow]
        if default:
            return [ctx.scope_model.flows[default]]
        if not flows:
            return []
        raise Incident(
            "exclusive gateway: no outgoing condition is true and there is no default flow",
            ctx.node.id,
        )


class ParallelGatewayBehaviour(FlowNodeBehaviour):
    """Forks on every outgoing flow (conditions are ignored, spec 13.3.3)."""

    def arrive(self, ctx: StepContext) -> None:
        if len(ctx.node.incoming) > 1:
            if joins.parallel_arrival(ctx):
                self.execute(ctx)
            return
        super().arrive(ctx)

    def outgoing(self, ctx: StepContext) -> list[SequenceFlow]:
        return ctx.scope_model.outgoing(ctx.node)


class InclusiveGatewayBehaviour(FlowNodeBehaviour):
    """Forks on every true condition (default if none); joins by the spec's OR-join rule.

    A token arriving at a joining inclusive gateway fires it in the same step when the OR-join
    rule already holds (`joins.inclusive_arrival`), else waits; the instance's scheduler fires
    the join (`fire_join`) once `joins.inclusive_enabled` says no other token can arrive.
    """

    def arrive(self, ctx: StepContext) -> None:
        if len(ctx.node.incoming) > 1:
            if joins.inclusive_arrival(ctx):
                self.execute(ctx)
            return
        super().arrive(ctx)

    def fire_join(self, ctx: StepContext, chosen: list) -> None:
        joins.fire(ctx, chosen)
        self.execute(ctx)

    def outgoing(self, ctx: StepContext) -> list[SequenceFlow]:
        node = ctx.node
        assert isinstance(node, Gateway)
        flows = ctx.scope_model.outgoing(node)
        taken = [f for f in flows if f.id != node.default and ctx.condition_holds(f)]
        if taken:
            return taken
        if node.default:
            return [ctx.scope_model.flows[node.default]]
        if not flows:
            return []
        raise Incident(
            "inclusive gateway: no outgoing condition is true and there is no default flow",
            node.id,
        )
