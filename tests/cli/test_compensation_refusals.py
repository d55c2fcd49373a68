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
