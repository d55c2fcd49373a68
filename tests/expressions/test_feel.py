"""FEEL (`=...`): the simple Camunda 8 subset, translated into the sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import compile_expression

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
    with pytest.raises(ExpressionError, match="unknown variable 'missing'"):
        compile_expression("=missing > 1").evaluate({})


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
        "=items[item > 1]",
        "=count(items)",
        "=x between 1 and 10",
        "=x in [1, 2]",
        "=some i in items satisfies i > 1",
        "=for i in items return i",
        '=if x then "a"',
        "='single quoted'",
        "={a: 1}",
        "=x.__class__",
        "=__import__",
        "=_feel_index",
        '="bad \\q escape"',
        "=x == 1",
    ],
)
def test_outside_the_subset_fails_at_compile_time(text: str) -> None:
    with pytest.raises(ExpressionError):
        compile_expression(text)


def test_compile_errors_say_what_is_not_supported() -> None:
    with pytest.raises(ExpressionError, match="function 'count' is not supported"):
        compile_expression("=count(items)")
    with pytest.raises(ExpressionError, match="filter expressions"):
        compile_expression("=items[item > 1]")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("=missing > 1", "unknown variable 'missing'"),
        ("=order.nope", "unknown key 'nope'"),
        ('=items["a"]', "whole number"),
        ("=x[1]", "cannot index"),
        ("=x / 0", "division by zero"),
        ("=2 ** 1000000", "exceeded the work limit"),
    ],
)
def test_feel_runtime_errors(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(text).evaluate(VARIABLES)
    assert message in str(caught.value)
