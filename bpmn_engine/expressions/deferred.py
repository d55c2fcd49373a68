"""The languages a diagram may not use, imported when it first compiles one
(`bpmn_engine/lazy.py`): FEEL (and lark under it), JUEL, and the V8 host of JavaScript.
Python expressions and scripts, the most common, are compiled without them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpmn_engine import lazy

if TYPE_CHECKING:
    from bpmn_engine.expressions import feel, juel, v8

__all__ = ["feel", "juel", "v8"]

# attribute -> module
_LAZY: dict[str, str] = {
    "feel": "bpmn_engine.expressions.feel",
    "juel": "bpmn_engine.expressions.juel",
    "v8": "bpmn_engine.expressions.v8",
}

__getattr__ = lazy.loader(_LAZY, globals())
