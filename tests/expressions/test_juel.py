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
        "${execution.setVariable('x')}",  # two arguments, name and value (listeners)
        "${execution.getVariable()}",
        "${_juel_variables}",
        "${_juel_call(x, 'size')}",
        "${a instanceof b}",
        "${_juel_concat(x)}",
        "${x} ${y",  # a text with expressions in it: each one closed
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


@pytest.mark.parametrize(
    ("text", "variables", "value"),
    [
        ("${x} ${y}", {"x": 1, "y": "b"}, "1 b"),
        ("Hello ${name}!", {"name": "Ann"}, "Hello Ann!"),
        ("invoice-${id}", {"id": 7}, "invoice-7"),
        ("${ok}/${none}/${rate}", {"ok": True, "none": None, "rate": 2.5}, "true//2.5"),
        ("${x == '}' ? 'brace' : 'no'}!", {"x": "}"}, "brace!"),
        ("cost \\${x}: ${x}", {"x": 3}, "cost ${x}: 3"),
        ("#{a}-#{b}", {"a": "p", "b": 2}, "p-2"),
        ("x == '${y}'", {"x": "${y}"}, True),  # Python, the ${ inside its string
    ],
)
def test_a_text_with_expressions_in_it_is_els_composite_expression(
    text: str, variables: dict[str, Any], value: Any
) -> None:
    # given: Camunda 7 writes text and ${...} together (a message name, a mapping)
    assert compile_expression(text).evaluate(variables) == value


def test_a_hostile_text_with_expressions_fails_cleanly_or_runs_flat() -> None:
    # too deep for Python's parser, while deciding whether it is Python (a MemoryError once)
    with pytest.raises(ExpressionError, match="too deeply nested"):
        compile_expression("-" * 90_000 + "1 ${x}")
    # many parts make no deep tree
    assert compile_expression("${x}" * 20_000).evaluate({"x": 1}) == "1" * 20_000


def test_a_composite_text_refuses_a_value_java_would_write_otherwise() -> None:
    with pytest.raises(ExpressionError, match="Java's toString"):
        compile_expression("items: ${items}").evaluate({"items": ["a", "b"]})


def test_compile_error_says_what_was_not_understood() -> None:
    with pytest.raises(ExpressionError, match="JUEL: unexpected 'x' at position 3"):
        compile_expression("${a x}")
    with pytest.raises(ExpressionError, match="JUEL: unexpected end of the expression at"):
        compile_expression("${a +}")  # it said "unexpected the end"
    with pytest.raises(ExpressionError, match=r"execution.setVariable\(\) with 3 argument"):
        compile_expression("${execution.setVariable('x', 1, 2)}")


def test_set_variable_compiles_but_changes_variables_only_in_a_listener() -> None:
    compiled = compile_expression("${execution.setVariable('x', 1)}")
    with pytest.raises(ExpressionError, match="runs only in a listener"):
        compiled.evaluate({})


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


CAMUNDA: dict[str, Any] = {
    "customer": {"name": "Ann", "vip": True, "tags": ["gold", "eu"]},
    "totalPrice": 1200,
    "orderStatus": "shipped",
    "items": ["a", "b"],
    "empty_list": [],
    "comment": "  Needs review  ",
    "approver": "demo",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # conditions as Camunda 7's user guide writes them (sequence flows, gateways)
        ("${totalPrice > 1000 && customer.vip}", True),
        ("${orderStatus == 'shipped'}", True),
        ("${not empty customer.name}", True),
        ('${execution.getVariable("orderStatus") == "shipped"}', True),
        ("${execution.getVariable('nope') == null}", True),
        ("${execution.getVariables().size() == 7}", True),
        ("${execution.getVariables().containsKey('approver')}", True),
        ("${execution.getVariable(approver == 'demo' ? 'totalPrice' : 'x')}", 1200),
        ("#{approver.equals('demo')}", True),
        # method calls on strings
        ("${approver.length()}", 4),
        ("${approver.isEmpty()}", False),
        ("${approver.toUpperCase()}", "DEMO"),
        ("${customer.name.toLowerCase()}", "ann"),
        ("${comment.trim()}", "Needs review"),
        ("${comment.trim().startsWith('Needs')}", True),
        ("${comment.trim().endsWith('review')}", True),
        ("${comment.contains('review')}", True),
        ("${approver.substring(1)}", "emo"),
        ("${approver.substring(0, 2)}", "de"),
        ("${approver.equalsIgnoreCase('DEMO')}", True),
        ("${approver.indexOf('m')}", 2),
        ("${approver.concat('!')}", "demo!"),
        ("${approver.replace('de', 'xy')}", "xymo"),
        ("${approver.charAt(0)}", "d"),
        # lists and maps
        ("${items.size()}", 2),
        ("${items.isEmpty()}", False),
        ("${empty_list.isEmpty()}", True),
        ("${items.contains('a')}", True),
        ("${items.get(1)}", "b"),
        ("${items.indexOf('b')}", 1),
        ("${customer.tags.contains('gold')}", True),
        ("${customer.containsKey('vip')}", True),
        ("${customer.get('name')}", "Ann"),
        ("${customer.size()}", 3),
        ("${customer.containsValue('Ann')}", True),
        ("${totalPrice.intValue() div 2}", 600),
        ("${items.size() gt 1 ? items.get(0) : 'none'}", "a"),
    ],
)
def test_camunda_examples(text: str, expected: Any) -> None:
    assert compile_expression(text).evaluate(CAMUNDA) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("${approver.exec()}", "a string has no method exec()"),
        ("${items.get(9)}", "out of range"),
        ("${approver.substring(3, 1)}", "out of range"),
        ("${approver.length(1)}", "does not take 1 argument"),
        ("${customer.__class__()}", "no method"),
        ("${approver.replace('d', approver.concat(approver))}", None),
    ],
)
def test_method_errors(text: str, message: str | None) -> None:
    if message is None:  # bounded, not an error
        assert compile_expression(text).evaluate(CAMUNDA) == "demodemoemo"
        return
    with pytest.raises(ExpressionError, match=message):
        compile_expression(text).evaluate(CAMUNDA)


def test_string_methods_stay_within_the_size_limit() -> None:
    big = {"s": "a" * 5_000_000}
    with pytest.raises(ExpressionError, match="limit"):
        compile_expression("${s.replace('a', 'aaa')}").evaluate(big)
    with pytest.raises(ExpressionError, match="limit"):
        compile_expression("${s.concat(s).concat(s)}").evaluate(big)


@pytest.mark.parametrize(
    ("text", "variables", "value"),
    [
        ("${environment.variables.x}", {"x": 3}, 3),
        ("${environment.variables.x}", {}, None),
        ("${environment.output.order.total > 10}", {"order": {"total": 12}}, True),
        ("${environment.variables.input[-1]}", {"input": [1, 2, 3]}, 3),
        ("${environment.variables['a b']}", {"a b": 1}, 1),
        ("${environment.variables[name]}", {"name": "x", "x": 2}, 2),
        ("${environment.variables}", {"x": 1}, {"x": 1}),
    ],
)
def test_bpmn_engine_environment_variables_are_the_variables(
    text: str, variables: dict[str, Any], value: Any
) -> None:
    assert compile_expression(text).evaluate(variables) == value


@pytest.mark.parametrize(
    ("text", "variables", "value"),
    [
        ("${variables.x}", {"x": 3}, 3),  # bpmn-engine before v5
        ("${variables.x}", {}, None),
        ("${variables.order.total > 10}", {"order": {"total": 12}}, True),
        ("${variables.x}", {"variables": {"x": "own"}, "x": 1}, "own"),  # a variable wins
        ("${variables.size()}", {"variables": [1, 2]}, 2),
    ],
)
def test_bare_variables_are_bpmn_engines_unless_a_variable_has_the_name(
    text: str, variables: dict[str, Any], value: Any
) -> None:
    assert compile_expression(text).evaluate(variables) == value


def test_bpmn_engine_services_in_an_expression_are_refused_by_name() -> None:
    with pytest.raises(ExpressionError, match=r"environment.services in an expression"):
        compile_expression("${environment.services.isBelow(environment.variables.x, 2)}")
