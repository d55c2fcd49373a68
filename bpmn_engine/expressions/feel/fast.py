"""A fast path for the FEEL conditions diagrams hold most (`amount > 100`, `status = "ok"`,
`order.paid and total <= 500`): closures over the engine's raw variables, with no conversion
to Decimal and no scope objects, so they cost what the Python sandbox's plain `eval` does.

A fast closure returns SLOW whenever the general evaluator could answer differently: a value
of another kind, a missing variable (which warns), a number that is not an int or float,
ordering booleans or null. The caller then runs the general closure tree, so the answers are
always the general evaluator's.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from lark import Token, Tree

from bpmn_engine.expressions.feel.values import unquote

SLOW: Any = object()
"""Returned by a fast closure that cannot answer: run the general evaluator instead."""
Fast = Callable[[Mapping[str, Any]], Any]
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_NUMBER = (int, float)
_MAX_EXACT = 2**53  # ints a float represents exactly: comparing int with float stays exact


def _number(token: Token) -> int | None:
    value = Decimal(str(token))
    if value != value.to_integral_value() or abs(value) >= _MAX_EXACT:
        return None  # 0.1 as a float is not FEEL's 0.1: leave it to the general path
    return int(value)


def _operand(node: Tree) -> tuple[str, Any] | None:
    """('var', name), ('path', (name, key)), ('lit', value) or None if not fast."""
    rule = node.data
    if rule == "number":
        number = _number(node.children[0])
        return None if number is None else ("lit", number)
    if rule == "string":
        return ("lit", unquote(str(node.children[0])))
    if rule in ("true", "false", "null"):
        return ("lit", {"true": True, "false": False, "null": None}[rule])
    if rule == "var":
        name = str(node.children[0].children[0])
        if " " in name:
            return None
        return ("var", name)
    if rule == "path" and node.children[0].data == "var":
        inner = _operand(node.children[0])
        if inner is None:
            return None
        return ("path", (inner[1], str(node.children[1])))
    return None


def _reader(operand: tuple[str, Any], builtins: Mapping[str, Any]) -> Fast | None:
    kind, value = operand
    if kind == "lit":
        return lambda variables: value
    if kind == "var":
        if value in builtins:
            return None
        return lambda variables: variables.get(value, SLOW)
    name, key = value
    if name in builtins:
        return None

    def read_path(variables: Mapping[str, Any]) -> Any:
        holder = variables.get(name)
        if type(holder) is dict:
            return holder.get(key, SLOW)
        return SLOW

    return read_path


def _scalar(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float or kind is str or kind is bool or value is None


def _compare(left: Tree, op: str, right: Tree, builtins: Mapping[str, Any]) -> Fast | None:
    a, b = _operand(left), _operand(right)
    if a is None or b is None:
        return None
    if a[0] == "var" and b[0] == "lit" and a[1] not in builtins:
        if type(b[1]) is int and op in _ORDER:
            return _VERSUS_NUMBER[op](a[1], b[1])
        if type(b[1]) is str and op in ("=", "!="):
            return _versus_text(a[1], b[1], op == "!=")
    path_versus_number = a[0] == "path" and b[0] == "lit" and type(b[1]) is int
    if path_versus_number and op in _ORDER and a[1][0] not in builtins:
        return _path_versus_number(a[1], _ORDER[op], b[1])
    first, second = _reader(a, builtins), _reader(b, builtins)
    if first is None or second is None:
        return None
    if op in ("=", "!="):
        negate = op == "!="

        def equality(variables: Mapping[str, Any]) -> Any:
            x, y = first(variables), second(variables)
            if x is SLOW or y is SLOW or not (_scalar(x) and _scalar(y)):
                return SLOW
            if x is None or y is None:
                return (x is y) != negate
            tx, ty = type(x), type(y)
            if tx is not ty and not (tx in _NUMBER and ty in _NUMBER):
                return SLOW  # different kinds (bool is not a number): null with a warning
            return (x == y) != negate

        return equality
    order = _ORDER[op]

    def ordering(variables: Mapping[str, Any]) -> Any:
        x, y = first(variables), second(variables)
        tx, ty = type(x), type(y)
        if (tx is int or tx is float) and (ty is int or ty is float):
            return order(x, y)
        if tx is str and ty is str:
            return order(x, y)
        return SLOW

    return ordering


def _less(name: str, limit: int) -> Fast:
    def less(variables: Mapping[str, Any]) -> Any:
        value = variables.get(name)
        kind = type(value)
        return value < limit if kind is int or kind is float else SLOW

    return less


def _at_most(name: str, limit: int) -> Fast:
    def at_most(variables: Mapping[str, Any]) -> Any:
        value = variables.get(name)
        kind = type(value)
        return value <= limit if kind is int or kind is float else SLOW

    return at_most


def _more(name: str, limit: int) -> Fast:
    def more(variables: Mapping[str, Any]) -> Any:
        value = variables.get(name)
        kind = type(value)
        return value > limit if kind is int or kind is float else SLOW

    return more


def _at_least(name: str, limit: int) -> Fast:
    def at_least(variables: Mapping[str, Any]) -> Any:
        value = variables.get(name)
        kind = type(value)
        return value >= limit if kind is int or kind is float else SLOW

    return at_least


_VERSUS_NUMBER = {"<": _less, "<=": _at_most, ">": _more, ">=": _at_least}
"""`name op number`, one closure each: the commonest condition, without an operator call."""


def _path_versus_number(path: tuple[str, str], order: Any, limit: int) -> Fast:
    """`order.amount > 100`: one closure, reading the entry of a dict variable."""
    name, key = path

    def entry_versus_number(variables: Mapping[str, Any]) -> Any:
        holder = variables.get(name)
        if type(holder) is dict:
            value = holder.get(key)
            kind = type(value)
            if kind is int or kind is float:
                return order(value, limit)
        return SLOW

    return entry_versus_number


def _versus_text(name: str, text: str, negate: bool) -> Fast:
    def same_text(variables: Mapping[str, Any]) -> Any:
        value = variables.get(name)
        if type(value) is str:
            return (value == text) != negate
        return SLOW

    return same_text


def build(node: Tree, builtins: Mapping[str, Any]) -> Fast | None:
    """A fast closure for a condition-shaped tree, or None when it has other parts."""
    rule = node.data
    if rule == "start":
        return build(node.children[0], builtins)
    if rule == "compare":
        left, op, right = node.children
        return _compare(left, str(op), right, builtins)
    if rule in ("and_expr", "or_expr"):
        first, second = build(node.children[0], builtins), build(node.children[1], builtins)
        if first is None or second is None:
            return None
        return _conjunction(first, second) if rule == "and_expr" else _disjunction(first, second)
    if rule == "not_call":
        tests = node.children[0].children
        inner = build(tests[0], builtins) if len(tests) == 1 else None
        if inner is None:
            return None

        def negation(variables: Mapping[str, Any]) -> Any:
            value = inner(variables)
            return (not value) if value is True or value is False else SLOW

        return negation
    operand = _operand(node)
    if operand is None:
        return None
    reader = _reader(operand, builtins)
    if reader is None:
        return None

    def scalar(variables: Mapping[str, Any]) -> Any:
        value = reader(variables)
        return value if value is not SLOW and _scalar(value) else SLOW

    return scalar


def _conjunction(first: Fast, second: Fast) -> Fast:
    def conjunction(variables: Mapping[str, Any]) -> Any:
        a = first(variables)
        if a is False or a is SLOW:
            return a
        b = second(variables)
        if b is False or b is SLOW:
            return b
        return True if a is True and b is True else None

    return conjunction


def _disjunction(first: Fast, second: Fast) -> Fast:
    def disjunction(variables: Mapping[str, Any]) -> Any:
        a = first(variables)
        if a is True or a is SLOW:
            return a
        b = second(variables)
        if b is True or b is SLOW:
            return b
        return False if a is False and b is False else None

    return disjunction
