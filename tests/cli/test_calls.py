"""`bpmn run` of several files (call activities) and of collaborations (several pools)."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import FIXTURES, Bpmn

CALLS = FIXTURES / "calls"
CALLER, APPROVAL, PING_PONG = (
    str(CALLS / "caller.bpmn"),
    str(CALLS / "approval.bpmn"),
    str(CALLS / "ping-pong.bpmn"),
)


def test_a_call_into_another_file_runs_and_completes_through_the_root(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines("run", CALLER, APPROVAL)
    assert code == 3  # the tree waits for a person
    root = lines[-1]
    assert (root["event"], root["waiting_for"][0]["reason"]) == (
        "instance.waiting",
        "call activity",
    )
    [child] = {e["instance"] for e in lines} - {root["instance"]}
    # the root's id finds the task in the child it called
    done = bpmn("complete", root["instance"], "approve", "--var", "ok=true")
    assert done.returncode == 0, done.stderr
    assert f"completed instance {root['instance']} at pe" in done.stdout
    shown = bpmn("show", root["instance"])
    assert f"called instance {child} (child) completed" in shown.stdout
    listed = bpmn("instances").stdout
    assert child in listed and listed.count(root["instance"]) == 2  # its row and "called by"


def test_a_called_process_in_no_file_given_is_refused_before_the_run(bpmn: Bpmn) -> None:
    alone = bpmn.cwd / "caller.bpmn"  # no file beside it defines `child`
    alone.write_bytes(Path(CALLER).read_bytes())
    done = bpmn("run", "caller.bpmn")
    assert done.returncode == 2
    assert done.stderr.startswith("error: caller.bpmn:5: call: calls process 'child'")
    assert "Traceback" not in done.stderr


def test_a_deployed_process_is_found_by_a_later_run(bpmn: Bpmn) -> None:
    assert bpmn("deploy", APPROVAL).returncode == 0
    code, lines = bpmn.json_lines("run", CALLER)
    assert code == 3
    assert {e["event"] for e in lines} >= {"instance.started", "element.waiting"}


def test_step_takes_the_called_files_too(bpmn: Bpmn) -> None:
    done = bpmn("step", CALLER, APPROVAL, input="continue\n")
    assert done.returncode == 3, done.stderr
    assert "call" in done.stdout


def test_a_collaboration_runs_every_pool_that_starts_by_itself(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines("run", PING_PONG)
    assert code == 0
    outcomes = [e for e in lines if e["event"] == "instance.completed" and "end_event" in e]
    assert sorted(e["end_event"] for e in outcomes[-2:]) == ["a_end", "b_end"]
    assert lines[-1] == {
        "event": "process.not_started",
        "process": "on_demand",
        "reason": "its start events wait for a trigger (message)",
    }
    people = bpmn("run", PING_PONG).stdout
    assert "started 2 processes: player_a, player_b" in people
    assert "not started: on_demand" in people


def test_process_picks_one_pool(bpmn: Bpmn) -> None:
    code, lines = bpmn.json_lines("run", PING_PONG, "--process", "player_b")
    assert code == 3  # waits for the ping nobody sends
    assert {e["instance"] for e in lines} == {lines[-1]["instance"]}


def test_validate_reports_a_called_process_missing_from_the_files_given(bpmn: Bpmn) -> None:
    (bpmn.cwd / "caller.bpmn").write_bytes(Path(CALLER).read_bytes())  # alone in its folder
    alone = bpmn("validate", "caller.bpmn")
    assert alone.returncode == 1
    assert "error references calledElement 'child' is not defined" in alone.stdout
    assert "[call]" in alone.stdout
    together = bpmn("validate", CALLER, APPROVAL).stdout
    assert "calledElement" not in together


TIMED_CHILD = """<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d2"
  targetNamespace="t">
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="pause"/>
    <intermediateCatchEvent id="pause">
      <timerEventDefinition><timeDuration>PT0.05S</timeDuration></timerEventDefinition>
    </intermediateCatchEvent>
    <sequenceFlow id="c2" sourceRef="pause" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
</definitions>"""


def test_wait_timers_waits_for_a_timer_in_a_called_instance(bpmn: Bpmn) -> None:
    child = bpmn.cwd / "timed-child.bpmn"
    child.write_text(TIMED_CHILD)
    code, lines = bpmn.json_lines("run", CALLER, str(child), "--wait-timers", "PT1M")
    assert code == 0, lines
    assert (lines[-1]["event"], lines[-1]["end_event"]) == ("instance.completed", "pe")
    fired = [e for e in lines if e["event"] == "timer.fired"]
    assert [e["element"] for e in fired] == ["pause"]
    waited = bpmn.json_lines("run", CALLER, str(child))[1][-1]
    assert waited["waiting_for"][0]["reason"] == "call activity"  # without it, the tree waits


FAILING_CHILD = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    <callActivity id="call" calledElement="child"/>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="boom"/>
    <scriptTask id="boom" scriptFormat="python"><script>y = 1 / x</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="boom" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
</definitions>
"""


def test_an_incident_in_a_called_instance_fails_the_run(bpmn: Bpmn) -> None:
    path = bpmn.cwd / "failing.bpmn"
    path.write_text(FAILING_CHILD)
    code, lines = bpmn.json_lines("run", str(path), "--var", "x=0")
    assert code == 1  # it was 3, "waiting", while the child had failed
    root = lines[-1]
    [child] = {e["instance"] for e in lines} - {root["instance"]}
    assert root["event"] == "instance.failed"
    assert root["incident"] == (
        f"call: called instance {child} (process 'child') failed at boom: "
        "script failed: division by zero"
    )
    shown = bpmn("run", str(path), "--var", "x=0")  # for people: resume where the incident is
    assert shown.returncode == 1
    called = re.search(r"called instance (\w+) \(child\) failed", shown.stdout)
    assert called is not None
    hints = re.findall(r"fix the cause, then: bpmn resume (\w+)", shown.stdout)
    assert hints == [called.group(1), called.group(1)]  # the root's hint and the child's
    refused = bpmn("resume", root["instance"])
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert f"fix and resume {child}, where the incident is" in refused.stderr
    resumed = bpmn("resume", child, "--var", "x=2")
    assert resumed.returncode == 0, resumed.stderr
    after = bpmn("show", root["instance"])
    assert f"instance {root['instance']} of parent: completed" in after.stdout
