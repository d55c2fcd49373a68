"""JUEL (`${...}` / `#{...}`): Camunda 7 conditions, translated into the sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import compile_expression

VARIABLES: dict[str, Any] = {
    "x": 7,
    "approved": False,
    "a": "yes",
    "b": 4,
    "name": "",
    "list": [],
    "items": ["first", "second"],
    "order": {"amount": 150, "customer": {"vip": True}},
    "nothing": None,
    "text": "it's",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${x > 5}", True),
        ("#{x > 5}", True),
        ("  ${x < 5}  ", False),
        ("${approved}", False),
        ("${!approved}", True),
        ("${not approved}", True),
        ("${a == 'yes' && b != 3}", True),
        ('${a == "yes" and b ne 4}', False),
        ("${approved || x == 7}", True),
        ("${approved or false}", False),
        ("${empty list}", True),
        ("${empty name}", True),
        ("${empty nothing}", True),
        ("${empty items}", False),
        ("${empty x}", False),  # EL: numbers are never empty
        ("${not empty name}", False),
        ("${!empty items}", True),
        ("${x eq 7 and b lt 5 and b le 4 and x gt 6 and x ge 7}", True),
        ("${x div 2}", 3.5),
        ("${x mod 4}", 3),
        ("${x / 2 + x % 4 * 2 - 1}", 8.5),
        ("${-x}", -7),
        ("${true}", True),
        ("${null}", None),
        ("${false == approved}", True),
        ("${order.amount > 100}", True),
        ("${order.customer.vip}", True),
        ("${order['amount']}", 150),
        ("${items[0]}", "first"),
        ("${items[1] == 'second'}", True),
        ("${x > 5 ? 'big' : 'small'}", "big"),
        ("${approved ? 1 : b > 3 ? 2 : 3}", 2),
        ("${(x + 1) * 2}", 16),
        ("${1.5e1 + 0.5}", 15.5),
        ("${a != 'no!'}", True),  # '!' inside a string stays a character
        ("${text == 'it\\'s'}", True),
        ('${a == "y\\"es"}', False),
        ("${'!=' == '!='}", True),
        ("${execution.getVariable('x') > 5}", True),
        ('${execution.getVariable("missing") == null}', True),
    ],
)
def test_juel_subset(text: str, expected: Any) -> None:
    compiled = compile_expression(text)
    assert compiled.language == "juel"
    assert compiled.evaluate(VARIABLES) == expected


def test_juel_wins_over_the_declared_language() -> None:
    assert compile_expression("${x > 5}", "groovy").evaluate({"x": 6}) is True


def test_juel_language_without_braces() -> None:
    assert compile_expression("x gt 5", "juel").evaluate({"x": 6}) is True


@pytest.mark.parametrize(
    "text",
    [
        "${x >}",
        "${x > 5",  # not JUEL (no closing brace): sandboxed Python, which refuses it
        "${(x > 5}",
        "${foo()}",
        "${list.size()}",
        "${execution.setVariable('x', 1)}",
        "${execution.getVariable(x)}",
        "${a instanceof b}",
        "${x} ${y}",
        "${x; y}",
        "${__import__}",
        "${_juel_empty}",
        "${x.__class__}",
        "${'unterminated}",
        "${}",
        "${a = 1}",
        "${x @ y}",
    ],
)
def test_outside_the_subset_fails_at_compile_time(text: str) -> None:
    with pytest.raises(ExpressionError):
        compile_expression(text)


def test_compile_error_says_what_was_not_understood() -> None:
    with pytest.raises(ExpressionError, match="JUEL: unexpected 'x' at position 3"):
        compile_expression("${a x}")
    with pytest.raises(ExpressionError, match="method call 'size' is not supported"):
        compile_expression("${list.size()}")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("${missing > 1}", "unknown variable 'missing'"),
        ("${order.nope}", "unknown key 'nope'"),
        ("${x / 0}", "division by zero"),
        ("${a > 1}", "'>' not supported"),
    ],
)
def test_juel_runtime_errors(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(text).evaluate(VARIABLES)
    assert message in str(caught.value)
