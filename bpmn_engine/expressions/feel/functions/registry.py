"""The table of built-in functions, filled by the family modules."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from bpmn_engine.expressions.feel.values import FeelError, Function, kind

BUILTINS: dict[str, Function] = {}


def builtin(name: str, *parameters: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a Python function as the FEEL built-in `name` with these parameter names."""

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        BUILTINS[name] = Function(name, parameters, function)
        return function

    return register


def need(value: Any, expected: type | tuple[type, ...], what: str) -> Any:
    """The argument if it has the expected Python type, else the spec's error (null)."""
    if (
        value is None
        or not isinstance(value, expected)
        or (isinstance(value, bool) and expected is Decimal)
    ):
        raise FeelError(f"{what} must be a {_name(expected)}, not {kind(value)}")
    return value


def _name(expected: type | tuple[type, ...]) -> str:
    names = {Decimal: "number", str: "string", list: "list", dict: "context", bool: "boolean"}
    if isinstance(expected, tuple):
        return " or ".join(names.get(t, t.__name__) for t in expected)
    return names.get(expected, expected.__name__)


def whole(value: Any, what: str, *, truncated: bool = False) -> int:
    """A whole number argument; `truncated`: a fraction is cut off toward zero, as the
    DMN TCK reads `substring("foobar", 3, 3.8)` and `decimal(1/3, 2.5)`, else an error."""
    number = need(value, Decimal, what)
    if number != number.to_integral_value():
        if not truncated:
            raise FeelError(f"{what} must be a whole number")
        number = number.to_integral_value(rounding="ROUND_DOWN")
    if abs(number) > 10**9:
        raise FeelError(f"{what} is out of range")
    return int(number)


def items(args: tuple[Any, ...]) -> list[Any]:
    """`f([1, 2])` or `f(1, 2)`: the list functions take either."""
    if len(args) == 1 and isinstance(args[0], list):
        return args[0]
    return list(args)
