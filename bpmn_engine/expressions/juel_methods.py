"""The Java methods JUEL expressions call on values, as Camunda 7 users write them:
`name.length()`, `items.contains('a')`, `order.get('id')`, `text.toUpperCase()`...

Only these methods exist, chosen by the value's type; each one is bounded like the sandbox's
builtins (results over the size caps are refused, work is charged when a budget runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import guards


def _text_result(value: str) -> str:
    if len(value) > guards.MAX_SIZE:
        raise guards.too_big(f"a string of {len(value):,} characters (limit {guards.MAX_SIZE:,})")
    return value


def _charge(size: int) -> None:
    if guards.CURRENT.get(None) is not None:
        guards.charge(1 + size // guards.ITEMS_PER_STEP)


def _index(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise ExpressionError(f"JUEL: {what} must be a whole number, not {value!r}")
    return int(value)


def _substring(text: str, begin: Any, end: Any = None) -> str:
    start = _index(begin, "the begin index")
    stop = len(text) if end is None else _index(end, "the end index")
    if not 0 <= start <= stop <= len(text):
        raise ExpressionError(f"JUEL: substring({start}, {stop}) is out of range for {text!r}")
    return text[start:stop]


def _replace(text: str, old: Any, new: Any) -> str:
    old, new = str(old), str(new)
    if len(new) > len(old):  # refuse before building: 'a'.replace('a', huge) stays bounded
        grown = len(text) + text.count(old) * (len(new) - len(old)) if old else len(text) * 2
        if grown > guards.MAX_SIZE:
            raise guards.too_big(f"a string of {grown:,} characters (limit {guards.MAX_SIZE:,})")
    return text.replace(old, new)


def _get(items: str | list[Any] | tuple[Any, ...], index: Any) -> Any:
    position = _index(index, "the index")
    if not 0 <= position < len(items):
        raise ExpressionError(f"JUEL: index {position} is out of range (length {len(items)})")
    return items[position]


def _index_of(items: list[Any] | tuple[Any, ...], value: Any) -> int:
    _charge(len(items))
    return next((i for i, item in enumerate(items) if item == value), -1)


STRING: dict[str, Callable[..., Any]] = {
    "length": len,
    "isEmpty": lambda s: len(s) == 0,
    "isBlank": lambda s: not s.strip(),
    "contains": lambda s, part: str(part) in s,
    "startsWith": lambda s, part: s.startswith(str(part)),
    "endsWith": lambda s, part: s.endswith(str(part)),
    "equals": lambda s, other: s == other,
    "equalsIgnoreCase": lambda s, other: isinstance(other, str) and s.lower() == other.lower(),
    "toUpperCase": lambda s: _text_result(s.upper()),
    "toLowerCase": lambda s: _text_result(s.lower()),
    "trim": str.strip,
    "substring": _substring,
    "indexOf": lambda s, part: s.find(str(part)),
    "lastIndexOf": lambda s, part: s.rfind(str(part)),
    "charAt": lambda s, i: _get(s, i),
    "concat": lambda s, other: _text_result(s + str(other)),
    "replace": _replace,
    "toString": lambda s: s,
}
LIST: dict[str, Callable[..., Any]] = {
    "size": len,
    "isEmpty": lambda items: len(items) == 0,
    "contains": lambda items, value: _index_of(items, value) >= 0,
    "get": _get,
    "indexOf": _index_of,
    "equals": lambda items, other: items == other,
}
MAP: dict[str, Callable[..., Any]] = {
    "size": len,
    "isEmpty": lambda m: len(m) == 0,
    "containsKey": lambda m, key: key in m,
    "containsValue": lambda m, value: _index_of(list(m.values()), value) >= 0,
    "get": lambda m, key: m.get(key),
    "getOrDefault": lambda m, key, default: m.get(key, default),
    "equals": lambda m, other: m == other,
}
NUMBER: dict[str, Callable[..., Any]] = {
    "intValue": int,
    "longValue": int,
    "doubleValue": float,
    "equals": lambda n, other: n == other and not isinstance(other, bool),
    "toString": str,
}
BOOLEAN: dict[str, Callable[..., Any]] = {
    "booleanValue": lambda b: b,
    "equals": lambda b, other: b is other,
    "toString": lambda b: "true" if b else "false",
}


def _methods(target: Any) -> tuple[str, dict[str, Callable[..., Any]]]:
    if isinstance(target, str):
        return "string", STRING
    if isinstance(target, bool):
        return "boolean", BOOLEAN
    if isinstance(target, (int, float)):
        return "number", NUMBER
    if isinstance(target, (list, tuple)):
        return "list", LIST
    if isinstance(target, dict):
        return "map", MAP
    return type(target).__name__ if target is not None else "null", {}


def juel_call(target: Any, name: str, *args: Any) -> Any:
    """`target.name(args)`: the allow-listed Java method for the target's type."""
    kind, methods = _methods(target)
    method = methods.get(name)
    if method is None:
        raise ExpressionError(f"JUEL: a {kind} has no method {name}()")
    if isinstance(target, (str, list, tuple, dict)):
        _charge(len(target))
    try:
        return method(target, *args)
    except TypeError:
        raise ExpressionError(
            f"JUEL: {kind}.{name}() does not take {len(args)} argument(s)"
        ) from None


_WRITES: ContextVar[dict[str, Any] | None] = ContextVar("juel_writes", default=None)


@contextmanager
def collected_writes() -> Iterator[dict[str, Any]]:
    """Collect what `execution.setVariable(name, value)` writes while evaluating a listener's
    expression; anywhere else (a condition, a mapping) the call is an error."""
    writes: dict[str, Any] = {}
    token = _WRITES.set(writes)
    try:
        yield writes
    finally:
        _WRITES.reset(token)


def juel_set(name: Any, value: Any) -> None:
    """`execution.setVariable(name, value)`: recorded, written by the runtime after the call."""
    writes = _WRITES.get()
    if writes is None:
        raise ExpressionError(
            "JUEL: execution.setVariable() changes variables: it runs only in a listener's "
            "expression, not in a condition or mapping"
        )
    if not isinstance(name, str) or not name or name.startswith("_"):
        raise ExpressionError(f"JUEL: variable name {name!r} is not allowed")
    writes[name] = value
