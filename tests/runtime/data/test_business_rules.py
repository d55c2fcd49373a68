# ruff: noqa: E501  (BPMN attributes read best on one line)
"""Business rule tasks evaluate DMN decisions: Camunda 7 `camunda:decisionRef` with
`resultVariable` and each `mapDecisionResult`, Zeebe `zeebe:calledDecision`; a decision that
is nowhere is refused before the first step; one with handlers keeps calling handlers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError, load_decisions
from tests.dmn.tables import decision_file, table_xml
from tests.runtime.conftest import Bpmn, MakeEngine, flow

# Dish by season and guests: rule order, two outputs
DISHES = table_xml(
    "RULE ORDER",
    ["season", "guests"],
    ["dish", "drink"],
    [
        (['"Winter"', "<= 8"], ['"Roastbeef"', '"Red wine"']),
        (["-", "> 4"], ['"Stew"', '"Water"']),
    ],
)


def rule_task(attrs: str, inner: str = "") -> str:
    return (
        '<startEvent id="S"/>'
        f'<businessRuleTask id="Decide" name="Decide" {attrs}>{inner}</businessRuleTask>'
        '<endEvent id="E"/>' + flow("S", "Decide") + flow("Decide", "E")
    )


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    return decision_file(tmp_path, DISHES, version="1.1")


def run(engine: Engine, path: Path, rules: Path, variables: dict) -> dict:
    engine.add_decisions(load_decisions(rules))
    outcome = engine.start(path, variables=variables).run()
    assert outcome.state == "completed", outcome.incident
    return outcome.variables


@pytest.mark.parametrize(
    ("mapping", "guests", "expected"),
    [
        (
            "resultList",
            6,
            [{"dish": "Roastbeef", "drink": "Red wine"}, {"dish": "Stew", "drink": "Water"}],
        ),
        ("resultList", 2, [{"dish": "Roastbeef", "drink": "Red wine"}]),
        ("singleResult", 2, {"dish": "Roastbeef", "drink": "Red wine"}),
        ("singleResult", 1000, {"dish": "Stew", "drink": "Water"}),
    ],
)
def test_camunda_map_decision_result(
    bpmn: Bpmn, engine: Engine, rules: Path, mapping: str, guests: int, expected: object
) -> None:
    attrs = f'camunda:decisionRef="decision" camunda:resultVariable="menu" camunda:mapDecisionResult="{mapping}"'
    variables = run(engine, bpmn(rule_task(attrs)), rules, {"season": "Winter", "guests": guests})
    assert variables["menu"] == expected


def test_result_list_is_the_default(bpmn: Bpmn, engine: Engine, rules: Path) -> None:
    attrs = 'camunda:decisionRef="Decision" camunda:resultVariable="menu"'
    variables = run(engine, bpmn(rule_task(attrs)), rules, {"season": "Summer", "guests": 1})
    assert variables["menu"] == []


def test_single_result_with_two_rules_is_an_incident(
    bpmn: Bpmn, engine: Engine, rules: Path
) -> None:
    attrs = 'camunda:decisionRef="decision" camunda:resultVariable="menu" camunda:mapDecisionResult="singleResult"'
    engine.add_decisions(load_decisions(rules))
    outcome = engine.start(
        bpmn(rule_task(attrs)), variables={"season": "Winter", "guests": 6}
    ).run()
    assert outcome.state == "failed"
    assert "singleResult" in outcome.incident and "2 results" in outcome.incident


@pytest.mark.parametrize(
    ("mapping", "season", "guests", "expected"),
    [
        ("singleEntry", "Winter", 2, "Roastbeef"),
        ("singleEntry", "Summer", 1, None),
        ("collectEntries", "Winter", 6, ["Roastbeef", "Stew"]),
        ("collectEntries", "Summer", 1, []),
    ],
)
def test_single_entry_and_collect_entries_take_one_output(
    bpmn: Bpmn,
    engine: Engine,
    tmp_path: Path,
    mapping: str,
    season: str,
    guests: int,
    expected: object,
) -> None:
    table = table_xml(
        "RULE ORDER",
        ["season", "guests"],
        ["dish"],
        [(['"Winter"', "<= 8"], ['"Roastbeef"']), (["-", "> 4"], ['"Stew"'])],
    )
    one_output = decision_file(tmp_path, table)
    attrs = f'camunda:decisionRef="decision" camunda:resultVariable="dish" camunda:mapDecisionResult="{mapping}"'
    variables = run(
        engine, bpmn(rule_task(attrs)), one_output, {"season": season, "guests": guests}
    )
    assert variables["dish"] == expected


def test_single_entry_of_two_outputs_is_an_incident(
    bpmn: Bpmn, engine: Engine, rules: Path
) -> None:
    attrs = 'camunda:decisionRef="decision" camunda:resultVariable="d" camunda:mapDecisionResult="singleEntry"'
    engine.add_decisions(load_decisions(rules))
    outcome = engine.start(
        bpmn(rule_task(attrs)), variables={"season": "Winter", "guests": 2}
    ).run()
    assert outcome.state == "failed" and "2 outputs (dish, drink)" in outcome.incident


def test_zeebe_called_decision_keeps_the_decisions_value(
    bpmn: Bpmn, engine: Engine, rules: Path
) -> None:
    inner = (
        "<extensionElements>"
        '<zeebe:calledDecision decisionId="decision" resultVariable="menu"/>'
        "</extensionElements>"
    )
    variables = run(engine, bpmn(rule_task("", inner)), rules, {"season": "Winter", "guests": 6})
    assert variables["menu"] == [
        {"dish": "Roastbeef", "drink": "Red wine"},
        {"dish": "Stew", "drink": "Water"},
    ]
    [evaluated] = [e for e in events_named_all(engine) if e.event == "decision.evaluated"]
    assert evaluated.element == "Decide" and evaluated.data["decision"] == "decision"


def events_named_all(engine: Engine) -> list:
    return [e for row in engine.instances() for e in engine.instance(row["id"]).history()]


def test_a_failing_decision_is_an_incident_naming_why(
    bpmn: Bpmn, engine: Engine, tmp_path: Path
) -> None:
    table = table_xml("UNIQUE", ["x"], ["y"], [(["> 1"], ["1"]), (["> 2"], ["2"])])
    attrs = 'camunda:decisionRef="decision" camunda:resultVariable="y"'
    engine.add_decisions(load_decisions(decision_file(tmp_path, table)))
    outcome = engine.start(bpmn(rule_task(attrs)), variables={"x": 5}).run()
    assert outcome.state == "failed"
    assert "hit policy UNIQUE, but 2 rules match" in outcome.incident


def test_a_decision_nowhere_is_refused_before_the_first_step(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(rule_task('camunda:decisionRef="nowhere" camunda:resultVariable="x"'))
    with pytest.raises(
        LoadError, match=r"Decide: decides with decision 'nowhere', which is in none"
    ):
        engine.start(path)
    assert engine.instances() == []


@pytest.mark.parametrize(
    ("attrs", "inner", "message"),
    [
        ('camunda:decisionRef="d" camunda:decisionRefBinding="version"', "", "only 'latest'"),
        ('camunda:decisionRef="d" camunda:mapDecisionResult="all"', "", "not one of singleEntry"),
        ('camunda:decisionRef="${which}"', "", "computed decision reference"),
        (
            "",
            '<extensionElements><zeebe:calledDecision decisionId="d"/></extensionElements>',
            "no resultVariable",
        ),
    ],
)
def test_what_cannot_run_is_refused(
    bpmn: Bpmn, engine: Engine, attrs: str, inner: str, message: str
) -> None:
    with pytest.raises(LoadError, match=message):
        engine.start(bpmn(rule_task(attrs, inner)))


def test_a_business_rule_task_with_a_handler_keeps_its_handler(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    engine = make_engine(handlers={"score": lambda context: {"score": 7}})
    attrs = 'camunda:type="external" camunda:topic="score" camunda:decisionRef="unused"'
    outcome = engine.start(bpmn(rule_task(attrs))).run()
    assert outcome.state == "completed" and outcome.variables == {"score": 7}


def test_decisions_are_kept_in_the_store_for_a_later_engine(
    bpmn: Bpmn, make_engine: MakeEngine, rules: Path, tmp_path: Path
) -> None:
    db = tmp_path / "kept.db"
    first = make_engine(db)
    first.add_decisions(load_decisions(rules))
    first.close()
    rules.unlink()  # the file is gone: the store has it
    later = make_engine(db)
    attrs = 'camunda:decisionRef="decision" camunda:resultVariable="menu"'
    outcome = later.start(bpmn(rule_task(attrs)), variables={"season": "Winter", "guests": 2}).run()
    assert outcome.variables["menu"] == [{"dish": "Roastbeef", "drink": "Red wine"}]


def test_the_files_given_win_over_the_deployed_ones(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path
) -> None:
    old = decision_file(
        tmp_path, table_xml("FIRST", ["x"], ["y"], [(["-"], ['"deployed"'])]), name="old.dmn"
    )
    new = decision_file(
        tmp_path, table_xml("FIRST", ["x"], ["y"], [(["-"], ['"given"'])]), name="new.dmn"
    )
    engine = make_engine(tmp_path / "db.db")
    assert engine.deploy_decisions(load_decisions(old)) is True
    assert engine.deploy_decisions(load_decisions(old)) is False  # deployed already
    path = bpmn(
        rule_task(
            'camunda:decisionRef="decision" camunda:resultVariable="y" camunda:mapDecisionResult="singleEntry"'
        )
    )
    assert engine.start(path, variables={"x": 1}).run().variables["y"] == "deployed"
    engine.add_decisions(load_decisions(new))
    assert engine.start(path, variables={"x": 1}).run().variables["y"] == "given"


# --- SpiffWorkflow: spiffworkflow:calledDecisionId -------------------------------------------
SPIFF_NS = 'xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core"'


def spiff_task(decision: str = "decision") -> str:
    return rule_task(
        SPIFF_NS,
        "<extensionElements><spiffworkflow:calledDecisionId>"
        f"{decision}</spiffworkflow:calledDecisionId></extensionElements>",
    )


# SpiffWorkflow's idiom: a UNIQUE table ending with a catch-all rule
ANSWERS = table_xml(
    "UNIQUE",
    ["question"],
    ["answer", "score"],
    [(['"X"'], ['"Y"', "1"]), (['"A"'], ['"B"', "2"]), (["-"], ['"unknown"', "0"])],
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [("X", {"answer": "Y", "score": 1}), ("Q", {"answer": "unknown", "score": 0})],
)
def test_spiff_outputs_become_variables_the_first_match_winning(
    bpmn: Bpmn, engine: Engine, tmp_path: Path, question: str, expected: dict
) -> None:
    # given: "X" matches the first rule and the catch-all: DMN's UNIQUE fails, SpiffWorkflow
    # takes the first (it was a job waiting for a handler, the decision never evaluated)
    rules = decision_file(tmp_path, ANSWERS)
    variables = run(engine, bpmn(spiff_task()), rules, {"question": question})
    assert variables == {"question": question, **expected}


def test_spiff_collect_makes_a_list_per_output_and_no_match_sets_nothing(
    bpmn: Bpmn, engine: Engine, tmp_path: Path
) -> None:
    collect = table_xml(
        "COLLECT",
        ["n"],
        ["tag"],
        [(["> 1"], ['"big"']), (["> 5"], ['"huge"']), (["< 0"], ['"neg"'])],
    )
    rules = decision_file(tmp_path, collect)
    assert run(engine, bpmn(spiff_task()), rules, {"n": 9})["tag"] == ["big", "huge"]
    first = table_xml("FIRST", ["n"], ["tag"], [(["< 0"], ['"neg"'])])
    other = decision_file(tmp_path, first, name="other.dmn")
    assert run(engine, bpmn(spiff_task()), other, {"n": 9}) == {"n": 9}


@pytest.mark.parametrize(
    ("logic", "variables", "why"),
    [
        (
            table_xml(
                "PRIORITY", ["n"], [("tag", '"a","b"')], [(["> 1"], ['"b"']), (["> 5"], ['"a"'])]
            ),
            {"n": 9},
            "hit policy PRIORITY",
        ),
        (
            table_xml("COLLECT", ["n"], ["v"], [(["> 1"], ["1"])], aggregation="SUM"),
            {"n": 9},
            "aggregation (SUM)",
        ),
        (
            table_xml("UNIQUE", ["n"], ["tag"], [(["< 0"], ['"neg"'])], defaults={0: '"none"'}),
            {"n": 9},
            "default output values",
        ),
        (
            table_xml("UNIQUE", ["n"], ["tag"], [(["> 1"], ['{"a": 1}'])]),
            {"n": 9, "tag": {"b": 2}},
            "deep-merges",
        ),
    ],
)
def test_where_spiffworkflow_answers_otherwise_it_is_an_incident(
    bpmn: Bpmn, engine: Engine, tmp_path: Path, logic: str, variables: dict, why: str
) -> None:
    engine.add_decisions(load_decisions(decision_file(tmp_path, logic)))
    outcome = engine.start(bpmn(spiff_task()), variables=variables).run()
    assert outcome.state == "failed"
    assert why in str(outcome.incident) and "not imitated" in str(outcome.incident)
