"""A multi-instance user task from the command line: `bpmn complete` per task, answers lists."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Bpmn

REVIEWS = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="Reviews" isExecutable="true">
    <startEvent id="S"/>
    <userTask id="Review" name="Review">
      <multiInstanceLoopCharacteristics>
        <loopDataInputRef>reviewers</loopDataInputRef>
        <loopDataOutputRef>verdicts</loopDataOutputRef>
        <inputDataItem id="reviewer"/>
        <outputDataItem id="verdict"/>
      </multiInstanceLoopCharacteristics>
    </userTask>
    <endEvent id="E"/>
    <sequenceFlow id="f1" sourceRef="S" targetRef="Review"/>
    <sequenceFlow id="f2" sourceRef="Review" targetRef="E"/>
  </process>
</definitions>
"""
REVIEWERS = ["--var", 'reviewers=["ann","bob","cy"]']


def model(tmp_path: Path) -> str:
    path = tmp_path / "reviews.bpmn"
    path.write_text(REVIEWS, encoding="utf-8")
    return str(path)


def test_each_instance_of_a_user_task_is_completed_by_its_task_id(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given: three waiting reviews
    code, lines = bpmn.json_lines("run", model(tmp_path), *REVIEWERS)
    assert code == 3
    waiting = lines[-1]["waiting_for"]
    assert [w["element"] for w in waiting] == ["Review"] * 3
    instance = lines[-1]["instance"]
    # when: completed by task id, last first
    tasks = sorted(w["task"] for w in waiting)
    for task, verdict in zip(reversed(tasks), ["no", "maybe", "yes"], strict=True):
        code, lines = bpmn.json_lines(
            "complete", instance, str(task), "--var", f'verdict="{verdict}"'
        )
    # then: the verdicts follow the reviewers' order
    assert code == 0
    assert lines[-1]["event"] == "instance.completed"
    assert lines[-1]["variables"]["verdicts"] == ["yes", "maybe", "no"]


def test_completing_by_element_id_takes_the_oldest_waiting_instance(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    _, lines = bpmn.json_lines("run", model(tmp_path), *REVIEWERS)
    instance = lines[-1]["instance"]
    code, lines = bpmn.json_lines("complete", instance, "Review", "--var", 'verdict="first"')
    assert code == 3
    assert len(lines[-1]["waiting_for"]) == 2
    shown = json.loads(bpmn("show", instance, "--json").stdout)
    assert len(shown["tokens"]) == 3  # the body and the two open reviews


def test_an_answers_list_answers_one_instance_each_in_order(bpmn: Bpmn, tmp_path: Path) -> None:
    # given: one answer per review, in a list for the one element
    answers = tmp_path / "answers.json"
    verdicts = [{"verdict": "yes"}, {"verdict": "no"}, {"verdict": "maybe"}]
    answers.write_text(json.dumps({"Review": verdicts}), encoding="utf-8")
    # when
    code, lines = bpmn.json_lines("run", model(tmp_path), *REVIEWERS, "--answers", str(answers))
    # then
    assert code == 0
    assert lines[-1]["variables"]["verdicts"] == ["yes", "no", "maybe"]


def test_too_few_answers_leave_the_rest_waiting(bpmn: Bpmn, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"Review": [{"verdict": "yes"}]}), encoding="utf-8")
    code, lines = bpmn.json_lines("run", model(tmp_path), *REVIEWERS, "--answers", str(answers))
    assert code == 3
    assert len(lines[-1]["waiting_for"]) == 2


def test_validate_and_run_refuse_an_unrunnable_marker_with_file_line_and_element(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given: a multi-instance with complexBehaviorDefinition
    path = tmp_path / "complex.bpmn"
    path.write_text(
        REVIEWS.replace("<loopDataOutputRef>", "<complexBehaviorDefinition/><loopDataOutputRef>"),
        encoding="utf-8",
    )
    # when
    ran = bpmn("run", str(path), *REVIEWERS)
    checked = bpmn("validate", str(path))
    # then
    assert ran.returncode == 2
    assert f"{path}:6: Review: " in ran.stderr
    assert "complexBehaviorDefinition" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert checked.returncode != 0
    assert "complexBehaviorDefinition" in checked.stdout + checked.stderr


def test_validate_and_run_refuse_a_cardinality_beside_an_input_collection(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given: a loopCardinality beside the input collection (the run used to ignore it)
    path = tmp_path / "both.bpmn"
    path.write_text(
        REVIEWS.replace(
            "<loopDataInputRef>", "<loopCardinality>2</loopCardinality><loopDataInputRef>"
        ),
        encoding="utf-8",
    )
    # when
    ran = bpmn("run", str(path), *REVIEWERS)
    checked = bpmn("validate", str(path))
    # then: refused before the first step, and validate says the same at the same place
    assert ran.returncode == 2
    assert f"{path}:6: Review: " in ran.stderr
    assert "both a loopCardinality ('2') and an input collection" in ran.stderr
    assert "keep only one of them" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert checked.returncode == 1
    assert f"{path}:6:7 error executable" in checked.stdout  # at the marker, as run says
    assert "both a loopCardinality ('2') and an input collection" in checked.stdout
