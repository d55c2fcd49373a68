"""Compile every condition and script of a process before its first step.

A typo in a condition, or a sandboxed script that reaches for `__import__`, is bad input:
it is reported as `file:line: element-id: message` before anything runs, rather than as an
incident halfway through a run.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

from bpmn_engine.errors import ExpressionError, LoadError
from bpmn_engine.expressions import compile_expression, compile_script, script_is_expression
from bpmn_engine.model import (
    Activity,
    AdHocSubProcess,
    CallActivity,
    ComplexGateway,
    Definitions,
    Event,
    Expression,
    FlowNode,
    FlowScope,
    MultiInstance,
    StandardLoop,
    Task,
)
from bpmn_engine.runtime.events.timers import (
    TimerRangeError,
    TimerValueError,
    is_timer_expression,
    schedule,
)
from bpmn_engine.runtime.step.listeners import compile_listener, listeners_of


def check_process(definitions: Definitions, scope: FlowScope, trusted: bool) -> None:
    for refusal in getattr(scope, "refused", ()):  # what the engine cannot honour (coverage.md)
        raise LoadError(
            refusal.message, file=definitions.path, line=refusal.line, element_id=refusal.element
        )
    for element_id, line, compile_ in _compilations(scope, trusted):
        try:
            compile_()
        except ExpressionError as error:
            raise LoadError(
                str(error), file=definitions.path, line=line, element_id=element_id
            ) from None
    _check_timers(definitions, scope)
    _check_loops(definitions, scope)
    for prop, line, problem in correlation_problems(definitions):
        raise LoadError(problem, file=definitions.path, line=line, element_id=prop)


def correlation_problems(definitions: Definitions) -> list[tuple[str, int | None, str]]:
    """(property, line, why) for each retrieval expression of a correlation property that
    does not compile: a key never computed would let a catch take any message."""
    found: list[tuple[str, int | None, str]] = []
    for message, properties in definitions.correlation_properties.items():
        for prop, expression in properties:
            try:
                compile_expression(expression.text, expression.language)
            except ExpressionError as error:
                why = f"retrieval expression for message {message!r}: {error}"
                found.append((prop, expression.line, why))
    return found


def unrunnable_loop(node: Activity) -> str | None:
    """Why the engine cannot run this activity's loop or multi-instance marker, or None.

    Shared with `bpmn validate`'s executable rule, so both refuse the same diagrams."""
    spec = node.loop_characteristics
    if node.loop is None:
        return None
    marker = "multi-instance" if node.loop == "multiInstance" else "standard loop"
    if spec is None:
        return f"{marker} markers are not supported yet"
    if spec.refused:
        return f"{marker}: {spec.refused} is not supported"
    if (
        isinstance(spec, MultiInstance)
        and spec.cardinality
        and spec.collection
        and spec.dialect != "camunda"
    ):
        # engines disagree (Camunda 7 counts by the cardinality and takes the items of the
        # collection by index, SpiffWorkflow refuses): only Camunda 7's own files say which
        return (
            f"multi-instance with both a loopCardinality ({spec.cardinality.text!r}) and an "
            f"input collection ({spec.collection.text!r}): the number of instances is "
            "ambiguous; keep only one of them"
        )
    if isinstance(spec, StandardLoop) and spec.condition is None and spec.maximum is None:
        return "standard loop with neither a loopCondition nor a loopMaximum would loop forever"
    return None


def _check_loops(definitions: Definitions, scope: FlowScope) -> None:
    """A marker the engine cannot honour is bad input before the first step, never a run
    that does the activity once or fails halfway."""
    for _, node in scope.walk():
        if not isinstance(node, Activity):
            continue
        problem = unrunnable_loop(node)
        if problem:
            line = getattr(node.loop_characteristics, "line", None) or node.line
            raise LoadError(problem, file=definitions.path, line=line, element_id=node.id)


def loop_expressions(node: Activity) -> list[tuple[str, Expression]]:
    """(what, expression) for each expression of a loop or multi-instance marker."""
    spec = node.loop_characteristics
    if isinstance(spec, StandardLoop):
        return [("loopCondition", spec.condition)] if spec.condition else []
    if isinstance(spec, MultiInstance):
        found = [
            ("loopCardinality", spec.cardinality),
            ("the input collection", spec.collection),
            ("the output element", spec.output_element),
            ("completionCondition", spec.completion),
        ]
        return [(what, e) for what, e in found if e is not None]
    return []


def _check_timers(definitions: Definitions, scope: FlowScope) -> None:
    """A literal timer value of a known form that the engine cannot schedule is bad input
    now: one that falls due after the year 9999 (`P99999999D`), or a cron expression croniter
    cannot read or that matches no date (`TimerRangeError`). A value in no known form stays
    an incident at run time, where it names the event (as a value from an expression does)."""
    now = datetime.now(UTC)
    for _, node in scope.walk():
        for definition in getattr(node, "definitions", ()):
            if definition.kind != "timer" or not definition.timer:
                continue
            kind, text = definition.timer
            if not text or is_timer_expression(text):
                continue  # evaluated when armed; an empty value is reported then
            try:
                schedule(kind, text, now)
            except TimerRangeError as error:
                raise LoadError(
                    f"{kind}: {error}",
                    file=definitions.path,
                    line=definition.line or node.line,
                    element_id=node.id,
                ) from None
            except TimerValueError:
                continue  # malformed: an incident naming the event when a token arrives


def _compilations(scope: FlowScope, trusted: bool) -> Iterator[tuple[str, int | None, object]]:
    for element_id, listener in listeners_of(scope):
        yield element_id, listener.line, lambda li=listener: compile_listener(li, trusted)
    for flow in scope.flows.values():
        if flow.condition is not None:
            yield flow.id, flow.condition.line or flow.line, _expression(flow.condition, trusted)
    for inner, node in scope.walk():
        if inner is not scope:
            for flow in inner.flows.values():
                if flow.condition is not None:
                    yield (
                        flow.id,
                        flow.condition.line or flow.line,
                        _expression(flow.condition, trusted),
                    )
        if isinstance(node, Task) and node.script:
            if script_is_expression(node.script_format, node.result_variable):
                expression = Expression(node.script, node.script_format, node.line)
                yield node.id, node.line, _expression(expression, trusted)
            else:
                text, script_format = node.script, node.script_format
                yield (
                    node.id,
                    node.line,
                    lambda t=text, f=script_format: compile_script(t, f, trusted=trusted),
                )
        for definition in getattr(node, "definitions", ()):
            if (
                definition.timer
                and definition.timer[1]
                and is_timer_expression(definition.timer[1])
            ):
                kind, text = definition.timer
                line = definition.line or node.line
                yield node.id, line, _timer(kind, text.strip(), definition.timer_language, trusted)
        if isinstance(node, Activity) and node.io is not None:
            for parameter in (*node.io.inputs, *node.io.outputs):
                if parameter.expression is not None:
                    line = parameter.expression.line or node.line
                    yield node.id, line, _expression(parameter.expression, trusted)
        if isinstance(node, Activity):
            for _, expression in loop_expressions(node):
                yield node.id, expression.line or node.line, _expression(expression, trusted)
        if isinstance(node, Activity) and node.data is not None:
            for expression in data_expressions(node):
                yield node.id, expression.line or node.line, _expression(expression, trusted)
        for _, expression in control_expressions(node):
            yield node.id, expression.line or node.line, _expression(expression, trusted)


def control_expressions(node: FlowNode) -> list[tuple[str, Expression]]:
    """(what, expression) for the conditions of an ad-hoc subprocess or a complex gateway,
    and what an event makes of its data (payload, mappings, data associations)."""
    if isinstance(node, Event):
        found: list[tuple[str, Expression]] = []
        associations = [*node.reads, *node.writes]
        for definition in node.definitions:
            if definition.payload is not None:
                found.append(("messagePayload", definition.payload))
            if definition.condition is not None:  # a conditional event's
                found.append(("condition", definition.condition))
            associations += [*definition.reads, *definition.writes]
        for association in associations:
            if association.transformation is not None:
                found.append(("data association", association.transformation))
            found += [("data association", e) for e, _ in association.assignments]
        for parameter in (*node.io.inputs, *node.io.outputs) if node.io is not None else ():
            if parameter.expression is not None:
                found.append((f"mapping of {parameter.name!r}", parameter.expression))
        return found
    if isinstance(node, AdHocSubProcess):
        found = [
            ("completionCondition", node.completion),
            ("activeElementsCollection", node.active_elements),
        ]
    elif isinstance(node, ComplexGateway):
        found = [("activationCondition", node.activation)]
    elif isinstance(node, CallActivity) and not node.passes_business_key:
        found = [("camunda:in businessKey", node.business_key)]
    else:
        return []
    return [(what, e) for what, e in found if e is not None]


def data_expressions(node: Activity) -> list[Expression]:
    """The transformations and assignments of an activity's data associations."""
    found: list[Expression] = []
    for association in (*node.data.reads, *node.data.writes) if node.data else ():
        if association.transformation is not None:
            found.append(association.transformation)
        found.extend(source for source, _ in association.assignments)
    return found


def _expression(expression: Expression, trusted: bool):
    return lambda: compile_expression(expression.text, expression.language, trusted=trusted)


_NOUNS = {
    "timeDate": "date-time",
    "timeDuration": "duration",
    "timeCycle": "repeating interval or cron expression",
}


def _timer(kind: str, text: str, language: str | None, trusted: bool):
    def compile_() -> None:
        try:
            compile_expression(text, language, trusted=trusted)
        except ExpressionError as error:
            raise ExpressionError(
                f"{kind} {text!r} is not an ISO 8601 {_NOUNS.get(kind, 'value')}, "
                f"nor an expression: {error}"
            ) from None

    return compile_
