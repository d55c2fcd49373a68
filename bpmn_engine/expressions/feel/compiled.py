"""A FEEL expression or unary test compiled once; evaluation reports warnings to the caller."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import guards
from bpmn_engine.expressions.compiled import explain
from bpmn_engine.expressions.feel import fast
from bpmn_engine.expressions.feel.evaluator import INPUT, Closure, Compiler, Env
from bpmn_engine.expressions.feel.fast import SLOW, Fast
from bpmn_engine.expressions.feel.functions import BUILTINS
from bpmn_engine.expressions.feel.grammar import parse
from bpmn_engine.expressions.feel.values import to_engine, to_feel

Warn = Callable[[str], None]


def _run(run: Closure, env: Env, budgeted: bool, raw: bool = False) -> Any:
    token = guards.CURRENT.set(guards.Budget()) if budgeted else None
    try:
        value = run(env)
        return value if raw else to_engine(value)
    except Exception as error:
        raise explain(error) from None
    finally:
        if token is not None:
            guards.CURRENT.reset(token)


def _report(env: Env, source: str, warn: Warn | None) -> None:
    if warn is not None:
        for message in env.warnings:
            warn(f"FEEL {source!r}: {message}; the result is null")


@dataclass(frozen=True)
class FeelExpression:
    """`=...` compiled to closures. Errors the spec defines give null and a warning;
    exceeding the sandbox's bounds raises ExpressionError."""

    source: str
    language: str
    run: Closure = field(repr=False, compare=False)
    budgeted: bool = field(default=True, repr=False, compare=False)
    fast: Fast | None = field(default=None, repr=False, compare=False)

    def evaluate(self, variables: Mapping[str, Any], warn: Warn | None = None) -> Any:
        fast = self.fast
        if fast is not None:
            result = fast(variables)
            if result is not SLOW:
                return result
        env = Env({}, None, variables)
        try:
            return _run(self.run, env, self.budgeted)
        finally:
            _report(env, self.source, warn)

    def value(self, scope: dict[str, Any], warnings: list[str]) -> Any:
        """The FEEL value (not an engine variable) over FEEL values in `scope`, for DMN: the
        caller holds the work budget (one for a whole decision), the warnings go to its list."""
        env = Env(scope, None)
        try:
            return _run(self.run, env, False, raw=True)
        finally:
            warnings.extend(f"FEEL {self.source!r}: {m}; the result is null" for m in env.warnings)


@dataclass(frozen=True)
class UnaryTests:
    """A decision table cell (`< 10`, `[1..5]`, `"a","b"`, `not(...)`, `-`) as a predicate."""

    source: str
    run: Closure = field(repr=False, compare=False)

    def matches(
        self, value: Any, variables: Mapping[str, Any] | None = None, warn: Warn | None = None
    ) -> bool:
        env = Env({INPUT: to_feel(value)}, Env({}, None, variables or {}))
        try:
            return _run(self.run, env, True) is True
        finally:
            _report(env, self.source, warn)

    def test(self, value: Any, scope: dict[str, Any], warnings: list[str]) -> bool:
        """Whether the FEEL value `value` passes, over FEEL values in `scope` (DMN: the caller
        holds the work budget, the warnings go to its list)."""
        env = Env({INPUT: value}, Env(scope, None))
        try:
            return _run(self.run, env, False, raw=True) is True
        finally:
            warnings.extend(f"FEEL {self.source!r}: {m}; the result is null" for m in env.warnings)


def _body(text: str) -> str:
    body = text.strip()
    return body[1:] if body.startswith("=") else body


def compile_feel(text: str) -> FeelExpression:
    """`=...` (or FEEL text without the `=`) compiled; ExpressionError if it is not FEEL."""
    compiler = Compiler()
    tree = parse(_body(text))
    try:
        run = compiler.build(tree)
        quick = fast.build(tree, BUILTINS)
    except RecursionError:  # the compiler walks the tree recursively
        raise ExpressionError("the expression is too deeply nested") from None
    return FeelExpression(text, "feel", run, compiler.budgeted, quick)


def compile_unary_tests(text: str) -> UnaryTests:
    """A decision table cell compiled; ExpressionError if it is not FEEL unary tests."""
    tree = parse(text, "unary_tests")
    try:
        return UnaryTests(text, Compiler().build(tree))
    except RecursionError:
        raise ExpressionError("the unary tests are too deeply nested") from None
