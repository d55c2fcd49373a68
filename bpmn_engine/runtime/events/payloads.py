"""What an event's data is: what a throw carries to its catcher, and what a catch sets.

A throw event's locals are its Camunda/Zeebe input mappings (its listeners, its payload
expressions and its data input associations see them). A thrown signal, error or escalation
carries SpiffWorkflow's `payloadExpression` (written to the definition's `variableName` in
the catcher's scope), the values of its data input associations (one: its value, a mapping
of names to values; several: by data input, as a message does), and a Zeebe signal its
input mappings (Zeebe broadcasts the event's locals). A message's payload is
`events/message.py`'s.

A catch event that fires sets, over what came with it (a signal's, error's or escalation's
variables; nothing for a timer or a condition): its data output associations (each data
output is what came), else its output mappings over what came and the variables (only what
they map), else what came. A throw's output mappings are set when it completes, over its
locals and the variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpmn_engine.model import EventDefinition, FlowNode
from bpmn_engine.model.elements import Event
from bpmn_engine.runtime.data import data_associations
from bpmn_engine.runtime.step.context import Incident, StepContext


def carried(ctx: StepContext, ref: str | None, extra: Mapping[str, Any] | None = None) -> dict:
    """The variables SpiffWorkflow's payload of the signal, error or escalation `ref` gives
    (none for most diagrams: only a definition with a `variableName` carries anything),
    evaluated over the variables and `extra` (the thrower's locals)."""
    found = ctx.definitions.payloads.get(ref or "")
    if found is None:
        return {}
    expression, variable = found
    value = ctx.evaluate(expression, extra, what=f"the payload of {ref!r}") if expression else None
    return {variable: value}


def event_locals(ctx: StepContext, node: FlowNode) -> dict[str, Any]:
    """A throw event's input-mapped locals, computed once per step (its start listeners saw
    the same values: `listeners._inputs_before_start`)."""
    if ctx.start_inputs is not None and ctx.start_inputs[0] == node.id:
        return dict(ctx.start_inputs[1])
    io = getattr(node, "io", None)
    values = ctx.mapped(io.inputs, {}) if io is not None and io.inputs else {}
    ctx.start_inputs = (node.id, dict(values))
    return values


def thrown(ctx: StepContext, definition: EventDefinition) -> dict[str, Any]:
    """What the context's signal, error or escalation throw carries to its catcher."""
    node = ctx.node
    assert isinstance(node, Event)
    local = event_locals(ctx, node)
    payload = carried(ctx, definition.ref, local)
    if node.reads:
        payload.update(_read(ctx, node, local))
    if definition.kind == "signal" and node.io is not None and node.io.zeebe:
        payload.update(local)  # Zeebe broadcasts the signal event's local variables
    return payload


def _read(ctx: StepContext, node: Event, local: Mapping[str, Any]) -> dict[str, Any]:
    """The data input associations' values: one association's value is the data itself (a
    mapping of names to values), several give a mapping by data input."""
    values: dict[str, Any] = {}
    for association in node.reads:
        values.update(data_associations.carry(ctx, association, local))
    if len(node.reads) > 1 or len(values) != 1:
        return values
    [(name, value)] = values.items()
    if not isinstance(value, Mapping):
        raise Incident(
            f"the event's data input {name!r} must be a mapping of names to values (the "
            f"variables it carries), not {type(value).__name__}",
            node.id,
        )
    return dict(value)


def throw_outputs(ctx: StepContext, node: FlowNode) -> dict[str, Any]:
    """What a throw event's output mappings set when it completes (over its locals)."""
    io = getattr(node, "io", None)
    if io is None or not io.outputs:
        return {}
    return ctx.mapped(io.outputs, event_locals(ctx, node))


def caught(ctx: StepContext, node: FlowNode, came: Mapping[str, Any] | None) -> dict[str, Any]:
    """The variables a catch event (intermediate, boundary, start) sets when it fires with
    `came` (None: a timer or a condition, which bring nothing to read)."""
    writes = getattr(node, "writes", ())
    if writes:  # each data output is what came
        out: dict[str, Any] = {}
        for association in writes if came is not None else ():
            data = {association.source or "": dict(came)}
            out.update(data_associations.carry(ctx, association, data))
        return out
    io = getattr(node, "io", None)
    if io is not None and io.outputs:
        return ctx.mapped(io.outputs, dict(came or {}))
    return dict(came or {})


def maps_outputs(node: FlowNode) -> bool:
    """Whether a catch event decides itself what it sets (mappings or data outputs)."""
    io = getattr(node, "io", None)
    return bool(getattr(node, "writes", ())) or (io is not None and bool(io.outputs))
