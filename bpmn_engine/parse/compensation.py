"""Compensation and transactions as the reader sees them: each compensation boundary event's
handler (the `isForCompensation` activity an `association` links it to), and what the engine
refuses before the first step because no run could honour it (a handler nobody names, a
cancel end event outside a transaction...).

The rules are the spec's (10.5.5 compensation, 10.2.2 transactions); a refusal names the
element and says why, so `bpmn run` and `bpmn validate` reject the same diagrams.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from bpmn_engine.model.elements import (
    Activity,
    BoundaryEvent,
    EndEvent,
    Event,
    FlowNode,
    IntermediateEvent,
    StartEvent,
)

Refuse = Callable[[FlowNode, int, str], None]  # (node, line, message)


def link_handlers(
    nodes: dict[str, FlowNode],
    associations: Mapping[str, tuple[str, ...]],
    container_kind: str,
    refuse: Refuse,
) -> dict[str, FlowNode]:
    """Give each activity with a compensation boundary event its handler, and refuse what
    cannot run in this scope (`container_kind`: process, subProcess, transaction...)."""
    result = dict(nodes)
    for node in nodes.values():
        if isinstance(node, BoundaryEvent) and "compensate" in node.definition_kinds:
            handler = _handler(node, nodes, associations, refuse)
            host = result.get(node.attached_to)
            if handler is not None and isinstance(host, Activity):
                result[host.id] = replace(host, compensation_handler=handler)
        if isinstance(node, Event) or (isinstance(node, Activity) and node.is_for_compensation):
            _check(node, nodes, container_kind, refuse)  # nothing to check of any other node
        if node.kind == "transaction":
            _check_cancel_caught(node, nodes, refuse)
    return result


def _check_cancel_caught(
    transaction: FlowNode, nodes: Mapping[str, FlowNode], refuse: Refuse
) -> None:
    """A cancel end event leaves its transaction by the cancel boundary event (spec 10.2.2):
    without one, reaching it could only fail, so the diagram is refused before it runs."""
    caught = any(
        isinstance(n, BoundaryEvent)
        and n.attached_to == transaction.id
        and "cancel" in n.definition_kinds
        for n in nodes.values()
    )
    inner = getattr(getattr(transaction, "scope", None), "nodes", {})
    if caught or not inner:
        return
    for node in inner.values():
        if isinstance(node, EndEvent):
            for definition in node.definitions:
                if definition.kind == "cancel":
                    refuse(
                        node,
                        definition.line or node.line,
                        f"transaction {transaction.id!r} has no cancel boundary event: the "
                        "cancel end event leaves a transaction only through one (spec 10.2.2)",
                    )


def _handler(
    boundary: BoundaryEvent,
    nodes: Mapping[str, FlowNode],
    associations: Mapping[str, tuple[str, ...]],
    refuse: Refuse,
) -> str | None:
    if len(boundary.definitions) > 1:
        refuse(boundary, boundary.line, "a compensation boundary event has one definition")
        return None
    if boundary.outgoing:
        refuse(
            boundary,
            boundary.line,
            "a compensation boundary event has no outgoing sequence flow: it is associated "
            "with its handler (spec 10.5.5)",
        )
    handlers = [
        target
        for target in associations.get(boundary.id, ())
        if isinstance(nodes.get(target), Activity) and nodes[target].is_for_compensation  # type: ignore[union-attr]
    ]
    if len(handlers) != 1:
        refuse(
            boundary,
            boundary.line,
            "a compensation boundary event needs exactly one association to an activity "
            'marked isForCompensation="true" in the same scope (its handler); found '
            f"{len(handlers)}",
        )
        return None
    return handlers[0]


def _check(
    node: FlowNode, nodes: Mapping[str, FlowNode], container_kind: str, refuse: Refuse
) -> None:
    if isinstance(node, Activity) and node.is_for_compensation and (node.incoming or node.outgoing):
        refuse(
            node,
            node.line,
            "a compensation handler (isForCompensation) has no incoming or outgoing sequence "
            "flows: it runs only when its activity is compensated",
        )
    if not isinstance(node, Event):
        return
    for definition in node.definitions:
        if definition.kind == "cancel":
            _check_cancel(node, nodes, container_kind, refuse, definition.line or node.line)
        if definition.kind == "compensate":
            _check_compensate(node, nodes, container_kind, refuse, definition)


def _check_cancel(
    node: Event,
    nodes: Mapping[str, FlowNode],
    container_kind: str,
    refuse: Refuse,
    line: int,
) -> None:
    if isinstance(node, EndEvent) and container_kind != "transaction":
        refuse(node, line, "a cancel end event is allowed only directly inside a transaction")
    elif isinstance(node, BoundaryEvent):
        host = nodes.get(node.attached_to)
        if host is None or host.kind != "transaction":
            refuse(node, line, "a cancel boundary event is allowed only on a transaction")
    elif not isinstance(node, EndEvent):
        refuse(node, line, f"cancel {node.kind}s do not exist in BPMN (only end and boundary)")


def _check_compensate(
    node: Event, nodes: Mapping[str, FlowNode], container_kind: str, refuse: Refuse, definition
) -> None:
    line = definition.line or node.line
    if isinstance(node, StartEvent) and container_kind != "eventSubProcess":
        refuse(node, line, "a compensation start event starts only an event subprocess")
    if isinstance(node, IntermediateEvent) and node.kind == "intermediateCatchEvent":
        refuse(node, line, "compensation is caught by a boundary event or an event subprocess")
    if container_kind == "eventSubProcess":
        return  # its activityRef names an activity of the enclosing scope: checked at run time
    if isinstance(node, EndEvent | IntermediateEvent) and definition.ref:
        target = nodes.get(definition.ref)
        if not isinstance(target, Activity) or target.is_for_compensation:
            refuse(
                node,
                line,
                f"activityRef {definition.ref!r} is not an activity of the same scope as the "
                "compensation throw event",
            )
