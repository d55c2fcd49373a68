"""Fuzzing: random expressions and scripts never raise anything but ExpressionError, never hang.

Expressions come from a small grammar over the sandbox subset (and over FEEL and JUEL) biased
towards what once broke it: big integers, repetition, shared and nested containers, hash
collisions, comprehensions over ranges; plus random garbage. A hang inside one C call cannot
be caught in-process, so `faulthandler` ends the whole run (with a traceback) if one example
takes minutes: that is a failure no one can miss. The limits are lowered to keep each example
short; the property does not depend on them.
"""

from __future__ import annotations

import faulthandler
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import compile_expression, compile_script, guards
from bpmn_engine.expressions.feel import compile_unary_tests

VARIABLES: dict[str, Any] = {
    "n": 5,
    "s": "abc",
    "items": [3, 1, 2],
    "d": {"a": 1, "b": [1, 2]},
    "big": 2**13000,
    "flag": True,
    "none": None,
    "nested": [[1, 2], [3, [4]]],
}
HANG = 300  # seconds: only a real hang (minutes in one C call) gets anywhere near it
FUZZ = settings(
    max_examples=150,
    deadline=None,
    database=None,  # nothing written beside the tests; a failure prints its example
    suppress_health_check=[HealthCheck.too_slow],
)


@contextmanager
def bounded() -> Iterator[None]:
    """Small limits (fast examples), and a process-wide alarm for a hang inside C."""
    faulthandler.dump_traceback_later(HANG, exit=True)
    try:
        with (
            mock.patch.object(guards, "MAX_STEPS", 50_000),
            mock.patch.object(guards, "MAX_SECONDS", 0.5),
        ):
            yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def check(compile_and_run: Any) -> None:
    """Only ExpressionError may come out; a value that comes out can be written as text."""
    with bounded():
        try:
            result = compile_and_run()
        except ExpressionError:
            return
    repr(result)  # e.g. no int over Python's 4,300-digit limit (the store writes text)


# --- the sandboxed Python subset -------------------------------------------------------------
ATOMS = st.sampled_from(
    [
        "0", "1", "-1", "7", "2", "1000", "10**6", "2**61 - 1", "2**64", "0.5", "1e308", "big",
        "'x'", "''", "s", "n", "items", "d", "flag", "none", "nested", "True", "None", "()",
        "[]", "{}", "range(10)", "range(100000)", "'ab' * 1000", "[0]", "(0,)", "x", "i",
        "big * big", "[i * (2**61 - 1) for i in range(3000)]", "[[0] * 1000] * 1000",
    ]
)  # fmt: skip
BINARY = st.sampled_from(
    ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "==", "<", "in", "and"]
)
CALLS = st.sampled_from(
    [
        "len", "sum", "sorted", "set", "list", "tuple", "dict", "str", "int", "min", "max",
        "abs", "range", "any", "all", "reversed", "enumerate", "bool", "float", "round",
    ]
)  # fmt: skip
METHODS = st.sampled_from(
    [".split(',')", ".join(['a', 'b'])", ".count(1)", ".get('a')", ".union({1})", ".copy()"]
)


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(inner, inner)
    return st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", inner, BINARY, inner),
        st.builds(lambda op, a: f"({op}{a})", st.sampled_from(["-", "not ", "~"]), inner),
        st.builds(lambda f, a: f"{f}({a})", CALLS, inner),
        st.builds(lambda a, b: f"zip({a}, {b})", inner, inner),
        st.builds(lambda a, m: f"{a}{m}", inner, METHODS),
        pair.map(lambda p: f"[{p[0]}, {p[1]}]"),
        pair.map(lambda p: f"({p[0]}, {p[1]})"),
        pair.map(lambda p: f"{{{p[0]}, {p[1]}}}"),
        pair.map(lambda p: f"{{{p[0]}: {p[1]}}}"),
        pair.map(lambda p: f"[{p[0]} for x in {p[1]}]"),
        pair.map(lambda p: f"{{x: {p[0]} for x in {p[1]}}}"),
        pair.map(lambda p: f"[({p[0]}, x) for x in range(50) for i in {p[1]}]"),
        pair.map(lambda p: f"{p[0]}[{p[1]}]"),
        pair.map(lambda p: f"{p[0]}[{p[1]}:]"),
        pair.map(lambda p: f"[*{p[0]}, *{p[1]}]"),
        pair.map(lambda p: f"{{*{p[0]}}}"),
        pair.map(lambda p: f"f'{{{p[0]}}}{{{p[1]}!r:>5}}'"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.builds(lambda a, k: f"({a}) * {k}", inner, st.sampled_from(["2", "100", "10**6"])),
    )


PYTHON = st.recursive(ATOMS, _compound, max_leaves=12)
STATEMENTS = st.one_of(
    PYTHON.map(lambda e: f"x = {e}"),
    PYTHON.map(lambda e: f"y = [x, {e}]"),
    st.just("x = [x, x]"),
    st.just("y = (x, y)"),
    PYTHON.map(lambda e: f"z.append({e})"),
    st.just("z.append(z)"),
    PYTHON.map(lambda e: f"w.add({e})"),
    PYTHON.map(lambda e: f"q[{e}] = x"),
    st.just("x = x - -x"),
    st.just("same = x == y"),
)
SCRIPTS = st.lists(
    st.one_of(
        STATEMENTS,
        st.tuples(st.sampled_from(["3", "40", "1000"]), STATEMENTS).map(
            lambda t: f"for i in range({t[0]}):\n    {t[1]}"
        ),
    ),
    min_size=1,
    max_size=6,
).map(lambda lines: "x = 1\ny = 2\nz = []\nw = set()\nq = {}\n" + "\n".join(lines))


@settings(FUZZ, max_examples=400)
@given(PYTHON)
def test_python_expressions(text: str) -> None:
    check(lambda: compile_expression(text).evaluate(VARIABLES))


@FUZZ
@given(SCRIPTS)
def test_python_scripts(text: str) -> None:
    check(lambda: compile_script(text).run(VARIABLES))


# --- FEEL and JUEL ---------------------------------------------------------------------------
FEEL_ATOMS = st.sampled_from(
    ["0", "1", "2", "1000", "0.5", "n", "s", "items", "d", "d.b", "\"x\"", "true", "null",
     "big", "[1, 2]", "[]", "items[1]", "nested[2][2]", "big * big", "1" + "0" * 5000,
     "[1..5]", "(0..n)", "@\"2026-12-01\"", "@\"P1DT2H\"", "@\"P1Y\"",
     "@\"10:00:00@Europe/Berlin\"",
     "{a: 1, \"b c\": s}", "date(\"2026-01-31\")", "now()", "?", "partial", "item",
     "function(x) x * x", "\"(a+)+$\""]
)  # fmt: skip
FEEL_BINARY = st.sampled_from(
    ["+", "-", "*", "/", "**", "=", "!=", "<", ">=", "and", "or", "between 1 and", "in"]
)
FEEL_CALLS = st.sampled_from(
    ["string", "number", "count", "sum", "sort", "flatten", "distinct values", "string join",
     "substring", "replace", "matches", "split", "concatenate", "append", "product", "median",
     "date and time", "duration", "before", "overlaps", "includes", "context merge",
     "get entries", "mode", "stddev", "modulo", "decimal", "round half up", "string length",
     "years and months duration", "insert before", "index of", "union", "sublist", "reverse"]
)  # fmt: skip


def _feel(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", inner, FEEL_BINARY, inner),
        inner.map(lambda a: f"not({a})"),
        inner.map(lambda a: f"-{a}"),
        st.tuples(inner, inner).map(lambda p: f"[{p[0]}, {p[1]}]"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]}[{p[1]}]"),
        st.tuples(inner, inner, inner).map(lambda t: f"if {t[0]} then {t[1]} else {t[2]}"),
        st.tuples(inner, inner).map(lambda p: f"for x in {p[0]} return {p[1]}"),
        st.tuples(inner, inner).map(lambda p: f"for i in 1..{p[0]} return [{p[1]}, i]"),
        st.tuples(inner, inner).map(lambda p: f"some x in {p[0]} satisfies {p[1]}"),
        st.tuples(inner, inner).map(lambda p: f"every x in {p[0]} satisfies {p[1]}"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]}[item > {p[1]}]"),
        st.tuples(inner, inner).map(lambda p: f"{{a: {p[0]}, b: [a, a, {p[1]}]}}.b"),
        st.tuples(inner, inner).map(lambda p: f"[{p[0]}..{p[1]}]"),
        st.tuples(inner, inner).map(lambda p: f"(function(a, b) {p[0]})({p[1]}, 2)"),
        inner.map(lambda a: f"{a} instance of number"),
        inner.map(lambda a: f"{a}.a"),
        st.builds(lambda f, a, b: f"{f}({a}, {b})", FEEL_CALLS, inner, inner),
        st.builds(lambda f, a: f"{f}({a})", FEEL_CALLS, inner),
    )


JUEL_ATOMS = st.sampled_from(
    ["0", "1", "2", "1000", "0.5", "n", "s", "items", "d", "d.a", "'x'", "true", "null",
     "big", "items[0]", "execution.getVariable('n')", "big * big", "1" + "0" * 5000]
)  # fmt: skip
JUEL_BINARY = st.sampled_from(
    ["+", "-", "*", "/", "%", "div", "mod", "==", "!=", "<", "ge", "&&", "||", "and", "eq"]
)


def _juel(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", inner, JUEL_BINARY, inner),
        inner.map(lambda a: f"!{a}"),
        inner.map(lambda a: f"empty {a}"),
        inner.map(lambda a: f"-{a}"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]}[{p[1]}]"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        st.builds(lambda a, m: f"{a}.{m}()", inner, JUEL_METHODS),
        st.builds(lambda a, m, b: f"{a}.{m}({b})", inner, JUEL_METHODS, inner),
        st.builds(lambda a, m, b, c: f"{a}.{m}({b}, {c})", inner, JUEL_METHODS, inner, inner),
        inner.map(lambda a: f"execution.getVariable({a})"),
        inner.map(lambda a: f"execution.getVariables().get({a})"),
    )


JUEL_METHODS = st.sampled_from(
    ["size", "isEmpty", "contains", "equals", "startsWith", "endsWith", "get", "toUpperCase",
     "toLowerCase", "length", "substring", "trim", "containsKey", "containsValue", "indexOf",
     "concat", "replace", "charAt", "intValue", "toString", "getOrDefault", "__class__", "exec"]
)  # fmt: skip


@FUZZ
@given(st.recursive(FEEL_ATOMS, _feel, max_leaves=12))
def test_feel_expressions(text: str) -> None:
    check(lambda: compile_expression(f"={text}").evaluate(VARIABLES))


@FUZZ
@given(st.recursive(JUEL_ATOMS, _juel, max_leaves=12))
def test_juel_expressions(text: str) -> None:
    check(lambda: compile_expression(f"${{{text}}}").evaluate(VARIABLES))


@FUZZ
@given(
    st.lists(st.recursive(FEEL_ATOMS, _feel, max_leaves=6), min_size=1, max_size=3),
    st.sampled_from(["", "< ", ">= ", "not(", "= "]),
    st.sampled_from(list(VARIABLES)),
)
def test_feel_unary_tests(tests: list[str], prefix: str, name: str) -> None:
    if prefix == "not(":
        text = f"not({', '.join(tests)})"
    else:
        text = ", ".join(f"{prefix}{t}" for t in tests)
    check(lambda: compile_unary_tests(text).matches(VARIABLES[name], VARIABLES))


# --- garbage ---------------------------------------------------------------------------------
@FUZZ
@given(st.sampled_from(["", "=", "${", "#{"]), st.text(max_size=60))
def test_garbage(prefix: str, body: str) -> None:
    text = prefix + body + ("}" if prefix.endswith("{") else "")
    check(lambda: compile_expression(text).evaluate(VARIABLES))
    check(lambda: compile_script(body).run(VARIABLES))


# --- JVM scripts that print and set variables ------------------------------------------------
JVM_PIECES = st.sampled_from(
    [
        "System.out.println(", "System.out.print(", "println ", "kcontext.setVariable(",
        "execution.setVariable(", "kcontext.getVariable(", "execution.getVariable(", "String ",
        "def ", '"x"', "'y'", '"\\u0041\\n"', '"\\', "1", "2147483647", "1.5", "0.1f", "007",
        "n", "s", "d", "items", "none", "big", "t", " + ", ".toString()", "(", ")", ",", ";",
        "\n", "=", " ", "// c\n", "/* c */", "if", "{", "}", "throw new X()", "$", "'", '"',
    ]
)  # fmt: skip


@FUZZ
@given(
    st.lists(JVM_PIECES, max_size=25),
    st.sampled_from(["http://www.java.com/java", "http://www.mvel.org/2.0", "groovy"]),
)
def test_jvm_scripts(pieces: list[str], script_format: str) -> None:
    text = "".join(pieces)
    check(lambda: compile_script(text, script_format).run(VARIABLES, []))


@FUZZ
@given(st.text(max_size=80), st.sampled_from(["http://www.java.com/java", "mvel", "groovy"]))
def test_jvm_garbage(text: str, script_format: str) -> None:
    check(lambda: compile_script(text, script_format).run(VARIABLES, []))
