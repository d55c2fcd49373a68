"""`bpmn run` and `bpmn step` of a process whose start events wait for a timer or a condition,
and `--start EVENT`, which fires one start event now."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Bpmn

STARTS = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M_paid" name="paid"/>
  <process id="p" isExecutable="true">
    START
    <endEvent id="E"/>
  </process>
</definitions>
"""


def write(tmp_path: Path, *starts: tuple[str, str]) -> str:
    """A process with these start events ((id, inner XML)), each flowing to the end event."""
    body = "".join(
        f'<startEvent id="{i}" name="{i} start">{inner}</startEvent>'
        f'<sequenceFlow id="f_{i}" sourceRef="{i}" targetRef="E"/>'
        for i, inner in starts
    )
    path = tmp_path / "starts.bpmn"
    path.write_text(STARTS.replace("START", body))
    return str(path)


def timer(what: str, value: str) -> str:
    return f"<timerEventDefinition><{what}>{value}</{what}></timerEventDefinition>"


CONDITION = (
    "<conditionalEventDefinition><condition>amount &gt; 100</condition>"
    "</conditionalEventDefinition>"
)
MESSAGE = '<messageEventDefinition messageRef="M_paid"/>'


def test_a_timer_start_fires_at_once_with_the_virtual_clock(bpmn: Bpmn, tmp_path: Path) -> None:
    path = write(tmp_path, ("T", timer("timeCycle", "R/P1D")))
    code, lines = bpmn.json_lines("run", path, "--clock", "virtual")
    assert code == 0  # it was refused (2) before: no none start event
    assert [e["element"] for e in lines if e["event"] == "timer.fired"] == ["T"]
    assert lines[-1]["end_event"] == "E"
    people = bpmn("run", path, "--clock", "virtual")
    assert people.returncode == 0
    assert "fires no more" in people.stdout and "bpmn deploy" in people.stdout


def test_a_timer_start_due_later_waits_and_says_how_to_go_on(bpmn: Bpmn, tmp_path: Path) -> None:
    path = write(tmp_path, ("T", timer("timeDate", "2999-01-01T00:00:00Z")))
    done = bpmn("run", path)
    assert done.returncode == 3, done.stderr
    instance = done.stdout.split("waiting instance ")[1].split()[0]
    assert "waiting to start: at its start event T, until it fires" in done.stdout
    assert f"bpmn resume {instance} once it is due" in " ".join(done.stdout.split())


def test_a_conditional_start_waits_then_resume_with_the_variable_starts_it(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    path = write(tmp_path, ("C", CONDITION), ("M", MESSAGE))
    assert bpmn("run", path, "--var", "amount=500").returncode == 0  # it holds at once
    done = bpmn("run", path, "--var", "amount=5")
    assert done.returncode == 3, done.stderr
    instance = done.stdout.split("waiting instance ")[1].split()[0]
    said = " ".join(done.stdout.split())
    assert "waiting to start: at its start events C, M; the first to fire starts it" in said
    assert "waiting for condition 'amount > 100' at C to hold" in said
    assert f"bpmn resume {instance} --var NAME=VALUE" in said
    assert "bpmn message paid" in said
    assert said.count("at C") == 1  # listed once, not again for its token
    code, lines = bpmn.json_lines("resume", instance, "--var", "amount=500")
    assert code == 0
    assert (lines[-1]["event"], lines[-1]["end_event"]) == ("instance.completed", "E")
    assert [e["element"] for e in lines if e["event"] == "element.terminated"] == ["M"]


def test_start_fires_the_start_event_named_with_the_variables(bpmn: Bpmn, tmp_path: Path) -> None:
    path = write(tmp_path, ("M", MESSAGE), ("C", CONDITION))
    code, lines = bpmn.json_lines("run", path, "--start", "M start", "--var", "amount=5")
    assert code == 0
    [fired] = [e for e in lines if e["event"] == "message.received"]
    assert (fired["element"], fired["name"], fired["on_request"]) == ("M", "paid", True)
    assert (lines[-1]["end_event"], lines[-1]["variables"]) == ("E", {"amount": 5})


def test_start_of_an_element_that_is_no_start_event_is_refused(bpmn: Bpmn, tmp_path: Path) -> None:
    path = write(tmp_path, ("M", MESSAGE), ("C", CONDITION))
    for event, said in (("E", "'E' (endEvent) is not a start event"), ("X", "no start event")):
        done = bpmn("run", path, "--start", event)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert said in done.stderr
        assert "M ('M start', message), C ('C start', conditional)" in done.stderr
    assert bpmn("instances", "--json").stdout == ""  # nothing was started


def test_step_starts_waiting_at_a_timer_start_or_fires_one_with_start(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    path = write(tmp_path, ("T", timer("timeDuration", "PT1H")), ("C", CONDITION))
    done = bpmn("step", path, "--var", "amount=5", "--json", input="advance PT1H\ncontinue\n")
    assert done.returncode == 0, done.stderr + done.stdout
    assert '"timer.fired"' in done.stdout
    done = bpmn("step", path, "--start", "C", "--json", input="continue\n")
    assert done.returncode == 0, done.stderr + done.stdout
    instance = json.loads(done.stdout.splitlines()[0])["result"].split()[1]
    history = [e["event"] for e in json.loads(bpmn("show", instance, "--json").stdout)["history"]]
    assert "conditional.received" in history and "timer.scheduled" not in history
