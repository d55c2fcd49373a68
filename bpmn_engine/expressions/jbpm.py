"""jBPM's expression languages, as far as they can be run without a JVM.

jBPM writes conditions and scripts in MVEL, Java or as Drools rules; all three need a JVM
(jBPM compiles them with the process), so they are refused with the language named, except
MVEL's one form that only reads a variable: `#{path}`, a variable or a property path
(`#{order.total}`), evaluated as that path.

A jBPM data input value (an `assignment` whose `from` is not an expression language of its
own) is text: jBPM sets the work item parameter to the text, a pair of double quotes around
it removed, and when the work item is created replaces each `#{name}` in it by the variable's
value as Java writes it (`toString`, null as ""). `ParameterText` does the same for variable
and property paths, and refuses any other `#{...}` before the first step.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import deferred
from bpmn_engine.expressions.compiled import CompiledExpression, compile_tree
from bpmn_engine.expressions.java_text import java_text

PARAMETER = "jbpm-parameter"
"""The language of a jBPM data input value (text with `#{...}` in it): not a language jBPM
names, the reader's name for the assignments it reads as jBPM does."""

MVEL = frozenset({"http://www.mvel.org/2.0", "mvel"})
# the languages that need a JVM, by the names jBPM (and others) give them, lower case
JVM_LANGUAGES = {
    "http://www.java.com/java": "Java",
    "java": "Java",
    "http://www.jboss.org/drools/rule": "Drools rule",
    "drools": "Drools rule",
}
_WAY_ON = "write it as ${...} (JUEL), =FEEL, python or javascript"
# jBPM's own pattern for the names it replaces in a parameter: `#{`, no space, `}`
_REPLACED = re.compile(r"#\{(\S+)\}", re.DOTALL)
_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", re.ASCII)
_LITERALS = frozenset({"true", "false", "null", "nil", "empty", "this"})


def plain_path(text: str) -> str | None:
    """The path of `#{path}` (a variable or property path), or None for anything else."""
    stripped = text.strip()
    if not (stripped.startswith("#{") and stripped.endswith("}")):
        return None
    inner = stripped[2:-1].strip()
    return inner if _is_path(inner) else None


def _is_path(text: str) -> bool:
    return bool(_PATH.fullmatch(text)) and text.split(".", 1)[0] not in _LITERALS


def refused_language(language: str | None) -> str | None:
    """The name of a JVM language (`language` as a diagram writes it), else None."""
    return JVM_LANGUAGES.get((language or "").strip().lower())


def jvm_refusal(text: str, language: str) -> ExpressionError:
    """Why an expression in a JVM language is not evaluated, and what to do instead."""
    name = JVM_LANGUAGES.get(language.strip().lower())
    only = "" if name else ", and only #{variable} or #{variable.property} is evaluated here"
    return ExpressionError(
        f"{name or 'MVEL'} expression {_short(text)!r} (language {language!r}) needs a JVM "
        f"(jBPM compiles it){only}: {_WAY_ON}"
    )


def compile_mvel(text: str, language: str) -> CompiledExpression:
    """An MVEL expression that reads a variable or property path; any other is refused."""
    path = plain_path(text)
    if path is None:
        raise jvm_refusal(text, language)
    return _path(path, text)


def _path(path: str, source: str) -> CompiledExpression:
    juel = deferred.juel
    tree, defaults, _ = juel.translate("${" + path + "}")
    program = compile_tree(tree, "expression", juel.HELPERS)
    return CompiledExpression(source, "mvel", program, tuple(sorted(defaults.items())))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class ParameterText:
    """A jBPM data input value: literal text and the paths to put in place of `#{...}`."""

    source: str
    text: str  # the value as jBPM keeps it: without its surrounding double quotes
    paths: tuple[tuple[str, CompiledExpression], ...]  # (the name between the braces, its path)
    language: str = PARAMETER

    def evaluate(
        self, variables: Mapping[str, Any], warn: Callable[[str], None] | None = None
    ) -> str:
        """The text with each `#{name}` replaced by the value's Java text."""
        value = self.text
        for name, path in self.paths:
            value = value.replace(
                "#{" + name + "}", java_text(path.evaluate(variables), "#{" + name + "}")
            )
        return value


def compile_parameter(text: str) -> ParameterText:
    """A jBPM data input value; `#{...}` that is not a variable or property path is refused
    (jBPM evaluates it as MVEL)."""
    value = text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text
    paths: list[tuple[str, CompiledExpression]] = []
    for match in _REPLACED.finditer(value):
        name = match.group(1)
        if not _is_path(name):
            together = (
                " (jBPM reads up to the last } before a space: put a space between two #{...})"
                if "}" in name
                else ""
            )
            raise ExpressionError(
                f"#{{{name}}} in the jBPM data input value {_short(text)!r} is MVEL, which "
                "needs a JVM; bpmn-engine replaces only #{variable} and #{variable.property}"
                + together
            )
        if name not in dict(paths):
            paths.append((name, _path(name, "#{" + name + "}")))
    return ParameterText(text, value, tuple(paths))
