"""`bpmn tasks`: every open user task of every active instance, and `bpmn complete` taking
a task from it; `bpmn instances` naming each instance's definitions version."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Bpmn

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <process id="invoice" isExecutable="true">
    <startEvent id="S"/>
    <userTask id="Approve" name="Approve invoice" camunda:assignee="${clerk}"
        camunda:candidateGroups="accounting, ${region}-managers">
      <extensionElements><camunda:formData>
        <camunda:formField id="approved" label="Approved?" type="boolean"/>
      </camunda:formData></extensionElements>
    </userTask>
    <endEvent id="E"/>
    <sequenceFlow id="f1" sourceRef="S" targetRef="Approve"/>
    <sequenceFlow id="f2" sourceRef="Approve" targetRef="E"/>
  </process>
</definitions>
"""


def started(bpmn: Bpmn, *args: str) -> str:
    code, events = bpmn.json_lines("run", "invoice.bpmn", "--db", "t.db", *args)
    assert code == 3  # waits at the user task
    return str(events[-1]["instance"])


def test_bpmn_tasks_lists_open_tasks_across_instances_and_complete_takes_one(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given: two instances waiting at their approval, for different people
    (tmp_path / "invoice.bpmn").write_text(MODEL, encoding="utf-8")
    first = started(bpmn, "--var", "clerk=ann", "--var", "region=eu", "--business-key", "INV-1")
    second = started(bpmn, "--var", "clerk=bob", "--var", "region=us")
    # when
    code, listed = bpmn.json_lines("tasks", "--db", "t.db")
    _, managers = bpmn.json_lines("tasks", "--db", "t.db", "--group", "us-managers")
    _, bobs = bpmn.json_lines("tasks", "--db", "t.db", "--assignee", "bob")
    _, none = bpmn.json_lines("tasks", "--db", "t.db", "--process", "other")
    table = bpmn("tasks", "--db", "t.db")
    # then
    assert code == 0
    assert [(t["instance"], t["task"], t["element"]) for t in listed] == [
        (first, 1, "Approve"),
        (second, 1, "Approve"),
    ]
    assert listed[0]["assignee"] == "ann" and listed[0]["business_key"] == "INV-1"
    assert listed[0]["candidate_groups"] == ["accounting", "eu-managers"]
    assert listed[0]["form_fields"] == [{"id": "approved", "label": "Approved?", "type": "boolean"}]
    assert listed[0]["process"] == "invoice" and listed[0]["created_at"]
    assert [t["instance"] for t in managers] == [t["instance"] for t in bobs] == [second]
    assert none == []
    assert table.returncode == 0
    for shown in (first, "INV-1", "Approve (Approve invoice)", "ann", "eu-managers", "approved"):
        assert shown in table.stdout
    assert f"bpmn complete {first} 1 --db t.db" in table.stdout
    # and the number listed completes that task: it leaves the list, the other stays
    done = bpmn("complete", first, "1", "--var", "approved=true", "--db", "t.db")
    assert done.returncode == 0, done.stderr
    _, left = bpmn.json_lines("tasks", "--db", "t.db")
    assert [t["instance"] for t in left] == [second]


def test_bpmn_tasks_says_when_there_is_none(bpmn: Bpmn, tmp_path: Path) -> None:
    (tmp_path / "invoice.bpmn").write_text(MODEL, encoding="utf-8")
    started(bpmn, "--var", "clerk=ann", "--var", "region=eu")
    empty = bpmn("tasks", "--db", "t.db", "--assignee", "nobody")
    assert empty.returncode == 0
    assert "no open user task matches" in empty.stdout


def test_bpmn_instances_names_the_version_when_a_process_runs_on_several(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    (tmp_path / "invoice.bpmn").write_text(MODEL, encoding="utf-8")
    old = started(bpmn, "--var", "clerk=ann", "--var", "region=eu")
    one_version = bpmn("instances", "--db", "t.db")
    (tmp_path / "invoice.bpmn").write_text(MODEL.replace("Approve invoice", "Approve it"))
    new = started(bpmn, "--var", "clerk=ann", "--var", "region=eu")
    _, rows = bpmn.json_lines("instances", "--db", "t.db")
    table = bpmn("instances", "--db", "t.db")
    versions = {row["instance"]: row["definition"] for row in rows}
    assert versions.keys() == {old, new} and versions[old] != versions[new]
    assert "version" not in one_version.stdout
    assert "version" in table.stdout
    for instance, version in versions.items():
        [line] = [line for line in table.stdout.splitlines() if instance in line]
        assert version[:8] in line
