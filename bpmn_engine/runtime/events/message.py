"""Message events: a catch waits for a message by name and correlation key; a throw sends
one, with its payload, through the outbox once its step is committed.

Correlation follows BPMN 2.0.2 §8.3.2: a correlation property's retrieval expression for a
message is evaluated over *that message's payload*. A sender computes the key from what it
sends; a receiver from its own data: the retrieval expression for a message its process sends
(over the payload it would send), else the awaited message's own expression over its
variables. Zeebe's `correlationKey` on a message is evaluated over the receiver's variables.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import compile_expression
from bpmn_engine.model import Definitions, EventDefinition, Expression, FlowNode, Task
from bpmn_engine.model.elements import Event
from bpmn_engine.records.rows import Sent, Subscription
from bpmn_engine.records.variables import ENGINE_SCOPE
from bpmn_engine.runtime.data import data_associations
from bpmn_engine.runtime.events.definition import (
    EventDefinitionKind,
    addressed_name,
    spoken,
    subscribe,
)
from bpmn_engine.runtime.step.context import Incident, StepContext

_MISSING = object()
# What an instance remembers of its conversations (each correlation property's value from the
# messages it sent and received, by the scope of the token that sent or received them) is one
# row of the engine's scope (`records/variables.py`).
KEPT_SCOPE, KEPT_NAME = ENGINE_SCOPE, "correlation"


def message_name(definitions: Definitions, ref: str | None, event: FlowNode) -> str | None:
    """The name a message is addressed by: its `message`'s name, or without a `messageRef`
    the event's own name (as SpiffWorkflow does); None with neither (refused at load)."""
    return addressed_name(definitions.messages, ref, event)


def zeebe_key(ctx: StepContext, ref: str | None, line: int) -> str | None:
    """Zeebe's correlation key over the track's variables (None: the message has none)."""
    expression = ctx.definitions.correlation_keys.get(ref or "")
    if not expression:
        return None
    value = ctx.evaluate(Expression(expression, None, line), what="the correlation key")
    return None if value is None else str(value)


def correlation_properties(
    definitions: Definitions, ref: str | None
) -> tuple[tuple[str, Expression], ...]:
    """The properties (id, retrieval expression) that correlate message `ref`: those of the
    first correlation key that groups any of them, else all it has expressions for."""
    found = definitions.correlation_properties.get(ref or "", ())
    for group in definitions.correlation_groups:
        chosen = tuple(p for p in found if p[0] in group)
        if chosen:
            return chosen
    return found


def key_of(values: list[Any]) -> str | None:
    """One correlation key from the properties' values (None when any is missing): the
    value itself for one property, so `bpmn message --key VALUE` matches it."""
    if not values or any(v is None or v is _MISSING for v in values):
        return None
    if len(values) == 1:
        return str(values[0])
    return json.dumps(values, default=str, separators=(",", ":"))


def retrieve(expression: Expression, payload: Mapping[str, Any]) -> Any:
    """A retrieval expression's value over a payload; _MISSING when it cannot be computed."""
    try:
        compiled = compile_expression(expression.text, expression.language)
        return compiled.evaluate(dict(payload), lambda _: None)
    except ExpressionError:
        return _MISSING


def _record(ctx: StepContext) -> dict[str, dict[str, Any]]:
    return ctx.data.values.get(KEPT_SCOPE, {}).get(KEPT_NAME) or {}


def remembered(ctx: StepContext) -> dict[str, Any]:
    """The correlation property values this token's scope and its ancestors sent or
    received, by property id (inner scopes first: each inner instance of a multi-instance
    subprocess keeps its own conversation)."""
    record = _record(ctx)
    merged: dict[str, Any] = {}
    for scope in reversed(ctx.data.variables.chain(ctx.track.scope)):
        merged.update(record.get(str(scope), {}))
    return merged


def remember(
    ctx: StepContext, properties: tuple[tuple[str, Expression], ...], over: Mapping[str, Any]
) -> None:
    """Keep each property's value for a message (over its payload) in the token's scope,
    for later messages of the same conversation."""
    record = _record(ctx)
    scope = str(ctx.track.scope)
    kept = dict(record.get(scope, {}))
    for prop, expression in properties:
        value = retrieve(expression, over)
        if value is not _MISSING and value is not None:
            ok = isinstance(value, (str, int, float, bool))
            kept[prop] = value if ok else str(value)
    if kept != record.get(scope, {}):
        ctx.step.set_value(KEPT_SCOPE, KEPT_NAME, {**record, scope: kept})


def _ref(event: FlowNode, definition: EventDefinition | None) -> str | None:
    if definition is None:
        assert isinstance(event, Task)
        return event.message_ref
    return definition.ref


def _sent_here(ctx: StepContext) -> list[tuple[str, EventDefinition | None]]:
    """(message id, definition) of every message this instance's process sends."""
    process = ctx.definitions.processes.get(ctx.data.head.process)
    if process is None:
        return []
    found: list[tuple[str, EventDefinition | None]] = []
    for _, node in process.walk():
        if isinstance(node, Event) and node.kind in ("intermediateThrowEvent", "endEvent"):
            found += [(d.ref, d) for d in node.definitions if d.kind == "message" and d.ref]
        elif isinstance(node, Task) and node.kind == "sendTask" and node.message_ref:
            found.append((node.message_ref, None))
    return found


class MessageKind(EventDefinitionKind):
    kind = "message"

    def awaited(self, ctx: StepContext, event: FlowNode, definition: EventDefinition | None) -> str:
        """The message's name as written (a receive task names its message itself: no
        definition; Activiti's and Flowable's `messageExpression` stands for it)."""
        name = (definition and definition.name) or message_name(
            ctx.definitions, _ref(event, definition), event
        )
        if not name:
            raise Incident(
                f"{event.kind} (line {event.line}) names no message to wait for", event.id
            )
        return name

    def arm(
        self, ctx: StepContext, event: FlowNode, definition: EventDefinition | None, host: str
    ) -> Subscription:
        name = spoken(ctx, "message", self.awaited(ctx, event, definition), event)
        ref = _ref(event, definition)
        key = zeebe_key(ctx, ref, event.line)
        if key is None:
            key = self.awaited_key(ctx, ref)
        return subscribe(ctx, event, host, "message", name, key)

    def awaited_key(self, ctx: StepContext, ref: str | None) -> str | None:
        """The key a receiver waits for, from its own data: for each property, its retrieval
        expression for a message this process sends (over the payload it would send), else
        the awaited message's expression over the receiver's variables. None (any message
        of that name) when a property has no value here."""
        properties = correlation_properties(ctx.definitions, ref)
        if not properties:
            return None
        own = ctx.variables()
        sent = _sent_here(ctx)
        kept = remembered(ctx)
        values: list[Any] = []
        for prop, expression in properties:
            value = kept.get(prop, _MISSING)
            for message, definition in sent:
                if message == ref:
                    continue
                for other, other_expression in ctx.definitions.correlation_properties.get(
                    message, ()
                ):
                    if other == prop and value is _MISSING:
                        payload = self._payload(ctx, definition, strict=False)
                        value = retrieve(other_expression, own if payload is None else payload)
            if value is _MISSING:
                value = retrieve(expression, own)
            values.append(value)
        return key_of(values)

    def _payload(
        self, ctx: StepContext, definition: EventDefinition | None, *, strict: bool = True
    ) -> dict[str, Any] | None:
        """What a thrown message carries: what it declares (below), with its Camunda/Zeebe
        input mappings' values over it."""
        declared = self._declared(ctx, definition, strict=strict)
        inputs = definition.io.inputs if definition is not None and definition.io else ()
        if not inputs:
            return declared
        try:
            mapped = ctx.mapped(inputs, {})
        except Incident:
            if strict:
                raise
            return declared
        return {**(declared or {}), **mapped}

    def _declared(
        self, ctx: StepContext, definition: EventDefinition | None, *, strict: bool = True
    ) -> dict[str, Any] | None:
        """What a thrown message carries: its declared payload (SpiffWorkflow's
        `messagePayload`, a mapping), its data input associations' values (one: the message
        itself, a mapping; several: by data input), None when it declares neither."""
        if definition is None or (definition.payload is None and not definition.reads):
            return None
        if definition.reads:
            return self._inputs(ctx, definition, strict=strict)
        if not strict:
            try:
                value = compile_expression(
                    definition.payload.text, definition.payload.language
                ).evaluate(ctx.variables(), lambda _: None)
            except ExpressionError:
                return None
            return dict(value) if isinstance(value, Mapping) else None
        value = ctx.evaluate(definition.payload, what="the message payload")
        if not isinstance(value, Mapping):
            raise Incident(
                f"the message payload {definition.payload.text!r} must be a mapping of names "
                f"to values, not {type(value).__name__}",
                ctx.node.id,
            )
        return dict(value)

    def _inputs(
        self, ctx: StepContext, definition: EventDefinition, *, strict: bool
    ) -> dict[str, Any] | None:
        try:
            carried: dict[str, Any] = {}
            for association in definition.reads:
                carried.update(data_associations.carry(ctx, association, {}))
            if definition.payload is not None:
                declared = self._declared(ctx, replace(definition, reads=()), strict=strict)
                carried = {**(declared or {}), **carried}
        except Incident:
            if strict:
                raise
            return None
        if len(definition.reads) > 1 or definition.payload is not None or len(carried) != 1:
            return carried
        [value] = carried.values()
        if isinstance(value, Mapping):
            return dict(value)
        if not strict:
            return None
        raise Incident(
            f"the message's data input {next(iter(carried))!r} must be a mapping of names to "
            f"values, not {type(value).__name__}",
            ctx.node.id,
        )

    def throw(self, ctx: StepContext, definition: EventDefinition | None) -> None:
        self.send(ctx, definition.ref if definition is not None else None, definition)

    def send(
        self,
        ctx: StepContext,
        ref: str | None,
        definition: EventDefinition | None = None,
        *,
        payload: dict[str, Any] | None = None,
    ) -> None:
        """Send to whoever waits for it, once the step is committed (message flows between
        the pools of one collaboration are delivered this way, inside the engine).

        The payload goes with it (a send task's is its inputs, `payload`). Its key: each
        correlation property's retrieval expression for this message over the payload (over
        the sender's variables when the message declares no payload); Zeebe's over the
        sender's variables. A sender that cannot compute it sends without a key."""
        name = (definition and definition.name) or message_name(ctx.definitions, ref, ctx.node)
        if not name:
            raise Incident(f"{ctx.node.kind} (line {ctx.node.line}) names no message", ctx.node.id)
        name = spoken(ctx, "message", name, ctx.node)
        if definition is not None:
            payload = self._payload(ctx, definition)
        try:
            key = zeebe_key(ctx, ref, ctx.node.line)
        except Incident:
            key = None
        properties = correlation_properties(ctx.definitions, ref)
        over = payload if payload is not None else ctx.variables()
        if key is None and properties:
            key = key_of([retrieve(expression, over) for _, expression in properties])
        remember(ctx, ctx.definitions.correlation_properties.get(ref or "", ()), over)
        ctx.step.sent.append(Sent("message", name, key, payload or {}))
        ctx.emit("message.sent", name=name, key=key)

    def received(self, ctx: StepContext, element: str, variables: dict[str, Any]) -> dict[str, Any]:
        """The variables a received message sets: what the catch's data output associations
        make of it (each data output is the message), else the whole payload in its
        `messageVariable` (SpiffWorkflow), else each of its fields."""
        node = ctx.definitions.node_scopes[element].nodes[element]
        self.remember_received(ctx, node, variables)
        return self.taken(node, variables, ctx)

    def remember_received(
        self, ctx: StepContext, node: FlowNode, payload: Mapping[str, Any]
    ) -> None:
        """Keep the correlation values a received message brings (over its payload)."""
        messages = [d for d in getattr(node, "definitions", ()) if d.kind == "message"]
        ref = messages[0].ref if messages else getattr(node, "message_ref", None)
        remember(ctx, ctx.definitions.correlation_properties.get(ref or "", ()), payload)

    def taken(
        self, node: FlowNode, variables: dict[str, Any], ctx: StepContext | None = None
    ) -> dict[str, Any]:
        """The variables a message sets at `node` (a process's start event before its first
        step has no context: `starts.start_at` asks again with one when its message
        definition maps its outputs or has data outputs)."""
        for definition in getattr(node, "definitions", ()):
            if definition.kind != "message":
                continue
            if definition.writes and ctx is not None:  # each data output is the message
                out: dict[str, Any] = {}
                for association in definition.writes:
                    message = {association.source or "": dict(variables)}
                    out.update(data_associations.carry(ctx, association, message))
                return out
            if definition.io is not None and definition.io.outputs and ctx is not None:
                return ctx.mapped(definition.io.outputs, variables)  # over the message
            if definition.message_variable:
                return {definition.message_variable: dict(variables)}
        return variables


MESSAGE = MessageKind()
