"""FEEL (DMN 1.4/1.5 chapter 10), the expression language of Camunda 8 (`=...`).

`grammar.py` parses with lark, `evaluator.py` turns the tree into closures once, `values.py`
holds the value types and the mapping to engine variables, `functions/` the built-ins.
"""

from __future__ import annotations

from bpmn_engine.expressions.feel.compiled import (
    FeelExpression,
    UnaryTests,
    compile_feel,
    compile_unary_tests,
)

__all__ = ["FeelExpression", "UnaryTests", "compile_feel", "compile_unary_tests"]
