"""The BPMN element kinds by family, as local names of the BPMN 2.0 namespace.

One vocabulary for every layer that reads the XML: the parser picks a reader per kind,
`bpmn validate` checks references and bpmnlint's `is(node, 'bpmn:Activity')` against it.
The sets follow the metamodel's inheritance (a `userTask` is a task is an activity is a
flow node).
"""

from __future__ import annotations

BPMN = "http://www.omg.org/spec/BPMN/20100524/MODEL"  # the namespace of every kind below

TASKS = frozenset(
    {
        "task",
        "userTask",
        "manualTask",
        "serviceTask",
        "scriptTask",
        "businessRuleTask",
        "sendTask",
        "receiveTask",
    }
)
SUB_PROCESSES = frozenset({"subProcess", "adHocSubProcess", "transaction"})
ACTIVITIES = TASKS | SUB_PROCESSES | {"callActivity"}
CATCH_EVENTS = frozenset({"startEvent", "intermediateCatchEvent", "boundaryEvent"})
THROW_EVENTS = frozenset({"endEvent", "intermediateThrowEvent", "implicitThrowEvent"})
EVENTS = CATCH_EVENTS | THROW_EVENTS
GATEWAYS = frozenset(
    {
        "exclusiveGateway",
        "inclusiveGateway",
        "parallelGateway",
        "eventBasedGateway",
        "complexGateway",
    }
)
CHOREOGRAPHY_ACTIVITIES = frozenset({"choreographyTask", "subChoreography", "callChoreography"})
FLOW_NODES = ACTIVITIES | EVENTS | GATEWAYS | CHOREOGRAPHY_ACTIVITIES
