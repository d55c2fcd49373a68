"""Correct and incorrect diagrams for the rules about sequence flows and gateways."""

from __future__ import annotations

from bpmn_engine.validate.rules import (
    conditional_flows,
    event_based_gateway,
    fake_join,
    no_complex_gateway,
    no_disconnected,
    no_duplicate_sequence_flows,
    no_gateway_join_fork,
    no_implicit_end,
    no_implicit_split,
    no_implicit_start,
    no_inclusive_gateway,
    superfluous_gateway,
)
from tests.validate.rules.bpmnxml import chain, definitions, event, flow, process
from tests.validate.rules.case import Case

START_END = ['<startEvent id="Start" name="Start"/>', '<endEvent id="End" name="End"/>']


def _split(gateway: str, *flows: str, extra: tuple[str, ...] = ()) -> str:
    """Start -> gateway -> tasks A and B -> end events."""
    return definitions(
        process(
            '<startEvent id="Start"/>',
            gateway,
            '<task id="A" name="A"/>',
            '<task id="B" name="B"/>',
            '<endEvent id="EndA"/>',
            '<endEvent id="EndB"/>',
            flow("F0", "Start", "Gateway"),
            *flows,
            *chain("A", "EndA"),
            *chain("B", "EndB"),
            *extra,
        )
    )


CASES = [
    Case(
        conditional_flows.RULE,
        good=_split(
            '<exclusiveGateway id="Gateway" name="Which?" default="FB"/>',
            flow("FA", "Gateway", "A", "${a}"),
            flow("FB", "Gateway", "B"),
        ),
        bad=_split(
            '<exclusiveGateway id="Gateway" name="Which?"/>',
            flow("FA", "Gateway", "A", "${a}"),
            flow("FB", "Gateway", "B"),
        ),
        element="FB",
        message="Sequence flow is missing condition",
    ),
    Case(
        event_based_gateway.RULE,
        good=definitions(
            process(
                '<startEvent id="Start"/>',
                '<eventBasedGateway id="Gateway"/>',
                event("intermediateCatchEvent", "Msg", "message"),
                event("intermediateCatchEvent", "Timer", "timer"),
                flow("F0", "Start", "Gateway"),
                flow("F1", "Gateway", "Msg"),
                flow("F2", "Gateway", "Timer"),
            )
        ),
        bad=definitions(
            process(
                '<startEvent id="Start"/>',
                '<eventBasedGateway id="Gateway"/>',
                event("intermediateCatchEvent", "Msg", "message"),
                flow("F0", "Start", "Gateway"),
                flow("F1", "Gateway", "Msg"),
            )
        ),
        element="Gateway",
        message="at least 2 outgoing",
    ),
    Case(
        fake_join.RULE,
        good=_split(
            '<parallelGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
        ),
        bad=definitions(
            process(
                '<startEvent id="Start"/>',
                '<exclusiveGateway id="Split" name="Which?"/>',
                '<task id="A" name="A"/>',
                '<task id="B" name="B"/>',
                '<task id="Join" name="Join"/>',
                flow("F0", "Start", "Split"),
                flow("F1", "Split", "A", "${a}"),
                flow("F2", "Split", "B", "${!a}"),
                flow("F3", "A", "Join"),
                flow("F4", "B", "Join"),
            )
        ),
        element="Join",
        message="Incoming flows do not join",
    ),
    Case(
        no_complex_gateway.RULE,
        good=_split(
            '<parallelGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
        ),
        bad=_split(
            '<complexGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
        ),
        element="Gateway",
        message="<bpmn:ComplexGateway> is discouraged",
    ),
    Case(
        no_inclusive_gateway.RULE,
        good=_split(
            '<parallelGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
        ),
        bad=_split(
            '<inclusiveGateway id="Gateway"/>',
            flow("FA", "Gateway", "A", "${a}"),
            flow("FB", "Gateway", "B", "${b}"),
        ),
        element="Gateway",
        message="<bpmn:InclusiveGateway> is discouraged",
    ),
    Case(
        no_disconnected.RULE,
        good=definitions(process(*START_END, '<task id="Task"/>', *chain("Start", "Task", "End"))),
        bad=definitions(process(*START_END, '<task id="Task"/>', *chain("Start", "End"))),
        element="Task",
        message="Element is not connected",
    ),
    Case(
        no_duplicate_sequence_flows.RULE,
        good=definitions(process(*START_END, flow("F1", "Start", "End"))),
        bad=definitions(
            process(*START_END, flow("F1", "Start", "End"), flow("F2", "Start", "End"))
        ),
        element="F2",
        message="SequenceFlow is a duplicate",
    ),
    Case(
        no_gateway_join_fork.RULE,
        good=_split(
            '<parallelGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
        ),
        bad=_split(
            '<parallelGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
            extra=('<startEvent id="Start2"/>', flow("F9", "Start2", "Gateway")),
        ),
        element="Gateway",
        message="Gateway forks and joins",
    ),
    Case(
        no_implicit_end.RULE,
        good=definitions(process(*START_END, '<task id="Task"/>', *chain("Start", "Task", "End"))),
        bad=definitions(
            process('<startEvent id="Start"/>', '<task id="Task"/>', flow("F", "Start", "Task"))
        ),
        element="Task",
        message="Element is an implicit end",
    ),
    Case(
        no_implicit_start.RULE,
        good=definitions(process(*START_END, '<task id="Task"/>', *chain("Start", "Task", "End"))),
        bad=definitions(
            process('<task id="Task"/>', '<endEvent id="End"/>', flow("F", "Task", "End"))
        ),
        element="Task",
        message="Element is an implicit start",
    ),
    Case(
        no_implicit_split.RULE,
        good=_split(
            '<parallelGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
        ),
        bad=definitions(
            process(
                '<startEvent id="Start"/>',
                '<task id="Task" name="Task"/>',
                '<endEvent id="EndA"/>',
                '<endEvent id="EndB"/>',
                flow("F0", "Start", "Task"),
                flow("FA", "Task", "EndA"),
                flow("FB", "Task", "EndB"),
            )
        ),
        element="Task",
        message="Flow splits implicitly",
    ),
    Case(
        superfluous_gateway.RULE,
        good=_split(
            '<parallelGateway id="Gateway"/>',
            flow("FA", "Gateway", "A"),
            flow("FB", "Gateway", "B"),
        ),
        bad=definitions(
            process(
                *START_END,
                '<exclusiveGateway id="Gateway"/>',
                *chain("Start", "Gateway", "End"),
            )
        ),
        element="Gateway",
        message="Gateway is superfluous",
    ),
]
