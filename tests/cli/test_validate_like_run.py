"""`bpmn validate` names the line `bpmn run` names for the same bad condition, and goes on
past a broken reference to the findings behind it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.conftest import Bpmn

HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
             id="d" targetNamespace="http://example.com/lines">
  <process id="p" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="split"/>
    <exclusiveGateway id="split" default="f3"/>
"""
TAIL = """
    <sequenceFlow id="f3" sourceRef="split" targetRef="done"/>
    <endEvent id="done"/>
  </process>
</definitions>
"""
# the bad condition's flow, written as modelers and people do; the line to edit is marked
CONDITION = "<conditionExpression LANGUAGE>CONDITION</conditionExpression>"
FLOWS = {
    "flow over several lines, condition on its own line": (
        '    <sequenceFlow id="f2"\n'
        '                  sourceRef="split"\n'
        '                  targetRef="done">\n'
        f"      {CONDITION} <!--!-->\n"
        "    </sequenceFlow>"
    ),
    "condition's start tag over two lines": (
        '    <sequenceFlow id="f2" sourceRef="split" targetRef="done">\n'
        '      <conditionExpression xsi:type="tFormalExpression"\n'
        "          LANGUAGE>CONDITION</conditionExpression> <!--!-->\n"
        "    </sequenceFlow>"
    ),
    "condition on the line where the flow's start tag ends": (
        '    <sequenceFlow id="f2"\n'
        f'        sourceRef="split" targetRef="done">{CONDITION} <!--!-->\n'
        "    </sequenceFlow>"
    ),
    "all on one line": (
        f'    <sequenceFlow id="f2" sourceRef="split" targetRef="done">{CONDITION}'
        "</sequenceFlow> <!--!-->"
    ),
}
CONDITIONS = {  # condition, language attribute, what both say
    "syntax error": ("${amount &gt;}", "", "JUEL: unexpected"),
    "unknown language": ("amount &gt; 1", 'language="cobol"', "'cobol' is not supported"),
}


def diagram(flow: str, condition: str, language: str) -> tuple[str, int]:
    """The file, and the line of the mark."""
    text = HEAD + flow.replace("CONDITION", condition).replace("LANGUAGE", language) + TAIL
    marked = next(n for n, line in enumerate(text.splitlines(), 1) if "<!--!-->" in line)
    return text, marked


@pytest.mark.parametrize("condition", CONDITIONS)
@pytest.mark.parametrize("flow", FLOWS)
def test_run_and_validate_name_the_same_line_for_a_bad_condition(
    bpmn: Bpmn, tmp_path: Path, flow: str, condition: str
) -> None:
    # given
    text, line = diagram(FLOWS[flow], *CONDITIONS[condition][:2])
    (tmp_path / "order.bpmn").write_text(text, encoding="utf-8")
    said = CONDITIONS[condition][2]
    # when
    ran = bpmn("run", "order.bpmn", "--db", "runs.db")
    checked = bpmn("validate", "order.bpmn", "--preset", "correctness")
    # then: both name the condition's line
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert f"order.bpmn:{line}: f2: " in ran.stderr and said in ran.stderr
    assert checked.returncode == 1, checked.stdout + checked.stderr
    [finding] = [row for row in checked.stdout.splitlines() if " executable " in row]
    assert re.match(rf"order\.bpmn:{line}(:\d+)? error executable condition", finding), finding
    assert said in finding and finding.endswith("[f2]")
    assert "Traceback" not in ran.stderr + checked.stderr


def test_validate_goes_on_past_a_broken_reference(bpmn: Bpmn, tmp_path: Path) -> None:
    # given: a flow to nowhere, a condition that does not compile, and a deadlock (a
    # warning: it needs a decision the conditions may rule out)
    (tmp_path / "order.bpmn").write_text(
        HEAD
        + """    <sequenceFlow id="f2" sourceRef="split" targetRef="a">
      <conditionExpression>${amount &gt;}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="f4" sourceRef="split" targetRef="b"/>
    <task id="a"/>
    <task id="b"/>
    <sequenceFlow id="f5" sourceRef="a" targetRef="join"/>
    <sequenceFlow id="f6" sourceRef="b" targetRef="join"/>
    <parallelGateway id="join"/>
    <sequenceFlow id="f7" sourceRef="join" targetRef="done"/>
    <sequenceFlow id="stray" sourceRef="b" targetRef="Nowhere"/>"""
        + TAIL,
        encoding="utf-8",
    )
    # when
    checked = bpmn("validate", "order.bpmn", "--preset", "correctness")
    # then
    assert checked.returncode == 1
    rules = {row.split()[2]: row for row in checked.stdout.splitlines() if ".bpmn:" in row}
    assert "targetRef 'Nowhere' is not defined [stray]" in rules["references"]
    assert "condition does not compile" in rules["executable"]
    assert rules["deadlock"].endswith("[join]")
    assert "Traceback" not in checked.stdout + checked.stderr
