"""Groovy scripts of Camunda 7, Activiti and Flowable that only print and set variables run
(`expressions/jvm_scripts.py`), in script tasks and in execution listeners; any other Groovy
is refused before the first step by `run` and `validate` alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.validate import validate
from tests.runtime.conftest import HEADER, Bpmn, flow

SET_IN_SCRIPT = """
// Using def in Groovy makes the variable script-local
def scriptVar = "test123"
execution.setVariable("myVar", scriptVar)
println "set " + execution.getVariable("myVar") + " for " + customer
"""


def script_task(script: str) -> str:
    return f'<scriptTask id="T" scriptFormat="groovy"><script>{script}</script></scriptTask>'


def around(element: str) -> str:
    return '<startEvent id="S"/>' + element + '<endEvent id="E"/>' + flow("S", "T") + flow("T", "E")


def test_a_groovy_script_task_sets_variables_and_prints(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(around(script_task(SET_IN_SCRIPT))), variables={"customer": 7})
    assert instance.run().state == "completed"
    assert instance.variables["myVar"] == "test123"
    assert "scriptVar" not in instance.variables  # `def` is the script's own
    printed = [e.data["text"] for e in instance.history() if e.event == "script.printed"]
    assert printed == ["set test123 for 7\n"]


def test_a_groovy_execution_listener_runs(bpmn: Bpmn, engine: Engine) -> None:
    listener = (
        '<task id="T"><extensionElements><camunda:executionListener event="end">'
        '<camunda:script scriptFormat="groovy">execution.setVariable("audited", "yes")'
        "</camunda:script></camunda:executionListener></extensionElements></task>"
    )
    instance = engine.start(bpmn(around(listener)))
    assert instance.run().state == "completed"
    assert instance.variables["audited"] == "yes"


def test_other_groovy_is_refused_before_the_first_step(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(around(script_task("def x = 5 / 0")))
    with pytest.raises(LoadError) as refused:
        engine.start(path)
    assert refused.value.element_id == "T"
    assert "uses '/' (line 1, column 11)" in refused.value.message
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    assert any("uses '/'" in f.message for f in findings)


def test_validate_passes_a_groovy_script_that_runs(bpmn: Bpmn, tmp_path: Path) -> None:
    path = bpmn(around(script_task(SET_IN_SCRIPT)))
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    assert findings == []


THROWING = 'def code = "REJECTED"\nthrow new org.camunda.bpm.engine.delegate.BpmnError(code)'


def test_a_bpmn_error_thrown_by_a_groovy_script_is_caught_by_a_boundary(
    tmp_path: Path, engine: Engine
) -> None:
    # given: Camunda's documented way to throw a business error from a script task
    body = (
        around(script_task(THROWING))
        + '<boundaryEvent id="B" attachedToRef="T"><errorEventDefinition errorRef="err"/>'
        "</boundaryEvent>" + flow("B", "Rejected") + '<endEvent id="Rejected"/>'
    )
    path = tmp_path / "throwing.bpmn"
    path.write_text(
        f'<?xml version="1.0"?>\n{HEADER}<error id="err" errorCode="REJECTED"/>'
        f'<process id="p" isExecutable="true">{body}</process></definitions>',
        encoding="utf-8",
    )
    # when
    instance = engine.start(path)
    outcome = instance.run()
    # then
    assert (outcome.state, outcome.end_event) == ("completed", "Rejected")
    thrown = [e.data for e in instance.history() if e.event == "error.thrown"]
    assert thrown == [{"code": "REJECTED", "message": ""}]


def test_a_groovy_listener_script_that_throws_is_refused(bpmn: Bpmn, engine: Engine) -> None:
    listener = (
        '<task id="T"><extensionElements><camunda:executionListener event="end">'
        f'<camunda:script scriptFormat="groovy">{THROWING}'
        "</camunda:script></camunda:executionListener></extensionElements></task>"
    )
    with pytest.raises(LoadError) as refused:
        engine.start(bpmn(around(listener)))
    assert "throws a BPMN error, which is run from a script task's script only" in (
        refused.value.message
    )
