"""FEEL types as `instance of` checks them (DMN 1.5 10.3.2.9): `number`, `date and time`,
`list<number>`, `context<name: string, age: number>`, `range<date>`,
`function<string, number>->boolean`, `Any`, `Null`.

A value is an instance of a type when its own type conforms to it: a list whose every item
is, a context with every entry named (more entries are allowed: contexts conform by
structure), a range whose ends are, a function of as many parameters. null is an instance
of `Null` only; inside a list, a context or a range it conforms to any type (the spec's
Null conforms to every type), so `[1, null] instance of list<number>` holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from lark import Token, Tree

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions.feel.values import FeelError, Function, Range, kind

Check = Callable[[Any], bool]
ItemTypes = Callable[[str, Any, bool], "bool | None"]
ITEM_TYPES: ContextVar[ItemTypes | None] = ContextVar("feel_item_types", default=None)
"""While a DMN model evaluates: whether a value is an instance of one of its item
definitions, by name (None: no such type); with True, whether it may be assigned to it,
its allowed values included. Set by `dmn/decisions.py`."""
_DEFERRING: ContextVar[bool] = ContextVar("feel_deferring_types", default=False)
NAMES = {
    "number", "string", "boolean", "date", "time", "date and time", "days and time duration",
    "years and months duration", "list", "context", "range", "function", "Any", "Null",
}  # fmt: skip
_ANY_OF = {
    "any_list_type": "list",
    "any_range_type": "range",
    "any_context_type": "context",
    "any_function_type": "function",
}


def type_check(node: Tree | Token) -> Check:
    """The test a type expression (the grammar's `type`) stands for: compiled once."""
    rule = node.data if isinstance(node, Tree) else "named_type"
    if rule in _ANY_OF:
        return _named(_ANY_OF[str(rule)])
    if rule == "named_type":
        return _named(_type_name(node))
    assert isinstance(node, Tree)
    parts = _marked(node)
    if rule == "list_type":
        item = _inner(type_check(parts[0]))
        return lambda v: isinstance(v, list) and all(item(i) for i in v)
    if rule == "range_type":
        end = _inner(type_check(parts[0]))
        return lambda v: isinstance(v, Range) and end(v.start) and end(v.end)
    if rule == "context_type":
        entries = [(_entry_name(e), _inner(type_check(e.children[1]))) for e in parts]
        return lambda v: isinstance(v, dict) and all(k in v and t(v[k]) for k, t in entries)
    if rule == "function_type":
        *parameters, result = parts
        count = len([p for p in parameters if p is not None])
        type_check(result)  # an unknown result type is refused like any other
        # a FEEL function's parameters and result are untyped (Any): it conforms when it
        # takes as many parameters and its result may be anything the type asks for
        returns_any = _type_name(result) == "Any"
        return lambda v: (
            isinstance(v, Function) and (v.variadic or len(v.parameters) == count) and returns_any
        )
    raise ExpressionError(f"FEEL: {rule} is not a type")


_MARKS = {
    "list_type": ["<", ">"],
    "range_type": ["<", ">"],
    "context_type": ["<", ">"],
    "function_type": ["<", ">", ">"],  # the last one the arrow's, after its `-`
}


def _marked(node: Tree) -> list[Any]:
    """The parts of a generic type between its `<`, `>` and `->`, which the grammar lexes as
    comparison operators: each must be the one the type's shape needs."""
    marks = [c for c in node.children if isinstance(c, Token) and c.type == "CMP"]
    if [str(m) for m in marks] != _MARKS[str(node.data)]:
        shape = " ".join(str(m) for m in marks)
        raise ExpressionError(f"FEEL: a malformed type after 'instance of' ({shape})")
    return [c for c in node.children if not (isinstance(c, Token) and c.type == "CMP")]


NOT_CONFORMING: Any = object()
"""What `typed_parameter`'s conversion gives for an argument that does not conform."""


def typed_parameter(node: Tree | Token | None) -> Callable[[Any], Any] | None:
    """How an argument reaches a typed parameter (`function(a: number)`), DMN 1.5
    10.3.2.9.4: as it is when it conforms (null always does), a singleton list as its item
    and an item as a singleton list when those do; else NOT_CONFORMING. None: untyped."""
    if node is None:
        return None
    check = type_check(node)
    name = _type_name(node) if isinstance(node, Token) or node.data == "named_type" else ""
    if name and name not in NAMES and _DEFERRING.get():
        # a parameter typed by an item definition is assigned as a BKM's is: its allowed
        # values count (`instance of` leaves them out)
        check = lambda v: _item_type(name, v, assigned=True)  # noqa: E731

    def conform(value: Any) -> Any:
        if value is None or check(value):
            return value
        if isinstance(value, list) and len(value) == 1 and check(value[0]):
            return value[0]
        if not isinstance(value, list) and check([value]):
            return [value]
        return NOT_CONFORMING

    return conform


@contextmanager
def item_types() -> Iterator[None]:
    """Compile FEEL inside a DMN model: a type name that is none of FEEL's may be one of
    the model's item definitions (`x instance of tCustomer`, `function(a: tCustomer)`),
    checked when evaluated (`ITEM_TYPES`); elsewhere it does not compile."""
    token = _DEFERRING.set(True)
    try:
        yield
    finally:
        _DEFERRING.reset(token)


def _item_type(name: str, value: Any, assigned: bool = False) -> bool:
    resolve = ITEM_TYPES.get()
    found = resolve(name, value, assigned) if resolve is not None else None
    if found is None:
        raise FeelError(f"unknown type {name!r} (not a FEEL type or item definition)")
    return found


def _named(name: str) -> Check:
    if name not in NAMES and _DEFERRING.get():
        return lambda v: _item_type(name, v)
    if name not in NAMES:
        raise ExpressionError(f"FEEL: unknown type {name!r} after 'instance of'")
    if name == "Any":
        return lambda v: v is not None
    return lambda v: kind(v) == name


def _inner(check: Check) -> Check:
    """Inside a list, context or range, null conforms to every type."""
    return lambda v: v is None or check(v)


def _type_name(node: Tree | Token) -> str:
    if isinstance(node, Token):
        return re.sub(r"\s+", " ", str(node))
    if node.data == "named_type":
        return _type_name(node.children[0])
    if node.data == "name":
        return re.sub(r"\s+", " ", str(node.children[0]))
    return _ANY_OF.get(str(node.data), str(node.data))


def _entry_name(entry: Tree) -> str:
    return re.sub(r"\s+", " ", str(entry.children[0].children[0]))
