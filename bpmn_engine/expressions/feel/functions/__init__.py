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
        # a parameter may go by two names (`position|match`): the spec's for each use
        names = [p.split("|") for p in function.parameters]
        known = {n for alternatives in names for n in alternatives}
        unknown = set(named) - known
        if unknown:
            raise FeelError(f"{function.name}() has no parameter {sorted(unknown)[0]!r}")
        given = [next((n for n in alternatives if n in named), None) for alternatives in names]
        args = [named[n] if n is not None else None for n in given]
        while args and args[-1] is None and given[len(args) - 1] is None:
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
