"""JavaScript conditions and scripts, as Camunda 7 runs them (`language="javascript"`).

A condition's value, and a script's result variable, is the completion value of the code
(its last expression statement), as `ScriptEngine.eval` gives it in Camunda. The process
variables are in scope by name; `execution` reads and writes them (assigning to a name changes
nothing outside the script, as in Camunda without `autoStoreScriptVariables`). bpmn-engine's
(paed01) names are there too, beneath the variables: `environment.variables`, `next(err,
value)`, `content`, `this.*`. The code runs in V8 (`v8.py`, `v8_prelude.js`), bounded in time
and memory; see docs/javascript.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import deferred
from bpmn_engine.expressions.scripts import DELETED

if TYPE_CHECKING:
    from bpmn_engine.expressions.v8 import Outcome

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
        self,
        variables: Mapping[str, Any],
        warn: Callable[[str], None] | None = None,
        facts: Mapping[str, Any] | None = None,
    ) -> Any:
        """The value (what it gave `next(null, value)`, if it called bpmn-engine's `next`);
        a condition cannot set variables."""
        outcome = deferred.v8.run(self.source, variables, "condition", facts)
        return outcome.output if outcome.called_next else outcome.result

    def decide(
        self, variables: Mapping[str, Any], facts: Mapping[str, Any] | None = None
    ) -> tuple[Any, bool]:
        """A sequence flow's condition: (its value, whether it is bpmn-engine's, which takes
        a flow on any truthy value where Camunda 7 wants a boolean)."""
        outcome = deferred.v8.run(self.source, variables, "condition", facts)
        return (outcome.output if outcome.called_next else outcome.result), outcome.dialect


@dataclass(frozen=True)
class JavaScriptScript:
    """A script task's JavaScript, syntax-checked once; `run` returns what it set."""

    source: str
    language: str = "javascript"
    trusted: bool = False  # JavaScript always runs in V8: trusting it changes nothing

    def run(self, variables: Mapping[str, Any]) -> dict[str, Any]:
        """The variables the script set (with `execution.setVariable`, or by writing
        bpmn-engine's `environment.variables`); a removed one is `DELETED`."""
        return changed(deferred.v8.run(self.source, variables, "script"))

    def run_with_result(self, variables: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(the completion value, for `camunda:resultVariable`; the variables it set)."""
        outcome = deferred.v8.run(self.source, variables, "result")
        return outcome.result, changed(outcome)

    def execute(
        self, variables: Mapping[str, Any], facts: Mapping[str, Any], result: bool
    ) -> Outcome:
        """Everything the script gave back, `execution`'s facts given (`result`: keep its
        completion value)."""
        return deferred.v8.run(self.source, variables, "result" if result else "script", facts)


def changed(outcome: Outcome) -> dict[str, Any]:
    """The variables an evaluation set, and those it removed as `DELETED`."""
    return {**outcome.changes, **dict.fromkeys(outcome.removed, DELETED)}


_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_SERVICE = re.compile(r"(?:\benvironment|\bthis)\s*\.\s*services\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[)")


def refuse_services(text: str, kind: str) -> None:
    """bpmn-engine's `environment.services.fn` called from code: refused before the first
    step, since no such function exists here (a handler runs outside the step, from a
    service task, never from inside a script)."""
    match = _SERVICE.search(_COMMENTS.sub(" ", text)) if "services" in text else None
    if match is None:
        return
    name = match.group(1) or "NAME"
    raise ExpressionError(
        f"the {kind} uses bpmn-engine's service environment.services.{name}: bpmn-engine's "
        "services are JavaScript functions its host program passes in, and a script here "
        "has none; call the service from a service task instead "
        f'(implementation="${{environment.services.{name}}}"), which a --handlers function '
        f"named {name} serves"
    )


def compile_javascript_expression(text: str) -> JavaScriptExpression:
    """Refused without the extra; a syntax error is an ExpressionError naming its line."""
    deferred.v8.check_syntax(text, "expression")
    refuse_services(text, "expression")
    return JavaScriptExpression(text)


def compile_javascript_script(text: str) -> JavaScriptScript:
    deferred.v8.check_syntax(text, "script")
    refuse_services(text, "script")
    return JavaScriptScript(text)
