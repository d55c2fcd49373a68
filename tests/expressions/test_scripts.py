"""Scripts: they return exactly what they changed and never touch the caller's variables."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import CompiledScript, compile_script


def run(text: str, variables: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    return compile_script(text, **options).run(variables or {})


def test_returns_new_rebound_and_mutated_variables_only() -> None:
    variables = {"items": [1, 2], "order": {"total": 1}, "n": 5, "untouched": [9], "same": 3}
    before = copy.deepcopy(variables)
    script = """
# comments are fine
items.append(3)
order["total"] += 10
n = n + 1
same = 3
fresh = len(items)
"""
    assert run(script, variables) == {
        "items": [1, 2, 3],
        "order": {"total": 11},
        "n": 6,
        "fresh": 3,
    }
    assert variables == before  # the caller's mapping and its values are unchanged


def test_statements_of_the_subset() -> None:
    script = """
a, (b, c) = 1, (2, 3)
total = 0
for i in range(10):
    if i == 2:
        continue
    elif i > 5:
        break
    else:
        pass
    total += i
k = 0
while k < 3:
    k += 1
d = {}
d["x"] = [k]
d["x"][0] *= 2
d.y = "dotted"
d.y += "!"
words = [w.upper() for w in "a b".split()]
msg = f"{total}-{k}"
"""
    assert run(script) == {
        "a": 1,
        "b": 2,
        "c": 3,
        "total": 13,
        "i": 6,
        "k": 3,
        "d": {"x": [6], "y": "dotted!"},
        "words": ["A", "B"],
        "msg": "13-3",
    }


def test_underscore_names_are_never_returned() -> None:
    assert run("for _ in range(2):\n    x = 1") == {"x": 1}


def test_indented_script_from_xml_is_dedented() -> None:
    assert run("\n        x = 1\n        if x:\n            y = 2\n") == {"x": 1, "y": 2}


def test_lazy_values_are_stored_as_lists() -> None:
    assert run("k = d.keys()\ng = (i for i in range(3))", {"d": {"a": 1}}) == {
        "k": ["a"],
        "g": [0, 1, 2],
    }


def test_functions_are_not_returned() -> None:
    assert run("f = len\nx = f([1])") == {"x": 1}


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("import os", "imports are not allowed in a sandboxed script"),
        ("from os import system", "imports are not allowed"),
        ("def f():\n    pass", "function definitions are not allowed"),
        ("class A:\n    pass", "class definitions are not allowed"),
        ("try:\n    x = 1\nexcept Exception:\n    pass", "'try' statements are not allowed"),
        ("with x:\n    pass", "'with' statements are not allowed"),
        ("raise ValueError()", "'raise' statements are not allowed"),
        ("global x", "'global' declarations are not allowed"),
        ("del x", "'del' statements are not allowed"),
        ("x = lambda: 1", "lambda functions are not allowed"),
        ("x = (y := 1)", "assignment expressions"),
        ("a, *b = items", "starred assignment targets"),
        ("items[0:1] = []", "assigning to a slice"),
        ("x = ().__class__", "attribute '__class__' is not allowed"),
        ("_private = 1", "'_private' is not allowed"),
        ("x = open('/etc/passwd')", "'open' is not allowed"),
        ("x = '{}'.format(1)", "str.format() is not allowed"),
        ("x = (", "syntax error in script"),
    ],
)
def test_forbidden_statements_fail_at_compile_time(script: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_script(script)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "script",
    [
        "while True:\n    pass",
        "x = 'a'\nwhile True:\n    x = x + x",
        "x = 'a'\nwhile True:\n    x += x",
        "s = 'a'\nwhile True:\n    s *= 2",
        "x = [1]\nwhile True:\n    x.extend(x)",
        "x = 2\nwhile True:\n    x = x * x",
        "x = 1\nwhile True:\n    x = x + x",
        "x = 'ab'\nfor i in range(100):\n    x = f'{x}{x}'",
        "x = []\nfor i in range(40):\n    x = [x, x]",
        "d = {}\nd['self'] = d",
        "for i in range(10**12):\n    pass",
        "x = [0] * 10**10",
    ],
)
def test_unbounded_scripts_fail_fast(script: str) -> None:
    """Refused by a counted limit, never by the clock: the refusal comes before the work."""
    compiled = compile_script(script)
    with pytest.raises(ExpressionError, match="exceeded the work limit") as caught:
        compiled.run({})
    assert "seconds" not in str(caught.value)


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("x = missing + 1", "unknown variable 'missing'"),
        ("x = 1 / 0", "division by zero"),
        ("x = items[5]", "index out of range"),
        ("x = {}['k']", "unknown key 'k'"),
        ("x = len(3)", "has no len()"),
    ],
)
def test_script_failures_are_expression_errors(script: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        run(script, {"items": []})
    assert message in str(caught.value)


def test_failed_script_leaves_variables_alone() -> None:
    variables = {"items": [1]}
    with pytest.raises(ExpressionError):
        run("items.append(2)\nx = 1 / 0", variables)
    assert variables == {"items": [1]}


@pytest.mark.parametrize("script_format", [None, "", "python", "Python", "py", "text/x-python"])
def test_python_script_formats(script_format: str | None) -> None:
    assert run("x = 1", script_format=script_format) == {"x": 1}


@pytest.mark.parametrize("script_format", ["groovy", "feel", "juel"])
def test_other_script_formats_are_refused(script_format: str) -> None:
    with pytest.raises(ExpressionError, match=f"'{script_format}'"):
        compile_script("x = 1", script_format)


def test_compiled_script_is_cached_and_describes_itself() -> None:
    script = compile_script("x = 1")
    assert compile_script("x = 1") is script
    assert isinstance(script, CompiledScript)
    assert (script.source, script.language, script.trusted) == ("x = 1", "python", False)
    assert compile_script("x = 1", trusted=True) is not script


def test_trusted_script_runs_full_python() -> None:
    variables = {"n": 16, "items": [1]}
    script = """
import math
from collections import Counter
def double(v):
    return v * 2
class Box:
    pass
_hidden = 1
root = math.sqrt(n)
counts = dict(Counter("aab"))
items.append(double(2))
"""
    result = run(script, variables, trusted=True)
    assert result == {"root": 4.0, "counts": {"a": 2, "b": 1}, "items": [1, 4]}
    assert variables == {"n": 16, "items": [1]}
    assert compile_script(script, trusted=True).trusted


def test_trusted_script_errors_name_the_exception() -> None:
    with pytest.raises(ExpressionError, match="ZeroDivisionError: division by zero"):
        run("x = 1 / 0", trusted=True)
    with pytest.raises(ExpressionError, match="KeyError"):
        run("x = {}['k']", trusted=True)
    with pytest.raises(ExpressionError, match="syntax error"):
        compile_script("x = (", trusted=True)


@pytest.mark.parametrize("trusted", [False, True])
def test_print_is_kept_for_the_caller_never_written_out(
    trusted: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # given: SpiffWorkflow's scripts print as they please (it was refused in the sandbox)
    script = compile_script(
        "print('total', n, sep='=')\nprint('done', end='')\nm = n", None, trusted=trusted
    )
    printed: list[str] = []
    assert script.run({"n": 3}, printed) == {"m": 3}
    assert "".join(printed) == "total=3\ndone"
    assert capsys.readouterr().out == ""  # the engine's own output (--json lines) stays clean
    assert script.run({"n": 3}) == {"m": 3}  # nowhere to print: it goes nowhere


@pytest.mark.parametrize("trusted", [False, True])
def test_what_a_script_prints_is_capped(trusted: bool) -> None:
    script = compile_script("for i in range(5000):\n    print('x' * 10)", None, trusted=trusted)
    printed: list[str] = []
    script.run({}, printed)
    text = "".join(printed)
    assert text.startswith("xxxxxxxxxx\n") and text.endswith(
        "(printing stops at 10,000 characters)\n"
    )
    assert len(text) < 10_100
