"""Parsing, compiling and evaluating sandboxed code: one exception type, bounded work.

`compile_tree` takes a tree (parsed Python, or JUEL/FEEL translated by `juel.py`/`feel.py`),
runs it through the sandbox's `Rewriter` and compiles it once; `CompiledExpression.evaluate`
then runs the code with only the guards and allow-listed builtins in reach.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import calls, guards
from bpmn_engine.expressions.sandbox import FORBIDDEN, Rewriter

MAX_SOURCE_LENGTH = 100_000
"""Longest expression or script text accepted."""

HELPERS: dict[str, Callable[..., Any]] = {
    "_attr": calls.guard_attr,
    "_setattr": calls.guard_setattr,
    "_call": calls.guard_call,
    "_method": calls.guard_method,
    "_method_w": calls.guard_method_w,
    "_iter": guards.counted,
    "_while": guards.guard_while,
    "_touch": guards.guard_touch,
    "_add": guards.guard_add,
    "_mul": guards.guard_mul,
    "_pow": guards.guard_pow,
    "_lshift": guards.guard_lshift,
    "_mod": guards.guard_mod,
    "_slice": guards.guard_slice,
    "_unpack": guards.guard_unpack,
    "_unpack_hashed": guards.guard_unpack_hashed,
    "_binop": guards.guard_binop,
    "_built": guards.guard_built,
    "_dirty": guards.guard_dirty,
    "_fmt": guards.guard_format,
    "_fstr": guards.guard_fstring,
}
STATELESS = frozenset({"_attr", "_setattr", "_built"})
"""Helpers that need no Budget: code using only these has no loop, so it is bounded by its
text and its variables (`_built` weighs a display of variables, charging only if budgeted)."""


@dataclass(frozen=True)
class Program:
    """Sandboxed code compiled once, with what running it needs."""

    code: CodeType
    globals: dict[str, Any] = field(repr=False)
    budgeted: bool  # needs a Budget in guards.CURRENT while running
    scoped: bool  # variables must be globals (comprehensions look names up there)
    names: tuple[str, ...]  # variable names the code mentions, in source order


def _base_globals(helpers: set[str]) -> dict[str, Any]:
    used = {name: HELPERS[name] for name in helpers if name in HELPERS}
    return {**used, "__builtins__": calls.SAFE_BUILTINS}


def _parse(source: str, mode: str) -> ast.AST:
    with warnings.catch_warnings():  # e.g. "invalid decimal literal": we report errors only
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(source, mode=mode)


def _refuse_statements(source: str, kind: str) -> None:
    """An expression that parses as statements: say which forbidden one, or that it is one."""
    try:
        statements = _parse(source, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for node in ast.walk(statements):
        if type(node) in FORBIDDEN:
            raise ExpressionError(f"{FORBIDDEN[type(node)]} are not allowed in a sandboxed {kind}")
    raise ExpressionError("expected one expression, not statements")


def parse_python(text: str, kind: str) -> ast.AST:
    """Parse sandboxed Python; statements in an expression get a clear message."""
    if len(text) > MAX_SOURCE_LENGTH:
        raise ExpressionError(f"the {kind} is longer than {MAX_SOURCE_LENGTH:,} characters")
    mode = "eval" if kind == "expression" else "exec"
    source = text.strip() if mode == "eval" else text
    try:
        return _parse(source, mode)
    except SyntaxError as error:
        if mode == "eval":
            _refuse_statements(source, kind)
        where = f" (line {error.lineno}, column {error.offset})" if error.lineno else ""
        raise ExpressionError(f"syntax error in {kind}: {error.msg}{where}") from None
    except (RecursionError, MemoryError):
        raise ExpressionError(f"the {kind} is too deeply nested") from None
    except ValueError as error:  # e.g. a NUL character
        raise ExpressionError(f"cannot parse the {kind}: {error}") from None


def compile_tree(tree: ast.AST, kind: str, internal: Mapping[str, Any] | None = None) -> Program:
    """Validate and rewrite a parsed tree (Python, or translated JUEL/FEEL) and compile it."""
    internal = internal or {}
    rewriter = Rewriter(kind, frozenset(internal))
    try:
        rewritten = ast.fix_missing_locations(rewriter.visit(tree))
        with warnings.catch_warnings():  # "perhaps you missed a comma?" and the like
            warnings.simplefilter("ignore", SyntaxWarning)
            code = compile(rewritten, f"<{kind}>", "eval" if kind == "expression" else "exec")
    except RecursionError:
        raise ExpressionError(f"the {kind} is too deeply nested") from None
    except (SyntaxError, ValueError, TypeError) as error:
        raise ExpressionError(f"cannot compile the {kind}: {error}") from None
    namespace = {**_base_globals(rewriter.helpers), **internal}
    budgeted = kind == "script" or bool(rewriter.helpers - STATELESS)
    return Program(code, namespace, budgeted, rewriter.scoped, tuple(rewriter.names))


def explain(error: BaseException) -> ExpressionError:
    """A Python runtime error as the short message a diagram author can act on."""
    if isinstance(error, ExpressionError):
        return error
    if isinstance(error, NameError):
        name = getattr(error, "name", None)
        if name:
            return ExpressionError(f"unknown variable {name!r}")
    if isinstance(error, KeyError):
        return ExpressionError(f"unknown key {error.args[0]!r}" if error.args else "unknown key")
    if isinstance(error, RecursionError):
        return ExpressionError("evaluation exceeded the work limit: too deeply nested")
    if isinstance(error, MemoryError):
        return ExpressionError("evaluation exceeded the work limit: out of memory")
    message = str(error) or type(error).__name__
    if isinstance(error, (TypeError, ValueError, ZeroDivisionError, IndexError)):
        return ExpressionError(message)
    return ExpressionError(f"{type(error).__name__}: {message}")


@dataclass(frozen=True)
class CompiledExpression:
    """An expression compiled once; `evaluate` is cheap and never raises anything else."""

    source: str
    language: str
    program: Program = field(repr=False, compare=False)
    defaults: tuple[tuple[str, Any], ...] = field(default=(), repr=False, compare=False)
    all_variables: str = field(default="", repr=False, compare=False)
    """A name to bind to a copy of all variables (JUEL's `execution.getVariables()`)."""

    def evaluate(
        self, variables: Mapping[str, Any], warn: Callable[[str], None] | None = None
    ) -> Any:
        """The value; `warn` is for FEEL's warnings, which this sandbox never has."""
        program = self.program
        if self.defaults:
            variables = {**dict(self.defaults), **variables}
        if self.all_variables:
            variables = {**variables, self.all_variables: dict(variables)}
        if not program.budgeted:  # never scoped: comprehensions are budgeted
            try:
                return eval(program.code, program.globals, variables)
            except Exception as error:
                raise explain(error) from None
        token = guards.CURRENT.set(guards.Budget())
        try:
            if program.scoped:
                result = eval(program.code, {**variables, **program.globals})
            else:
                result = eval(program.code, program.globals, variables)
            return guards.materialize(result)
        except Exception as error:
            raise explain(error) from None
        finally:
            guards.CURRENT.reset(token)
