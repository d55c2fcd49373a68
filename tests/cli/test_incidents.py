"""`bpmn incidents` and `bpmn retry` (issue 28, item 3): incidents as records across
instances, each with its id, element, kind, tries and error; `bpmn retry INCIDENT|INSTANCE`
runs the stopped token again with the fix, whether or not its instance stopped."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from tests.cli.conftest import Bpmn

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="review" isExecutable="true">
    <startEvent id="s"/><parallelGateway id="f"/><parallelGateway id="j"/>
    <scriptTask id="score" scriptFormat="python"><script>score = 10 / weight</script></scriptTask>
    <userTask id="ask"/>
    <endEvent id="e"/>
    <sequenceFlow id="a" sourceRef="s" targetRef="f"/>
    <sequenceFlow id="b" sourceRef="f" targetRef="score"/>
    <sequenceFlow id="c" sourceRef="f" targetRef="ask"/>
    <sequenceFlow id="d1" sourceRef="score" targetRef="j"/>
    <sequenceFlow id="d2" sourceRef="ask" targetRef="j"/>
    <sequenceFlow id="g" sourceRef="j" targetRef="e"/>
  </process>
</definitions>
"""


def test_incidents_are_listed_and_retried_by_id(bpmn: Bpmn, tmp_path: Path) -> None:
    # given: two instances whose script fails while their user task waits
    (tmp_path / "review.bpmn").write_text(MODEL, encoding="utf-8")
    ran = [bpmn.json_lines("run", "review.bpmn", "--db", "t.db", "--var", "weight=0") for _ in "ab"]
    assert [code for code, _ in ran] == [1, 1]  # an open incident: exit 1, though waiting
    first, second = (str(events[-1]["instance"]) for _, events in ran)
    # when
    code, listed = bpmn.json_lines("incidents", "--db", "t.db")
    _, only = bpmn.json_lines("incidents", "--db", "t.db", "--instance", second)
    table = bpmn("incidents", "--db", "t.db")
    # then
    assert code == 0
    assert [(i["instance"], i["element"], i["kind"]) for i in listed] == [
        (first, "score", "step"),
        (second, "score", "step"),
    ]
    assert all("division by zero" in i["message"] and not i["instance_failed"] for i in listed)
    assert [i["incident"] for i in only] == [listed[1]["incident"]]
    assert listed[0]["incident"] in table.stdout and "bpmn retry" in table.stdout
    # when: the first is retried with the fix, by its id
    retried = bpmn("retry", listed[0]["incident"], "--db", "t.db", "--var", "weight=4")
    # then: it ran on to the user task; the other instance's incident is still open
    assert retried.returncode == 3, retried.stderr
    with Engine(str(tmp_path / "t.db")) as engine:
        assert engine.instance(first).variables["score"] == 2.5
        assert [i.instance for i in engine.incidents()] == [second]
    # and an incident id that is no longer open is bad input, naming it
    again = bpmn("retry", listed[0]["incident"], "--db", "t.db")
    assert again.returncode == 2 and "is no open incident" in again.stderr
    assert "Traceback" not in again.stderr


def test_an_instance_stopped_on_its_incident_is_retried_by_its_id(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    (tmp_path / "review.bpmn").write_text(MODEL, encoding="utf-8")
    _, events = bpmn.json_lines("run", "review.bpmn", "--db", "t.db", "--var", "weight=0")
    instance = str(events[-1]["instance"])
    done = bpmn("complete", instance, "ask", "--db", "t.db")
    assert done.returncode == 1 and "failed" in done.stdout  # nothing else can go on
    _, [incident] = bpmn.json_lines("incidents", "--db", "t.db")
    assert incident["instance_failed"] is True
    finished = bpmn("retry", instance, "--db", "t.db", "--var", "weight=5")
    assert finished.returncode == 0, finished.stderr
    _, none = bpmn.json_lines("incidents", "--db", "t.db")
    assert none == []
    _, [over] = bpmn.json_lines("incidents", "--resolved", "--db", "t.db")
    assert over["incident"] == incident["incident"] and over["resolved_at"] is not None
    assert not over["instance_failed"]
    assert "resolved" in bpmn("incidents", "--resolved", "--db", "t.db").stdout
