"""Compile every condition and script of a process before its first step.

A typo in a condition, or a sandboxed script that reaches for `__import__`, is bad input:
it is reported as `file:line: element-id: message` before anything runs, rather than as an
incident halfway through a run. So is a timer value of a known form that the engine cannot
schedule (`P99999999D` is past the year 9999; a cron expression croniter cannot read).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

from bpmn_engine.errors import ExpressionError, LoadError
from bpmn_engine.expressions import compile_expression, compile_script
from bpmn_engine.model import Definitions, Expression, FlowScope, Task
from bpmn_engine.model.elements import Activity
from bpmn_engine.runtime.timer_events import EXPRESSION_PREFIXES
from bpmn_engine.runtime.timers import TimerScheduleError, TimerValueError, schedule


def check_process(definitions: Definitions, scope: FlowScope, trusted: bool) -> None:
    for element_id, line, compile_ in _compilations(scope, trusted):
        try:
            compile_()
        except (ExpressionError, TimerScheduleError) as error:
            raise LoadError(
                str(error), file=definitions.path, line=line, element_id=element_id
            ) from None


def _compilations(scope: FlowScope, trusted: bool) -> Iterator[tuple[str, int | None, object]]:
    for flow in scope.flows.values():
        if flow.condition is not None:
            yield flow.id, flow.condition.line or flow.line, _expression(flow.condition)
    for inner, node in scope.walk():
        if inner is not scope:
            for flow in inner.flows.values():
                if flow.condition is not None:
                    yield flow.id, flow.condition.line or flow.line, _expression(flow.condition)
        if isinstance(node, Task) and node.script:
            if node.result_variable or node.script_format == "feel":
                expression = Expression(node.script, node.script_format, node.line)
                yield node.id, node.line, _expression(expression)
            else:
                text, script_format = node.script, node.script_format
                yield (
                    node.id,
                    node.line,
                    lambda t=text, f=script_format: compile_script(t, f, trusted=trusted),
                )
        for definition in getattr(node, "definitions", ()):
            kind, text = definition.timer or ("", "")
            if kind and text and not text.strip().startswith(EXPRESSION_PREFIXES):
                yield node.id, definition.line or node.line, _timer(kind, text)
        if isinstance(node, Activity) and node.io is not None:
            for parameter in (*node.io.inputs, *node.io.outputs):
                if parameter.expression is not None:
                    line = parameter.expression.line or node.line
                    yield node.id, line, _expression(parameter.expression)


def _timer(kind: str, text: str):
    """Schedule it from now: a value in no known form stays an incident when the timer is
    armed (it may never be reached); one the engine cannot schedule is refused now."""

    def check() -> None:
        try:
            schedule(kind, text, datetime.now(UTC))
        except TimerScheduleError:
            raise
        except TimerValueError:
            pass

    return check


def _expression(expression: Expression):
    return lambda: compile_expression(expression.text, expression.language)
