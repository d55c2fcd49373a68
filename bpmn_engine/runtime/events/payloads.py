"""What a thrown signal, error or escalation carries to its catcher: SpiffWorkflow's
`payloadExpression`, evaluated over the thrower's variables when it throws, written to the
definition's `variableName` in the catcher's scope when it is caught."""

from __future__ import annotations

from typing import Any

from bpmn_engine.runtime.context import StepContext


def carried(ctx: StepContext, ref: str | None) -> dict[str, Any]:
    """The variables the throw of the signal, error or escalation `ref` carries (none for
    most diagrams: only a definition with a `variableName` carries anything)."""
    found = ctx.definitions.payloads.get(ref or "")
    if found is None:
        return {}
    expression, variable = found
    value = ctx.evaluate(expression, what=f"the payload of {ref!r}") if expression else None
    return {variable: value}
