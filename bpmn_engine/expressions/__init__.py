"""The one interface for conditions, mappings and scripts: compile once, evaluate many times.

Languages: `${...}` / `#{...}` is JUEL (Camunda 7), `=...` is FEEL (Camunda 8), a `language` or
`scriptFormat` naming JavaScript runs in an embedded V8 (the optional extra `js`, see
`javascript.py`), anything else is a sandboxed Python subset (see `sandbox.py`) unless the
diagram names another language, which is refused at compile time. jBPM's MVEL is evaluated
only as a variable path `#{order.total}`, and Java and Drools rules are refused by name
(`jbpm.py`); Java, MVEL and Groovy scripts run when they only print and set variables
(`jvm_scripts.py`). Python scripts are sandboxed, or full Python when the user trusts them. Every
failure, at compile or evaluation time, is an ExpressionError.
"""

from __future__ import annotations

import ast
import functools
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import deferred
from bpmn_engine.expressions.compiled import (
    MAX_SOURCE_LENGTH,
    CompiledExpression,
    compile_tree,
    parse_python,
)
from bpmn_engine.expressions.javascript import (
    JavaScriptExpression,
    JavaScriptScript,
    compile_javascript_expression,
    compile_javascript_script,
    is_javascript,
)
from bpmn_engine.expressions.jbpm import (
    MVEL,
    PARAMETER,
    compile_mvel,
    compile_parameter,
    jvm_refusal,
    refused_language,
)
from bpmn_engine.expressions.jvm_scripts import (
    JvmScript,
    UnsupportedScript,
    compile_jvm_script,
    jvm_dialect,
)
from bpmn_engine.expressions.scripts import (
    CompiledScript,
    TrustedExpression,
    compile_python_script,
    compile_trusted_expression,
)

if TYPE_CHECKING:
    from bpmn_engine.expressions.feel import FeelExpression
    from bpmn_engine.expressions.jbpm import ParameterText

    Expression = (
        CompiledExpression
        | FeelExpression
        | JavaScriptExpression
        | TrustedExpression
        | ParameterText
    )
    Script = CompiledScript | JavaScriptScript | JvmScript

__all__ = [
    "CompiledExpression",
    "CompiledScript",
    "FeelExpression",
    "JavaScriptExpression",
    "JavaScriptScript",
    "TrustedExpression",
    "compile_expression",
    "compile_script",
    "script_is_expression",
]


def __getattr__(name: str) -> Any:
    """`FeelExpression`, imported with FEEL the first time it is asked for (PEP 562)."""
    if name == "FeelExpression":
        return deferred.feel.FeelExpression
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_PYTHON = frozenset({"", "python", "python3", "py", "http://www.python.org", "text/x-python"})
XPATH = frozenset({"xpath", "http://www.w3.org/1999/xpath"})
# script formats of Camunda 7, Activiti, Flowable and jBPM diagrams that need a JVM
_JVM_SCRIPTS = frozenset(
    {
        "groovy",
        "java",
        "http://www.java.com/java",
        "mvel",
        "http://www.mvel.org/2.0",
        "kotlin",
        "kts",
        "scala",
        "clojure",
        "beanshell",
        "bsh",
    }
)
_LANGUAGES = {
    **dict.fromkeys(_PYTHON, "python"),
    "juel": "juel",
    "feel": "feel",
    "http://www.omg.org/spec/feel/20140401": "feel",
    # DMN 1.2 to 1.5 name FEEL by the DMN namespace (modelers write it on conditions)
    "http://www.omg.org/spec/dmn/20180521/feel/": "feel",
    "https://www.omg.org/spec/dmn/20191111/feel/": "feel",
    "https://www.omg.org/spec/dmn/20211108/feel/": "feel",
    "https://www.omg.org/spec/dmn/20230324/feel/": "feel",
}


def _language(text: str, language: str | None) -> str:
    stripped = text.strip()
    name = (language or "").strip().lower()
    if name in MVEL or name == PARAMETER:
        return name  # jBPM's: a variable path, or a data input value (`jbpm.py`)
    if stripped[:2] in ("${", "#{") and stripped.endswith("}"):
        return "juel"
    if stripped.startswith("="):
        return "feel"
    if not name and ("${" in stripped or "#{" in stripped) and not _is_python(stripped):
        return "juel"  # a text with expressions in it (`invoice-${id}`): EL's composite
    if refused_language(name):  # JUEL and FEEL, written as such, win over it (as before)
        raise jvm_refusal(text, language or "")
    if is_javascript(name):
        return "javascript"
    if name in XPATH:
        raise ExpressionError(
            f"expression language {language!r} is not supported: XPath expressions cannot be "
            "evaluated here; write the expression in python, ${...}, =FEEL or javascript"
        )
    if name not in _LANGUAGES:
        raise ExpressionError(
            f"expression language {language!r} is not supported; "
            "use python, ${...}, =FEEL or javascript"
        )
    return _LANGUAGES[name]


def _is_python(text: str) -> bool:
    """Whether the text is a Python expression (a `${` in it is then inside a string). Too
    deep to parse counts as Python: its parse then says so (`parse_python`)."""
    if len(text) > MAX_SOURCE_LENGTH:
        return True  # refused by its length, whatever it is
    try:
        ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return False
    except (RecursionError, MemoryError):
        return True
    return True


@functools.lru_cache(maxsize=4096)
def _compile_expression(text: str, language: str | None, trusted: bool) -> Expression:
    chosen = _language(text, language)
    if len(text) > MAX_SOURCE_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_SOURCE_LENGTH:,} characters")
    try:
        return _translate(text, chosen, trusted)
    except RecursionError:
        raise ExpressionError("the expression is too deeply nested") from None


def _translate(text: str, chosen: str, trusted: bool) -> Expression:
    if chosen in MVEL:
        return compile_mvel(text, chosen)
    if chosen == PARAMETER:
        return compile_parameter(text)
    if chosen == "javascript":
        return compile_javascript_expression(text)
    if chosen == "juel":
        juel = deferred.juel
        tree, defaults, uses_variables = juel.translate(text)
        program = compile_tree(tree, "expression", juel.HELPERS)
        scope = juel.VARIABLES if uses_variables else ""
        return CompiledExpression(text, "juel", program, tuple(sorted(defaults.items())), scope)
    if chosen == "feel":
        return deferred.feel.compile_feel(text)
    if trusted:
        return compile_trusted_expression(text)
    return CompiledExpression(
        text, "python", compile_tree(parse_python(text, "expression"), "expression")
    )


def compile_expression(
    text: str, language: str | None = None, *, trusted: bool = False
) -> Expression:
    """Compile a condition or mapping expression; cached, since the runtime asks repeatedly.
    Python is sandboxed unless `trusted` (`--trust-scripts`: full Python, as trusted scripts)."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, not {type(text).__name__}")
    compiled = _compile_expression(text, language, bool(trusted))
    if isinstance(compiled, JavaScriptExpression):
        deferred.v8.require()  # the cache outlives the engine's installation (tests uninstall it)
    return compiled


@functools.lru_cache(maxsize=1024)
def _compile_script(text: str, script_format: str | None, trusted: bool) -> Script:
    name = (script_format or "").strip().lower()
    if is_javascript(name):
        if len(text) > MAX_SOURCE_LENGTH:
            raise ExpressionError(f"the script is longer than {MAX_SOURCE_LENGTH:,} characters")
        return compile_javascript_script(text)
    if name in _JVM_SCRIPTS:
        if len(text) > MAX_SOURCE_LENGTH:
            raise ExpressionError(f"the script is longer than {MAX_SOURCE_LENGTH:,} characters")
        return _jvm_script(text, script_format or "")
    if name not in _PYTHON:
        raise ExpressionError(
            f"script format {script_format!r} is not supported; scripts must be python "
            "or javascript"
        )
    return compile_python_script(text, trusted)


def _jvm_script(text: str, script_format: str) -> JvmScript:
    way_on = (
        "rewrite the script in Python or JavaScript (scriptFormat python or javascript), or "
        "give its work to a --handlers function (a service task, or a listener with a class)"
    )
    if jvm_dialect(script_format) is None:
        raise ExpressionError(
            f"script format {script_format!r} is a JVM language, which this engine does not "
            f"run: {way_on}"
        )
    try:
        return compile_jvm_script(text, script_format)
    except RecursionError:
        raise ExpressionError("the script is too deeply nested") from None
    except UnsupportedScript as error:
        raise ExpressionError(
            f"script format {script_format!r} is a JVM language: of its scripts only those "
            "that print and set variables run here (System.out.println, setVariable, "
            f"getVariable, + of text; in Groovy a throw of a BpmnError), and this one {error}: "
            f"{way_on}"
        ) from None


def compile_script(text: str, script_format: str | None = None, *, trusted: bool = False) -> Script:
    """Compile a script task's script; sandboxed unless `trusted` (the user's explicit choice)."""
    if not isinstance(text, str):
        raise ExpressionError(f"a script must be text, not {type(text).__name__}")
    compiled = _compile_script(text, script_format, bool(trusted))
    if isinstance(compiled, JavaScriptScript):
        deferred.v8.require()
    return compiled


def script_is_expression(script_format: str | None, result_variable: str | None) -> bool:
    """A script task whose script is evaluated as one expression for its result variable
    (Python, JUEL, FEEL); a JavaScript script runs whole, its last value the result."""
    if is_javascript(script_format):
        return False
    return bool(result_variable) or (script_format or "").strip().lower() == "feel"
