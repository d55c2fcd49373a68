"""A user task's assignee and candidates, evaluated as it is created (`model.Assignment`).

Expressions are evaluated over the instance's variables and the task's own inputs, as
Camunda evaluates them when the task is created. A candidates value may be a list, or a
text that is itself a comma list; an assignee is one name. They are recorded for the task
list, never enforced (anyone may complete a task), so an expression that cannot be evaluated
(a variable not set yet) leaves that entry out with a warning instead of stopping the
instance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC
from typing import Any

from bpmn_engine.model import Assignment, Expression
from bpmn_engine.runtime.step.context import Incident, StepContext

# one `${...}` or `#{...}` inside a text (`group-${region}`); JUEL's braces do not nest
_EMBEDDED = re.compile(r"[$#]\{[^}]*\}")


def assigned(
    ctx: StepContext, assignment: Assignment | None, inputs: Mapping[str, Any]
) -> dict[str, Any]:
    """The new task's `assignee`, `candidate_users`, `candidate_groups` and `created_at`."""
    now = ctx.engine.clock.now().astimezone(UTC)
    fields: dict[str, Any] = {"created_at": now.isoformat(timespec="milliseconds")}
    if assignment is None:
        return fields
    if assignment.assignee is not None:
        names = _names(ctx, (assignment.assignee,), inputs, "the assignee")
        if len(names) > 1:
            ctx.warn(f"the assignee is one name, not {', '.join(names)}: the task is unassigned")
        elif names:
            fields["assignee"] = names[0]
    fields["candidate_users"] = _names(ctx, assignment.candidate_users, inputs, "candidate users")
    fields["candidate_groups"] = _names(
        ctx, assignment.candidate_groups, inputs, "candidate groups"
    )
    return fields


def _names(
    ctx: StepContext, entries: Iterable[str | Expression], inputs: Mapping[str, Any], what: str
) -> tuple[str, ...]:
    """Each entry's names, in order, once each; a comma never stays inside a name."""
    found: dict[str, None] = {}
    for entry in entries:
        value: Any = entry
        if isinstance(entry, Expression):
            try:
                value = _value(ctx, entry, inputs, what)
            except Incident as error:
                ctx.warn(f"{error.message}; the task is created without it")
                continue
        for name in _flat(value):
            found.setdefault(name, None)
    return tuple(found)


def _value(ctx: StepContext, entry: Expression, inputs: Mapping[str, Any], what: str) -> Any:
    """An expression's value; text with expressions inside it (`group-${region}`) is the
    text with each one's value put in its place."""
    text = entry.text.strip()
    whole = _EMBEDDED.fullmatch(text)
    if text.startswith("=") or whole is not None:
        return ctx.evaluate(entry, inputs, what)
    return _EMBEDDED.sub(
        lambda m: _text(ctx.evaluate(Expression(m.group(0), None, entry.line), inputs, what)),
        text,
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _flat(value: Any) -> list[str]:
    """Names from a value: a text is a comma list, a list holds names (or comma lists)."""
    if value is None:
        return []
    if isinstance(value, list | tuple | set | frozenset):
        return [name for item in value for name in _flat(item)]
    if isinstance(value, bool):
        value = "true" if value else "false"
    return [name.strip() for name in str(value).split(",") if name.strip()]
