"""FEEL's built-in functions (DMN 1.4/1.5 section 10.3.4), one module per family.

Each family module registers its functions with `builtin`; calling goes through
`call_function`, which maps named arguments onto parameters and turns a wrong call into a
FeelError (null plus a warning), as the spec says.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.expressions.feel.functions.registry import BUILTINS
from bpmn_engine.expressions.feel.values import FeelError, Function

from . import contexts, conversion, lists, numbers, ranges, strings, temporal  # registers

__all__ = ["BUILTINS", "call_function"]
_FAMILIES = (contexts, conversion, lists, numbers, ranges, strings, temporal)


def call_function(function: Function, args: list[Any], named: dict[str, Any]) -> Any:
    """Invoke a FEEL function with positional or named arguments."""
    if named:
        unknown = set(named) - set(function.parameters)
        if unknown:
            raise FeelError(f"{function.name}() has no parameter {sorted(unknown)[0]!r}")
        args = [named.get(p) for p in function.parameters]
        while args and args[-1] is None and function.parameters[len(args) - 1] not in named:
            args.pop()
    if function.name == "function":  # user-defined: missing arguments are null
        if len(args) > len(function.parameters):
            raise FeelError(f"the function takes {len(function.parameters)} arguments")
        args = [*args, *[None] * (len(function.parameters) - len(args))]
        return function.call(*args)
    try:
        return function.call(*args)
    except TypeError as error:
        raise FeelError(f"{function.name}(): {error}") from None
