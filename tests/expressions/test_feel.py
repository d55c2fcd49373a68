"""FEEL (`=...`): the simple Camunda 8 subset, translated into the sandbox."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import compile_expression
from bpmn_engine.expressions.feel import FeelExpression

VARIABLES: dict[str, Any] = {
    "x": 7,
    "approved": True,
    "a": "yes",
    "b": 3,
    "items": ["first", "second", "third"],
    "order": {"amount": 100, "id": "o-1"},
    "customer": {"id": "c-9"},
    "orderId": "o-1",
    "nothing": None,
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("=x > 5", True),
        ("= x <= 7", True),
        ("=approved", True),
        ("=not(approved)", False),
        ('=a = "yes" and b != 3', False),
        ('=a = "yes" or b != 3', True),
        ("=order.amount >= 100", True),
        ("=nothing = null", True),
        ("=x = null", False),
        ("=x != null", True),
        ("=items[1]", "first"),
        ("=items[3]", "third"),
        ("=items[-1]", "third"),
        ("=items[4]", None),
        ("=items[0]", None),
        ("=orderId", "o-1"),
        ("=customer.id", "c-9"),
        ('="a \\"quoted\\" \\u0041"', 'a "quoted" A'),
        ("=true", True),
        ("=false", False),
        ("=null", None),
        ("=x + 1", 8),
        ("=x - b * 2", 1),
        ("=x / 2", 3.5),
        ("=2 ** 3", 8),
        ("=-x", -7),
        ("=(x + 1) * 2", 16),
        ('=if x > 5 then "big" else "small"', "big"),
        ('=if approved then if x > 10 then "a" else "b" else "c"', "b"),
        ("=[1, 2, x][3]", 7),
        ("=[]", []),
        ('="ab" + "cd"', "abcd"),
        ("=1.5 + .5", 2.0),
    ],
)
def test_feel_subset(text: str, expected: Any) -> None:
    compiled = compile_expression(text)
    assert compiled.language == "feel"
    assert compiled.evaluate(VARIABLES) == expected


def test_comparing_an_unset_variable_with_null() -> None:
    assert compile_expression("=missing = null").evaluate({}) is True
    assert compile_expression("=missing != null").evaluate({}) is False
    warnings: list[str] = []
    assert compile_expression("=missing > 1").evaluate({}, warnings.append) is None
    assert warnings and "unknown variable 'missing'" in warnings[0]


def test_feel_wins_over_the_declared_language() -> None:
    assert compile_expression("=x = 1", "javascript").evaluate({"x": 1}) is True


@pytest.mark.parametrize("language", ["feel", "FEEL", "http://www.omg.org/spec/FEEL/20140401"])
def test_feel_language_names(language: str) -> None:
    assert compile_expression("x = 1", language).evaluate({"x": 1}) is True


@pytest.mark.parametrize(
    "text",
    [
        "=",
        "=x >",
        "=x > 1 > 0",
        '=if x then "a"',
        "='single quoted'",
        "=x.__class__",
        "=__import__",
        "=_feel_index",
        "=x == 1",
        "=[1, 2",
        '=@"not a date"',
    ],
)
def test_not_feel_fails_at_compile_time(text: str) -> None:
    with pytest.raises(ExpressionError):
        compile_expression(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('=items[item != "first"]', ["second", "third"]),
        ("=count(items)", 3),
        ("=x between 1 and 10", True),
        ("=x in [1, 2]", False),
        ('=some i in items satisfies i = "third"', True),
        ("=for i in items return i", ["first", "second", "third"]),
        ("={a: 1}", {"a": 1}),
        ('="kept \\q escape"', "kept \\q escape"),
    ],
)
def test_what_the_old_subset_refused_now_runs(text: str, expected: Any) -> None:
    assert compile_expression(text).evaluate(VARIABLES) == expected


def test_syntax_errors_say_where() -> None:
    with pytest.raises(ExpressionError, match="line 1, column 5"):
        compile_expression("=x > > 1")
    with pytest.raises(ExpressionError, match=r"column 3: unexpected end of the expression$"):
        compile_expression("=a +")  # it said "unexpected the end"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("=missing > 1", "unknown variable 'missing'"),
        ("=order.nope", "no context entry 'nope'"),
        ('=items["a"]', None),
        ("=x / 0", "division by zero"),
        ("=2 ** 1000000", "out of range"),
        ('="a" + 1', "cannot add a number to a string"),
    ],
)
def test_feel_runtime_errors_are_null_with_a_warning(text: str, message: str | None) -> None:
    warnings: list[str] = []
    assert compile_expression(text).evaluate(VARIABLES, warnings.append) in (None, [])
    if message is not None:
        assert any(message in w and text in w for w in warnings), warnings


def test_bounds_are_still_errors() -> None:
    with pytest.raises(ExpressionError, match="work limit"):
        compile_expression("=for i in 1..2000000 return i").evaluate({})
    with pytest.raises(ExpressionError, match="work limit"):
        compile_expression("=for a in 1..1000, b in 1..1000, c in 1..1000 return 1").evaluate({})


FAST_TEXTS = [
    "=v > 100", "=v <= 0", "=v < -3", "=v >= 2", '=v = "ok"', '=v != "ok"', "=v = 1",
    "=v != 1", "=v = null", "=v != null", "=v = true", "=v", "=not(v)", "=v.k > 1",
    '=v.k = "ok"', "=v.k <= 2", "=v.k >= 2.5", "=v = w", "=v < w", "=v > 1 and w < 5",
    "=v > 1 or w", "=v and w", "=v or not(w)", "=v = 0.1", "=v > 9007199254740993",
]  # fmt: skip
FAST_VALUES = [
    0, 1, 2, 101, -5, 1.5, 0.1, 100.0, "ok", "no", True, False, None, [1], {"k": 2},
    {"k": "ok"}, 9007199254740993, "missing",
]  # fmt: skip


@pytest.mark.parametrize("text", FAST_TEXTS)
def test_the_fast_path_answers_as_the_general_evaluator(text: str) -> None:
    compiled = compile_expression(text)
    assert isinstance(compiled, FeelExpression)
    general = dataclasses.replace(compiled, fast=None)
    for v in FAST_VALUES:
        for w in (3, True, None, "ok"):
            variables = {"w": w} if v == "missing" else {"v": v, "w": w}
            fast_warnings: list[str] = []
            slow_warnings: list[str] = []
            got = compiled.evaluate(variables, fast_warnings.append)
            want = general.evaluate(variables, slow_warnings.append)
            assert (got, fast_warnings) == (want, slow_warnings), (text, variables)


def test_simple_conditions_take_the_fast_path() -> None:
    for text in ("=amount > 100", '=status = "ok"', "=order.paid and total <= 500"):
        compiled = compile_expression(text)
        assert isinstance(compiled, FeelExpression) and compiled.fast is not None
