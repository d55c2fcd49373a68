"""The behaviour registry: one entry per BPMN element kind, grouped by family."""

from __future__ import annotations

from bpmn_engine.model import FlowNode
from bpmn_engine.runtime.behaviours.ad_hoc import AdHocSubProcessBehaviour
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.behaviours.call_activities import CallActivityBehaviour
from bpmn_engine.runtime.behaviours.complex_gateway import ComplexGatewayBehaviour
from bpmn_engine.runtime.behaviours.events import (
    BoundaryEventBehaviour,
    CatchEventBehaviour,
    EndEventBehaviour,
    EventBasedGatewayBehaviour,
    NoneEventBehaviour,
    ThrowEventBehaviour,
)
from bpmn_engine.runtime.behaviours.gateways import (
    ExclusiveGatewayBehaviour,
    InclusiveGatewayBehaviour,
    ParallelGatewayBehaviour,
)
from bpmn_engine.runtime.behaviours.subprocesses import SubProcessBehaviour
from bpmn_engine.runtime.behaviours.tasks import (
    BusinessRuleTaskBehaviour,
    ManualTaskBehaviour,
    ReceiveTaskBehaviour,
    ScriptTaskBehaviour,
    ServiceTaskBehaviour,
    UserTaskBehaviour,
)
from bpmn_engine.runtime.behaviours.transactions import TransactionBehaviour

_manual = ManualTaskBehaviour()
_service = ServiceTaskBehaviour()
_subprocess = SubProcessBehaviour()

BEHAVIOURS: dict[str, FlowNodeBehaviour] = {
    # tasks
    "task": _manual,
    "manualTask": _manual,
    "userTask": UserTaskBehaviour(),
    "scriptTask": ScriptTaskBehaviour(),
    "serviceTask": _service,
    "sendTask": _service,
    "businessRuleTask": BusinessRuleTaskBehaviour(),
    "receiveTask": ReceiveTaskBehaviour(),
    # gateways
    "exclusiveGateway": ExclusiveGatewayBehaviour(),
    "parallelGateway": ParallelGatewayBehaviour(),
    "inclusiveGateway": InclusiveGatewayBehaviour(),
    "eventBasedGateway": EventBasedGatewayBehaviour(),
    "complexGateway": ComplexGatewayBehaviour(),
    # events
    "startEvent": NoneEventBehaviour(),
    "endEvent": EndEventBehaviour(),
    "intermediateThrowEvent": ThrowEventBehaviour(),
    "intermediateCatchEvent": CatchEventBehaviour(),
    "boundaryEvent": BoundaryEventBehaviour(),
    # containers
    "subProcess": _subprocess,
    "transaction": TransactionBehaviour(),
    "adHocSubProcess": AdHocSubProcessBehaviour(),
    "callActivity": CallActivityBehaviour(),
}


def behaviour_for(node: FlowNode) -> FlowNodeBehaviour:
    if node.kind == "task" and getattr(node, "work_item", None):
        return _service  # jBPM's work item: its handler does the work, as a service task's
    return BEHAVIOURS[node.kind]


__all__ = ["BEHAVIOURS", "FlowNodeBehaviour", "behaviour_for"]
