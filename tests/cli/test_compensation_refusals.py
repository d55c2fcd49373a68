"""What bpmn-engine cannot run of compensation and transactions is refused by `bpmn run` and
`bpmn validate` alike, as `file:line: element: reason`, before the first step."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Bpmn

DIAGRAM = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <endEvent id="Cancel_[red]"><cancelEventDefinition/></endEvent>
    <sequenceFlow id="f" sourceRef="s" targetRef="Cancel_[red]"/>
  </process>
</definitions>
"""


def test_a_cancel_end_event_outside_a_transaction_is_refused_by_run_and_validate(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    (tmp_path / "cancel.bpmn").write_text(DIAGRAM)
    run = bpmn("run", "cancel.bpmn")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "cancel.bpmn:5: Cancel_[red]: a cancel end event is allowed only directly" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""  # nothing started
    validate = bpmn("validate", "cancel.bpmn")
    assert validate.returncode == 1
    assert "cancel.bpmn:5:" in validate.stdout and "error executable" in validate.stdout
    assert "[Cancel_[red]]" in validate.stdout  # shown as text, not taken as markup


UNCAUGHT_CANCEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <transaction id="Booking">
      <startEvent id="ts"/>
      <endEvent id="Abort"><cancelEventDefinition/></endEvent>
      <sequenceFlow id="tf" sourceRef="ts" targetRef="Abort"/>
    </transaction>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="Booking"/>
    <sequenceFlow id="f2" sourceRef="Booking" targetRef="e"/>
  </process>
</definitions>
"""


def test_a_cancel_end_event_of_a_transaction_without_a_cancel_boundary_is_refused(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    (tmp_path / "tx.bpmn").write_text(UNCAUGHT_CANCEL)
    run = bpmn("run", "tx.bpmn")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "tx.bpmn:7: Abort: transaction 'Booking' has no cancel boundary event" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""  # nothing started
    validate = bpmn("validate", "tx.bpmn")
    assert validate.returncode == 1
    assert "tx.bpmn:7:" in validate.stdout and "error executable" in validate.stdout
    assert "has no cancel boundary event" in validate.stdout


def test_the_same_transaction_with_a_cancel_boundary_event_runs(bpmn: Bpmn, tmp_path: Path) -> None:
    caught = UNCAUGHT_CANCEL.replace(
        '<endEvent id="e"/>',
        '<endEvent id="e"/><boundaryEvent id="Cancelled" attachedToRef="Booking">'
        '<cancelEventDefinition/></boundaryEvent><endEvent id="ce"/>'
        '<sequenceFlow id="f3" sourceRef="Cancelled" targetRef="ce"/>',
    )
    (tmp_path / "tx.bpmn").write_text(caught)
    run = bpmn("run", "tx.bpmn")
    assert run.returncode == 0, run.stdout + run.stderr
    validate = bpmn("validate", "tx.bpmn")
    assert "has no cancel boundary event" not in validate.stdout


CALLED = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="parent" isExecutable="true">
    <startEvent id="s"/>
    <callActivity id="Book" calledElement="booking"/>
    <endEvent id="e"><compensateEventDefinition/></endEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="Book"/>
    <sequenceFlow id="f2" sourceRef="Book" targetRef="e"/>
  </process>
  <process id="booking" isExecutable="true">
    <startEvent id="bs"/>
    <task id="reserve"/>
    <boundaryEvent id="rc" attachedToRef="reserve"><compensateEventDefinition/></boundaryEvent>
    <task id="release" isForCompensation="true"/>
    <association id="a" sourceRef="rc" targetRef="release"/>
    <endEvent id="be"/>
    <sequenceFlow id="b1" sourceRef="bs" targetRef="reserve"/>
    <sequenceFlow id="b2" sourceRef="reserve" targetRef="be"/>
  </process>
</definitions>
"""


def test_compensating_through_a_called_process_is_refused_by_run_and_validate(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    (tmp_path / "called.bpmn").write_text(CALLED)
    run = bpmn("run", "called.bpmn")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "called.bpmn:5: Book: compensating the called process 'booking'" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.stdout == ""  # nothing started
    validate = bpmn("validate", "called.bpmn")
    assert validate.returncode == 1
    assert "called.bpmn:5:" in validate.stdout and "error executable" in validate.stdout
    assert "compensating the called process" in validate.stdout
