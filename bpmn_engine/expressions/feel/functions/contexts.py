"""Context functions, and the boolean `is defined`."""

from __future__ import annotations

from typing import Any

from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel.functions.registry import builtin, need
from bpmn_engine.expressions.feel.values import FeelError


@builtin("get value", "m", "key")
def get_value(m: Any, key: Any) -> Any:
    context = need(m, dict, "m")
    if isinstance(key, list):
        for part in key:
            if not isinstance(context, dict):
                return None
            context = context.get(need(part, str, "every key"))
        return context
    return context.get(need(key, str, "key"))


@builtin("get entries", "m")
def get_entries(m: Any) -> list[dict[str, Any]]:
    context = need(m, dict, "m")
    guards.charge(1 + len(context) // guards.ITEMS_PER_STEP)
    return [{"key": k, "value": v} for k, v in context.items()]


@builtin("context put", "context", "key|keys", "value")
def context_put(context: Any, key: Any, value: Any) -> dict[str, Any]:
    base = need(context, dict, "context")
    if isinstance(key, list):
        if not key:
            raise FeelError("context put needs at least one key")
        first = need(key[0], str, "every key")
        if len(key) == 1:
            return context_put(base, first, value)
        inner = base.get(first, {})
        if not isinstance(inner, dict):  # the path leads through a value that is no context
            raise FeelError(f"context put: {first!r} is not a context")
        return context_put(base, first, context_put(inner, key[1:], value))
    guards.charge(1 + len(base) // guards.ITEMS_PER_STEP)
    return {**base, need(key, str, "key"): value}


@builtin("context merge", "contexts")
def context_merge(contexts: Any) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    if isinstance(contexts, dict):  # one context for a list of one (implicit conversion)
        contexts = [contexts]
    for context in need(contexts, list, "contexts"):
        merged.update(need(context, dict, "every item of contexts"))
        guards.charge(1 + len(merged) // guards.ITEMS_PER_STEP)
    return merged


@builtin("context", "entries")
def context(entries: Any) -> dict[str, Any]:
    made: dict[str, Any] = {}
    if isinstance(entries, dict):  # one entry for a list of one (implicit conversion)
        entries = [entries]
    for entry in need(entries, list, "entries"):
        pair = need(entry, dict, "every entry")
        if "key" not in pair or "value" not in pair:
            raise FeelError("every entry needs a key and a value")
        key = need(pair["key"], str, "every key")
        if key in made:
            raise FeelError(f"two entries have the key {key!r}")
        made[key] = pair["value"]
    guards.charge(1 + len(made) // guards.ITEMS_PER_STEP)
    return made


@builtin("is defined", "value")
def is_defined(value: Any) -> bool:
    """Whether the value is not null: the evaluator answers `is defined(name)` and
    `is defined(a.b)` itself, telling a missing name from a null one."""
    return value is not None
