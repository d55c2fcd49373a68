"""Business rule tasks from the command line: DMN files given beside the BPMN file are kept
in the database, so an instance resumed later (`bpmn complete`) finds its decision."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Bpmn

PROCESS = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="ask"/>
    <userTask id="ask" name="Ask"/>
    <sequenceFlow id="f2" sourceRef="ask" targetRef="decide"/>
    <businessRuleTask id="decide" camunda:decisionRef="dish" camunda:resultVariable="dish"
      camunda:mapDecisionResult="singleEntry"/>
    <sequenceFlow id="f3" sourceRef="decide" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>
"""
RULES = """<?xml version="1.0"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="r" name="r"
  namespace="http://example.com/dishes">
  <decision id="dish" name="Dish">
    <decisionTable id="t" hitPolicy="FIRST">
      <input id="i"><inputExpression><text>season</text></inputExpression></input>
      <output id="o" name="dish"/>
      <rule id="r1"><inputEntry><text>"Winter"</text></inputEntry>
        <outputEntry><text>"Stew"</text></outputEntry></rule>
      <rule id="r2"><inputEntry><text>-</text></inputEntry>
        <outputEntry><text>"Salad"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>
"""


def test_a_resumed_instance_finds_the_decision_in_the_database(bpmn: Bpmn, tmp_path: Path) -> None:
    process, rules, db = tmp_path / "p.bpmn", tmp_path / "rules.dmn", str(tmp_path / "x.db")
    process.write_text(PROCESS)
    rules.write_text(RULES)
    code, lines = bpmn.json_lines("run", str(process), str(rules), "--db", db)
    assert code == 3  # waits at "Ask"
    instance = lines[-1]["instance"]
    rules.unlink()
    code, lines = bpmn.json_lines("complete", instance, "Ask", "--var", "season=Winter", "--db", db)
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"]["dish"] == "Stew"
    evaluated = [line for line in lines if line["event"] == "decision.evaluated"]
    assert evaluated and evaluated[0]["element"] == "decide"
    # it answers all the same, and says where it came from (it answered without a word)
    [warning] = [line["message"] for line in lines if line["event"] == "warning"]
    assert "decision 'dish' comes from DMN files kept in the database" in warning
    assert "rules.dmn" in warning


def test_only_dmn_files_is_not_a_run(bpmn: Bpmn, tmp_path: Path) -> None:
    rules = tmp_path / "rules.dmn"
    rules.write_text(RULES)
    done = bpmn("run", str(rules), "--db", ":memory:")
    assert done.returncode == 2 and "give a BPMN file to run" in done.stderr


def test_a_broken_dmn_file_stops_the_run_before_it_starts(bpmn: Bpmn, tmp_path: Path) -> None:
    process, rules = tmp_path / "p.bpmn", tmp_path / "rules.dmn"
    process.write_text(PROCESS)
    rules.write_text(RULES.replace("&lt;", "").replace('"Winter"</text>', '"Winter</text>'))
    done = bpmn("run", str(process), str(rules), "--db", str(tmp_path / "x.db"))
    assert done.returncode == 2
    assert "rules.dmn:8: r1: FEEL syntax error" in done.stderr
    assert "Traceback" not in done.stderr
    listed = json.loads(bpmn("instances", "--db", str(tmp_path / "x.db"), "--json").stdout or "[]")
    assert listed == []
