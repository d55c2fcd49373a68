"""JavaScript conditions and scripts, as Camunda 7 runs them (`language="javascript"`).

A condition's value, and a script's result variable, is the completion value of the code
(its last expression statement), as `ScriptEngine.eval` gives it in Camunda. The process
variables are in scope by name; `execution.getVariable`, `hasVariable` and `getVariables` read
them, and a script's `execution.setVariable(name, value)` is how it writes one (assigning to a
name changes nothing outside the script, as in Camunda without `autoStoreScriptVariables`).
The code runs in V8 (`v8.py`), bounded in time and memory; see docs/javascript.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bpmn_engine.expressions import deferred

LANGUAGES = frozenset(
    {
        "javascript",
        "js",
        "ecmascript",
        "text/javascript",
        "application/javascript",
        "text/ecmascript",
        "application/ecmascript",
        "http://www.javascript.com/javascript",  # jBPM's name for it
    }
)
"""Names of JavaScript in `language` and `scriptFormat` (compared in lower case)."""


def is_javascript(language: str | None) -> bool:
    return (language or "").strip().lower() in LANGUAGES


@dataclass(frozen=True)
class JavaScriptExpression:
    """A condition or mapping in JavaScript, syntax-checked once; evaluated in V8."""

    source: str
    language: str = "javascript"

    def evaluate(
        self, variables: Mapping[str, Any], warn: Callable[[str], None] | None = None
    ) -> Any:
        """The completion value; a condition cannot set variables."""
        result, _ = deferred.v8.run(self.source, variables, "condition")
        return result


@dataclass(frozen=True)
class JavaScriptScript:
    """A script task's JavaScript, syntax-checked once; `run` returns what it set."""

    source: str
    language: str = "javascript"
    trusted: bool = False  # JavaScript always runs in V8: trusting it changes nothing

    def run(self, variables: Mapping[str, Any]) -> dict[str, Any]:
        """The variables the script set with `execution.setVariable`."""
        _, changes = deferred.v8.run(self.source, variables, "script")
        return changes

    def run_with_result(self, variables: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(the completion value, for `camunda:resultVariable`; the variables it set)."""
        return deferred.v8.run(self.source, variables, "result")


def compile_javascript_expression(text: str) -> JavaScriptExpression:
    """Refused without the extra; a syntax error is an ExpressionError naming its line."""
    deferred.v8.check_syntax(text, "expression")
    return JavaScriptExpression(text)


def compile_javascript_script(text: str) -> JavaScriptScript:
    deferred.v8.check_syntax(text, "script")
    return JavaScriptScript(text)
