"""Decision tables and their hit policies, as DMN 8.2.11 defines them (single hit: UNIQUE, ANY,
FIRST, PRIORITY; multiple hits: COLLECT with and without aggregation, RULE ORDER, OUTPUT ORDER).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from bpmn_engine import dmn
from tests.dmn.tables import decision_file, table_xml

# The spec's example of a single-output table: points by age band (overlapping on purpose).
AGE_RULES = [
    (["< 25"], ["10"]),
    (["[20..40]"], ["20"]),
    (["> 30"], ["30"]),
]


def evaluate(tmp_path: Path, table: str, inputs: dict) -> dmn.DecisionResult:
    return dmn.load(decision_file(tmp_path, table)).evaluate("Decision", inputs)


def test_unique_one_rule_matches(tmp_path: Path) -> None:
    result = evaluate(tmp_path, table_xml("UNIQUE", ["Age"], ["Points"], AGE_RULES), {"Age": 18})
    assert result.value == Decimal(10)
    assert result.ok and result.entries == ({"Points": Decimal(10)},)


def test_unique_two_rules_match_is_an_error_and_the_value_is_null(tmp_path: Path) -> None:
    result = evaluate(tmp_path, table_xml("UNIQUE", ["Age"], ["Points"], AGE_RULES), {"Age": 22})
    assert result.value is None
    assert "UNIQUE" in result.error and "rule 1 (rule1), rule 2 (rule2)" in result.error


def test_no_rule_matches_is_null_without_an_error(tmp_path: Path) -> None:
    table = table_xml("UNIQUE", ["Age"], ["Points"], [(["< 10"], ["1"])])
    result = evaluate(tmp_path, table, {"Age": 50})
    assert result.value is None and result.ok and result.entries == ()


def test_any_needs_the_matching_rules_to_agree(tmp_path: Path) -> None:
    rules = [(["< 25"], ['"young"']), (["< 30"], ['"young"']), (["< 40"], ['"middle"'])]
    table = table_xml("ANY", ["Age"], ["Band"], rules)
    differ = evaluate(tmp_path, table, {"Age": 27})  # rules 2 and 3 match
    assert differ.value is None and "different outputs" in differ.error
    both = table_xml("ANY", ["Age"], ["Band"], rules[:2])
    assert evaluate(tmp_path, both, {"Age": 20}).value == "young"


def test_first_takes_the_first_match_in_rule_order(tmp_path: Path) -> None:
    result = evaluate(tmp_path, table_xml("FIRST", ["Age"], ["Points"], AGE_RULES), {"Age": 35})
    assert result.value == Decimal(20)


def test_priority_follows_the_order_of_the_output_values(tmp_path: Path) -> None:
    rules = [(["-"], ['"ACCEPT"']), (["< 580"], ['"REFER"']), (["< 300"], ['"DECLINE"'])]
    output = ("Routing", '"DECLINE", "REFER", "ACCEPT"')
    table = table_xml("PRIORITY", ["Credit Score"], [output], rules)
    assert evaluate(tmp_path, table, {"Credit Score": 700}).value == "ACCEPT"
    assert evaluate(tmp_path, table, {"Credit Score": 500}).value == "REFER"
    assert evaluate(tmp_path, table, {"Credit Score": 200}).value == "DECLINE"


def test_collect_without_aggregation_is_the_list_of_outputs(tmp_path: Path) -> None:
    result = evaluate(tmp_path, table_xml("COLLECT", ["Age"], ["Points"], AGE_RULES), {"Age": 35})
    assert result.value == [Decimal(20), Decimal(30)]
    assert result.entries == ({"Points": Decimal(20)}, {"Points": Decimal(30)})


@pytest.mark.parametrize(
    ("aggregation", "age", "expected"),
    [
        ("SUM", 22, Decimal(30)),
        ("MIN", 35, Decimal(20)),
        ("MAX", 22, Decimal(20)),
        ("COUNT", 35, Decimal(2)),
        ("COUNT", 99, Decimal(1)),
        ("SUM", 50, Decimal(30)),
    ],
)
def test_collect_aggregations(
    tmp_path: Path, aggregation: str, age: int, expected: Decimal
) -> None:
    table = table_xml("COLLECT", ["Age"], ["Points"], AGE_RULES, aggregation=aggregation)
    result = evaluate(tmp_path, table, {"Age": age})
    assert result.value == expected
    assert result.entries == ({"Points": expected},)


def test_collect_aggregation_over_no_match(tmp_path: Path) -> None:
    rules = [(["< 10"], ["1"])]
    count = table_xml("COLLECT", ["Age"], ["Points"], rules, aggregation="COUNT")
    total = table_xml("COLLECT", ["Age"], ["Points"], rules, aggregation="SUM")
    assert evaluate(tmp_path, count, {"Age": 50}).value == Decimal(0)
    assert evaluate(tmp_path, total, {"Age": 50}).value is None


def test_rule_order_and_output_order(tmp_path: Path) -> None:
    rules = [(["-"], ['"standard"']), (["> 100"], ['"gold"']), (["> 50"], ['"silver"'])]
    output = ("Offer", '"gold", "silver", "standard"')
    in_rule_order = table_xml("RULE ORDER", ["Spend"], [output], rules)
    in_output_order = table_xml("OUTPUT ORDER", ["Spend"], [output], rules)
    assert evaluate(tmp_path, in_rule_order, {"Spend": 120}).value == ["standard", "gold", "silver"]
    assert evaluate(tmp_path, in_output_order, {"Spend": 120}).value == [
        "gold",
        "silver",
        "standard",
    ]


def test_several_outputs_make_a_context_per_rule(tmp_path: Path) -> None:
    rules = [(['"Fall"'], ['"Spareribs"', "8"]), (['"Winter"'], ['"Roastbeef"', "6"])]
    table = table_xml("UNIQUE", ["Season"], ["Dish", "Guests"], rules)
    result = evaluate(tmp_path, table, {"Season": "Winter"})
    assert result.value == {"Dish": "Roastbeef", "Guests": Decimal(6)}
    collected = table_xml(
        "COLLECT", ["Season"], ["Dish", "Guests"], [*rules, (["-"], ['"Stew"', "4"])]
    )
    assert evaluate(tmp_path, collected, {"Season": "Fall"}).value == [
        {"Dish": "Spareribs", "Guests": Decimal(8)},
        {"Dish": "Stew", "Guests": Decimal(4)},
    ]


def test_default_output_entries_when_no_rule_matches(tmp_path: Path) -> None:
    rules = [(['"gold"'], ["0.2"])]
    table = table_xml("UNIQUE", ["Level"], ["Discount"], rules, defaults={0: "0.05"})
    assert evaluate(tmp_path, table, {"Level": "gold"}).value == Decimal("0.2")
    assert evaluate(tmp_path, table, {"Level": "none"}).value == Decimal("0.05")


def test_an_input_outside_its_input_values_is_null(tmp_path: Path) -> None:
    """DMN 1.5 (the TCK's 1157 tests): the table goes on with that input null."""
    rules = [(['"S"'], ["25"]), (['"M"'], ["45"]), (["null"], ["0"])]
    table = table_xml("UNIQUE", ["Status"], ["Score"], rules, input_values={0: '"S", "M"'})
    assert evaluate(tmp_path, table, {"Status": "M"}).value == Decimal(45)
    result = evaluate(tmp_path, table, {"Status": "X"})
    assert result.value == Decimal(0) and result.error is None
    assert any("not one of its input values" in w for w in result.warnings)


def test_an_output_outside_its_output_values_is_null(tmp_path: Path) -> None:
    rules = [(["-"], ['"maybe"', '"ok"'])]
    table = table_xml("UNIQUE", ["x"], [("Answer", '"yes", "no"'), "Note"], rules)
    result = evaluate(tmp_path, table, {"x": 1})
    assert result.value == {"Answer": None, "Note": "ok"}
    assert any("rule 1 (rule1) gives Answer" in w for w in result.warnings)


def test_input_entries_may_use_the_input_value_and_camunda_cell_input(tmp_path: Path) -> None:
    rules = [(["? > 3"], ['"big"']), (["cellInput <= 3"], ['"small"'])]
    table = table_xml("UNIQUE", ["n"], ["Size"], rules)
    assert evaluate(tmp_path, table, {"n": 5}).value == "big"
    assert evaluate(tmp_path, table, {"n": 2.5}).value == "small"


def test_input_expressions_are_evaluated_once_per_table(tmp_path: Path) -> None:
    rules = [(["[1..10]"], ['"in"']), (["not([1..10])"], ['"out"'])]
    table = table_xml("UNIQUE", ["count(items) * 2"], ["Where"], rules)
    assert evaluate(tmp_path, table, {"items": [1, 2, 3]}).value == "in"
    assert evaluate(tmp_path, table, {"items": list(range(6))}).value == "out"


def test_a_simple_type_on_a_table_of_several_outputs_is_left_aside(tmp_path: Path) -> None:
    """DMN 1.1 modellers wrote the first output's type on the decision (the TCK's
    0010-multi-output-U): the outputs are checked by their own clauses instead."""
    rules = [(["-"], ['"Approved"', '"Standard"'])]
    table = table_xml("UNIQUE", ["x"], [("Status", '"Approved", "Declined"'), "Rate"], rules)
    typed = '<variable name="Decision" typeRef="string"/>' + table
    result = dmn.load(decision_file(tmp_path, typed)).evaluate("Decision", {"x": 1})
    assert result.value == {"Status": "Approved", "Rate": "Standard"}
    assert result.warnings == ()
