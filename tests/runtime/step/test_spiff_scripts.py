"""SpiffWorkflow pre- and post-scripts: Python run in the sandbox before a task's own work and
after it completes, over the task's data (docs/listeners.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.postgresql_server import scratch_db

SPIFF_DIAGRAM = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI"
    xmlns:dc="http://www.omg.org/spec/DD/20100524/DC"
    xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core"
    id="Definitions_order" targetNamespace="http://bpmn.io/schema/bpmn"
    exporter="Camunda Modeler" exporterVersion="4.11.1">
  <bpmn:process id="Process_order" name="Order" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1">
      <bpmn:outgoing>Flow_to_price</bpmn:outgoing>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="Flow_to_price" sourceRef="StartEvent_1" targetRef="Activity_price" />
    <bpmn:scriptTask id="Activity_price" name="Price the order">
      <bpmn:extensionElements>
        <spiffworkflow:preScript>steps = ["pre"]
if quantity is None:
    quantity = 1</spiffworkflow:preScript>
        <spiffworkflow:postScript>steps = steps + ["post"]
total = round(total * 1.2, 2)</spiffworkflow:postScript>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_to_price</bpmn:incoming>
      <bpmn:outgoing>Flow_to_confirm</bpmn:outgoing>
      <bpmn:script>steps = steps + ["script"]
total = quantity * unit_price</bpmn:script>
    </bpmn:scriptTask>
    <bpmn:sequenceFlow id="Flow_to_confirm" sourceRef="Activity_price"
        targetRef="Activity_confirm" />
    <bpmn:userTask id="Activity_confirm" name="Confirm the total">
      <bpmn:extensionElements>
        <spiffworkflow:instructionsForEndUser>Confirm {{ total }}
        </spiffworkflow:instructionsForEndUser>
        <spiffworkflow:preScript>shown = f"Total: {total}"</spiffworkflow:preScript>
        <spiffworkflow:postScript>charged = total if confirmed else 0</spiffworkflow:postScript>
      </bpmn:extensionElements>
      <bpmn:incoming>Flow_to_confirm</bpmn:incoming>
      <bpmn:outgoing>Flow_to_end</bpmn:outgoing>
    </bpmn:userTask>
    <bpmn:sequenceFlow id="Flow_to_end" sourceRef="Activity_confirm" targetRef="EndEvent_1" />
    <bpmn:endEvent id="EndEvent_1">
      <bpmn:incoming>Flow_to_end</bpmn:incoming>
    </bpmn:endEvent>
  </bpmn:process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="Process_order">
      <bpmndi:BPMNShape id="StartEvent_1_di" bpmnElement="StartEvent_1">
        <dc:Bounds x="179" y="99" width="36" height="36" />
      </bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
"""


def diagram(tmp_path: Path, text: str = SPIFF_DIAGRAM) -> Path:
    path = tmp_path / "order.bpmn"
    path.write_text(text, encoding="utf-8")
    return path


def test_pre_and_post_scripts_wrap_a_script_task_and_a_user_task(
    tmp_path: Path, engine: Engine
) -> None:
    # given
    instance = engine.start(diagram(tmp_path), variables={"quantity": None, "unit_price": 10})
    # when
    waiting = instance.run()
    # then: the pre-script ran before the script, the post-script after it
    assert waiting.state == "waiting"
    assert instance.variables["steps"] == ["pre", "script", "post"]
    assert instance.variables["quantity"] == 1
    assert instance.variables["total"] == 12.0
    assert instance.variables["shown"] == "Total: 12.0"  # before the person sees the task
    assert "charged" not in instance.variables
    # when
    instance.complete_task("Activity_confirm", {"confirmed": True})
    outcome = instance.run()
    # then: the post-script saw what the person entered
    assert outcome.state == "completed"
    assert outcome.variables["charged"] == 12.0


def test_post_script_runs_after_a_fresh_engine_reopens_the_waiting_instance(
    tmp_path: Path,
) -> None:
    # given
    db = tmp_path / "spiff.db"
    with Engine(db) as first:
        started = first.start(diagram(tmp_path), variables={"quantity": 2, "unit_price": 5})
        instance_id = started.run().instance
    # when
    with Engine(db) as second:
        reopened = second.instance(instance_id)
        reopened.complete_task("Activity_confirm", {"confirmed": False})
        outcome = reopened.run()
    # then
    assert outcome.variables["total"] == 12.0
    assert outcome.variables["charged"] == 0


def test_a_failing_pre_script_is_an_incident_at_its_task_before_the_task_runs(
    tmp_path: Path, engine: Engine
) -> None:
    # given: no unit_price, and a pre-script that needs it
    failing = SPIFF_DIAGRAM.replace('steps = ["pre"]', 'steps = ["pre", unit_price]')
    # when
    outcome = engine.start(diagram(tmp_path, failing), variables={"quantity": 1}).run()
    # then
    assert outcome.state == "failed"
    incident = outcome.incident or ""
    assert incident.startswith("Activity_price: spiffworkflow:preScript (start, line ")
    assert "unknown variable 'unit_price'" in incident
    assert "steps" not in outcome.variables and "total" not in outcome.variables


def test_pre_and_post_scripts_obey_the_sandbox(tmp_path: Path, engine: Engine) -> None:
    # given
    hostile = SPIFF_DIAGRAM.replace(
        "charged = total if confirmed else 0", "import os\ncharged = os.getcwd()"
    )
    path = diagram(tmp_path, hostile)
    # when
    with pytest.raises(LoadError) as error:
        engine.start(path, variables={"quantity": 1, "unit_price": 1})
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    # then
    assert error.value.element_id == "Activity_confirm" and error.value.line
    assert "spiffworkflow:postScript" in error.value.message
    assert engine.instances() == []
    assert [f.element for f in findings if f.severity == Severity.ERROR] == []
    warned = [f for f in findings if f.severity == Severity.WARNING]
    assert [f.element for f in warned] == ["Activity_confirm"]
    assert "--trust-scripts" in warned[0].message


def test_a_trusted_post_script_runs_as_full_python(tmp_path: Path) -> None:
    # given
    trusted = SPIFF_DIAGRAM.replace(
        "charged = total if confirmed else 0", "import math\ncharged = math.floor(total)"
    )
    with Engine(scratch_db(), trust_scripts=True) as engine:
        instance = engine.start(
            diagram(tmp_path, trusted), variables={"quantity": 1, "unit_price": 10}
        )
        instance.run()
        # when
        instance.complete_task("Activity_confirm", {"confirmed": True})
        outcome = instance.run()
    # then
    assert outcome.variables["charged"] == 12


OUTPUTS_DIAGRAM = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core"
    id="Definitions_outputs" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="Process_outputs" isExecutable="true">
    <bpmn:dataObject id="invoice"/>
    <bpmn:dataObjectReference id="InvoiceRef" dataObjectRef="invoice"/>
    <bpmn:startEvent id="Start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Price"/>
    <bpmn:scriptTask id="Price" scriptFormat="python">
      <bpmn:extensionElements>
        <spiffworkflow:postScript>out_1 = total * 2
runs = runs + 1</spiffworkflow:postScript>
      </bpmn:extensionElements>
      <bpmn:ioSpecification>
        <bpmn:dataOutput id="out_1"/>
        <bpmn:inputSet/>
        <bpmn:outputSet><bpmn:dataOutputRefs>out_1</bpmn:dataOutputRefs></bpmn:outputSet>
      </bpmn:ioSpecification>
      <bpmn:dataOutputAssociation id="toInvoice">
        <bpmn:sourceRef>out_1</bpmn:sourceRef>
        <bpmn:targetRef>InvoiceRef</bpmn:targetRef>
      </bpmn:dataOutputAssociation>
      <bpmn:script>total = 10</bpmn:script>
    </bpmn:scriptTask>
    <bpmn:sequenceFlow id="f2" sourceRef="Price" targetRef="End"/>
    <bpmn:endEvent id="End"/>
  </bpmn:process>
</bpmn:definitions>
"""


def test_a_post_script_runs_before_the_data_outputs_are_mapped(
    tmp_path: Path, engine: Engine
) -> None:
    # given: the data output out_1 is produced by the post-script, not by the script
    path = diagram(tmp_path, OUTPUTS_DIAGRAM)
    # when
    outcome = engine.start(path, variables={"runs": 0}).run()
    # then: as SpiffWorkflow, the post-script ran over the task's data first, then the data
    # output and its association carried what it wrote; only the data output came back
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables == {"runs": 0, "invoice": 20}


def test_a_post_script_without_data_outputs_runs_once_and_its_writes_come_back(
    tmp_path: Path, engine: Engine
) -> None:
    # given: no ioSpecification, no association: what the post-script writes comes back
    text = OUTPUTS_DIAGRAM
    for start, end in (
        ("<bpmn:ioSpecification>", "</bpmn:ioSpecification>"),
        ('<bpmn:dataOutputAssociation id="toInvoice">', "</bpmn:dataOutputAssociation>"),
    ):
        text = text[: text.index(start)] + text[text.index(end) + len(end) :]
    # when
    outcome = engine.start(diagram(tmp_path, text), variables={"runs": 0}).run()
    # then: it ran once (not again as an end listener)
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables == {"runs": 1, "total": 10, "out_1": 20, "invoice": None}
