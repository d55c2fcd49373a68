"""A broken reference is reported by `references`, and the later layers still check the rest.

The parser refuses a file whose sequence flow, `default` or boundary event names nothing; the
`executable` and soundness layers check the model without it, so that one typo does not hide
a deadlock or a condition that does not compile.
"""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Finding

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'id="d" targetNamespace="http://example.com/broken">\n'
    '<process id="p" isExecutable="true">\n'
)
# an exclusive split joined by a parallel gateway: a deadlock; one condition does not compile
DEADLOCK = """<startEvent id="start" name="Start"/>
<sequenceFlow id="f1" sourceRef="start" targetRef="split"/>
<exclusiveGateway id="split" name="Which?"/>
<sequenceFlow id="f2" sourceRef="split" targetRef="a" name="big">
  <conditionExpression>${amount &gt;}</conditionExpression>
</sequenceFlow>
<sequenceFlow id="f3" sourceRef="split" targetRef="b" name="small">
  <conditionExpression>${amount &lt; 10}</conditionExpression>
</sequenceFlow>
<task id="a" name="A"/>
<task id="b" name="B"/>
<sequenceFlow id="f4" sourceRef="a" targetRef="join"/>
<sequenceFlow id="f5" sourceRef="b" targetRef="join"/>
<parallelGateway id="join"/>
<sequenceFlow id="f6" sourceRef="join" targetRef="end"/>
<endEvent id="end" name="End"/>
"""


def write(folder: Path, body: str) -> Path:
    path = folder / "diagram.bpmn"
    path.write_text(f"{HEAD}{body}\n</process>\n</definitions>\n", "utf-8")
    return path


def found(path: Path, preset: str = "correctness") -> list[tuple[str, str | None]]:
    return [(f.rule, f.element) for f in findings(path, preset)]


def findings(path: Path, preset: str = "correctness") -> list[Finding]:
    return validate([path], preset=preset).findings


def test_a_broken_target_hides_no_deadlock_condition_or_lint_finding(tmp_path: Path) -> None:
    # given: the deadlocking diagram, and one flow whose target names nothing
    broken = '<sequenceFlow id="stray" sourceRef="a" targetRef="Nowhere"/>'
    # when
    report = found(write(tmp_path, DEADLOCK + broken), preset="recommended")
    # then: the reference, and each finding of the same file without it
    assert ("references", "stray") in report
    assert ("deadlock", "join") in report
    assert ("executable", "f2") in report  # the condition `${amount >}`
    assert ("no-implicit-split", "a") in report  # `a` leaves by f4 and by the stray flow
    assert report.count(("references", "stray")) == 1
    assert not [f for f in report if f[0] == "rule-error"]


def test_the_node_a_broken_source_left_alone_is_not_reported_dead(tmp_path: Path) -> None:
    # given: `late` is entered only by a flow from nowhere
    body = DEADLOCK + (
        '<sequenceFlow id="stray" sourceRef="Ghost" targetRef="late"/>'
        '<task id="late" name="Late"/><sequenceFlow id="f7" sourceRef="late" targetRef="end"/>'
    )
    # when
    report = found(write(tmp_path, body))
    # then: the broken source once, no echo of it as a dead task; the deadlock still found
    assert [f for f in report if f[1] in ("stray", "late")] == [("references", "stray")]
    assert ("deadlock", "join") in report


def test_a_broken_default_and_boundary_leave_the_rest_checked(tmp_path: Path) -> None:
    # given: a default flow and a boundary event that name nothing, and a script that
    # does not compile
    body = """<startEvent id="start" name="Start"/>
<sequenceFlow id="f1" sourceRef="start" targetRef="gate"/>
<exclusiveGateway id="gate" name="Go?" default="Missing"/>
<sequenceFlow id="f2" sourceRef="gate" targetRef="calc"/>
<scriptTask id="calc" name="Calc" scriptFormat="python"><script>x = (</script></scriptTask>
<boundaryEvent id="late" name="Late" attachedToRef="Nothing">
  <timerEventDefinition><timeDuration>PT1M</timeDuration></timerEventDefinition>
</boundaryEvent>
<sequenceFlow id="f3" sourceRef="late" targetRef="timedOut"/>
<endEvent id="timedOut" name="Timed out"/>
<sequenceFlow id="f4" sourceRef="calc" targetRef="end"/>
<endEvent id="end" name="End"/>"""
    # when
    report = found(write(tmp_path, body))
    # then
    assert ("references", "gate") in report
    assert ("references", "late") in report
    assert ("executable", "calc") in report
    # what only the left-out boundary event reaches is not reported again
    assert not [f for f in report if f[1] == "timedOut" and f[0] == "dead-element"]


def test_a_message_that_names_nothing_is_reported_once(tmp_path: Path) -> None:
    # given: a catch event whose messageRef names nothing, beside the deadlock
    body = DEADLOCK.replace(
        '<task id="b" name="B"/>',
        '<intermediateCatchEvent id="b" name="B"><messageEventDefinition messageRef="Gone"/>'
        "</intermediateCatchEvent>",
    )
    # when
    report = findings(write(tmp_path, body))
    # then: `references` says it; no later layer says it again
    about_gone = [f for f in report if "Gone" in f.message]
    assert [(f.rule, f.element) for f in about_gone] == [("references", "b")]
    assert ("deadlock", "join") in [(f.rule, f.element) for f in report]


def test_a_file_that_is_not_xml_stops_at_parse(tmp_path: Path) -> None:
    path = tmp_path / "diagram.bpmn"
    path.write_text(f"{HEAD}{DEADLOCK}<unclosed>", "utf-8")
    assert [f.rule for f in findings(path)] == ["parse"]
