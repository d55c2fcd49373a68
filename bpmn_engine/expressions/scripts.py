"""Script tasks: sandboxed Python by default, full Python only when the user trusts the diagram.

A script runs over a copy of the variables and reports back only what it changed, so the runtime
can write exactly those variables (one event, one transaction) and the caller's data is never
touched, whatever the script does. "Changed" means: a new top-level name, or one whose value now
differs from the input (rebound or mutated in place). A loop variable is a top-level name too;
names starting with "_" are never reported.
"""

from __future__ import annotations

import copy
import inspect
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import guards
from bpmn_engine.expressions.calls import keep_printed
from bpmn_engine.expressions.compiled import Program, compile_tree, explain, parse_python
from bpmn_engine.expressions.temporal import PRELUDE

_IMMUTABLE = frozenset({str, int, float, bool, type(None)})  # a copy would be the value itself


def _copy(value: Any) -> Any:
    if type(value) in _IMMUTABLE:  # a loop's counter, on every turn: no deepcopy call
        return value
    try:
        return copy.deepcopy(value)
    except Exception as error:
        raise ExpressionError(f"cannot copy a {type(value).__name__!r} variable: {error}") from None


_PLAIN = frozenset({str, int, float, bool, type(None), list, dict})  # never a module or class


def _copy_variables(variables: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """A shallow copy, deep only for the names the script can reach (it can mutate those)."""
    namespace = dict(variables)
    for name in names:
        if name in namespace:
            namespace[name] = _copy(namespace[name])
    return namespace


class _Deleted:
    """The value of a variable a trusted script deleted (`del x`): the caller deletes it."""

    def __repr__(self) -> str:
        return "<deleted>"


DELETED = _Deleted()


def _changes(
    variables: Mapping[str, Any], after: Mapping[str, Any], names: Iterable[str]
) -> dict[str, Any]:
    """The names the script bound anew, or whose value now differs (rebound or mutated)."""
    changed: dict[str, Any] = {}
    for name in names:
        if name.startswith("_") or name not in after:
            continue
        value = after[name]
        if type(value) not in _PLAIN and (
            inspect.ismodule(value) or inspect.isroutine(value) or inspect.isclass(value)
        ):
            continue
        if name not in variables:
            changed[name] = value
            continue
        original = variables[name]
        if value is original:  # untouched (immutable values survive the copy as themselves)
            continue
        try:
            different = type(value) is not type(original) or bool(value != original)
        except Exception:  # an odd value that cannot compare: report it to be safe
            different = True
        if different:
            changed[name] = value
    return changed


@dataclass(frozen=True)
class CompiledScript:
    """A script compiled once; `run` returns the variables it assigned or changed."""

    source: str
    language: str
    trusted: bool
    program: Program | None = field(default=None, repr=False, compare=False)
    code: CodeType | None = field(default=None, repr=False, compare=False)

    def run(self, variables: Mapping[str, Any], printed: list[str] | None = None) -> dict[str, Any]:
        """The variables it set; what it prints goes to `printed` (else nowhere), never to
        the engine's own output (`--json` lines)."""
        if self.trusted:
            return self._run_trusted(variables, printed)
        program = self.program
        assert program is not None
        namespace = _copy_variables(variables, program.names)
        namespace.update(program.globals)
        token = guards.CURRENT.set(guards.Budget(printed))
        try:
            exec(program.code, namespace)
            changed = _changes(variables, namespace, program.names)
            return {name: guards.materialize(value) for name, value in changed.items()}
        except Exception as error:
            raise explain(error) from None
        finally:
            guards.CURRENT.reset(token)

    def _run_trusted(
        self, variables: Mapping[str, Any], printed: list[str] | None
    ) -> dict[str, Any]:
        namespace = {**PRELUDE, **_copy_variables(variables, list(variables))}
        namespace["print"] = _kept_print(printed)
        try:
            exec(self.code, namespace)  # the user trusts this diagram: full Python
        except (Exception, SystemExit) as error:
            raise ExpressionError(f"{type(error).__name__}: {error}") from None
        names = [name for name in namespace if name not in ("__builtins__", "print")]
        changed = _changes(variables, namespace, names)
        for name in variables:  # `del x`: SpiffWorkflow's scripts clean up their data so
            if name not in namespace and not name.startswith("_"):
                changed[name] = DELETED
        return changed


def _kept_print(printed: list[str] | None) -> Any:
    """A trusted script's `print`: kept as a sandboxed one's is (`calls.keep_printed`), so
    that it never writes into the engine's own output."""

    def print_(*values: Any, sep: Any = " ", end: Any = "\n", **_: Any) -> None:
        if printed is not None:
            keep_printed(printed, str(sep).join(map(str, values)) + str(end))

    return print_


def compile_python_script(text: str, trusted: bool) -> CompiledScript:
    """Compile a script; the text is dedented, since XML often indents a script's body."""
    source = text
    text = textwrap.dedent(text)
    if trusted:
        try:
            code = compile(text, "<script>", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            raise ExpressionError(f"syntax error in script: {error}") from None
        return CompiledScript(source, "python", True, code=code)
    program = compile_tree(parse_python(text, "script"), "script")
    return CompiledScript(source, "python", False, program=program)


@dataclass(frozen=True)
class TrustedExpression:
    """A Python condition or mapping run as full Python (`--trust-scripts`), as trusted
    scripts are: every builtin, `vars()` (so `'x' in vars()` asks whether `x` exists),
    `datetime` and `timedelta`."""

    source: str
    language: str
    code: CodeType = field(repr=False, compare=False)

    def evaluate(self, variables: Mapping[str, Any], warn: object = None) -> Any:
        """The value; `warn` is for FEEL's warnings, which Python never gives."""
        namespace = {**PRELUDE, **_copy_variables(variables, list(variables))}
        try:
            return eval(self.code, namespace)  # the user trusts this diagram: full Python
        except Exception as error:  # said as the sandbox says it: "unknown variable 'x'"
            raise explain(error) from None
        except SystemExit as error:
            raise ExpressionError(f"SystemExit: {error}") from None


def compile_trusted_expression(text: str) -> TrustedExpression:
    """Compile a Python expression as full Python."""
    try:
        code = compile(text.strip(), "<expression>", "eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise ExpressionError(f"syntax error in expression: {error}") from None
    return TrustedExpression(text, "python", code)
