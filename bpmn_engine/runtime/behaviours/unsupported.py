"""Elements the engine cannot execute yet: reaching one is an incident naming it, never a crash."""

from __future__ import annotations

from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.context import Incident, StepContext


class UnsupportedBehaviour(FlowNodeBehaviour):
    def __init__(self, what: str) -> None:
        self.what = what

    def arrive(self, ctx: StepContext) -> None:
        raise Incident(
            f"{ctx.node.kind} (line {ctx.node.line}) cannot be executed: {self.what}",
            ctx.node.id,
        )
