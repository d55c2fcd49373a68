"""The task list across instances (`Engine.tasks`): who each open user task is for, as the
diagram named it when the task was created, found by one indexed query on each store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bpmn_engine import Engine, OpenTask, VirtualClock
from tests.postgresql_server import scratch_db
from tests.runtime.conftest import Bpmn, MakeEngine, flow

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def one_task(task: str) -> str:
    """start -> `task` (a userTask element, id T) -> end."""
    return f'<startEvent id="S"/>{task}<endEvent id="E"/>{flow("S", "T")}{flow("T", "E")}'


APPROVE = one_task(
    '<userTask id="T" name="Approve" camunda:assignee="${boss}" '
    'camunda:candidateUsers="ann, ${deputy}" camunda:candidateGroups="sales, ${region}-leads">'
    '<extensionElements><camunda:formData><camunda:formField id="ok" type="boolean" '
    'label="OK?"/></camunda:formData></extensionElements></userTask>'
)


def test_a_camunda_task_records_its_assignee_and_candidates_evaluated_at_creation(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    engine = make_engine(clock=VirtualClock(START))
    variables = {"boss": "mary", "deputy": "dan", "region": "eu"}
    instance = engine.start(bpmn(APPROVE), variables=variables, business_key="ORDER-1")
    instance.run()
    [task] = engine.tasks()
    assert task == OpenTask(
        instance=instance.id,
        task=1,
        element="T",
        name="Approve",
        process="p",
        business_key="ORDER-1",
        definition_version=instance.definition_version,
        assignee="mary",
        candidate_users=("ann", "dan"),
        candidate_groups=("sales", "eu-leads"),
        created_at="2026-03-01T09:00:00.000+00:00",
        form_fields=task.form_fields,
    )
    assert [(f.id, f.type, f.label) for f in task.form_fields] == [("ok", "boolean", "OK?")]
    assert task.to_json()["form_fields"] == [{"id": "ok", "label": "OK?", "type": "boolean"}]
    assert task.to_json()["candidate_groups"] == ["sales", "eu-leads"]


def test_the_list_spans_instances_oldest_first_and_filters_by_process_assignee_and_group(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    clock = VirtualClock(START)
    engine = make_engine(clock=clock)
    approve = bpmn(APPROVE)
    other = bpmn(
        one_task('<userTask id="T" camunda:candidateGroups="eu-leads"/>'),
        process='id="q" isExecutable="true"',
    )
    first = engine.start(approve, variables={"boss": "mary", "deputy": "x", "region": "eu"})
    first.run()
    clock.advance_to(START + timedelta(minutes=5))
    second = engine.start(approve, variables={"boss": "tom", "deputy": "x", "region": "us"})
    second.run()
    clock.advance_to(START + timedelta(minutes=10))
    third = engine.start(other)
    third.run()

    def ids(**filters: str) -> list[str]:
        return [t.instance for t in engine.tasks(**filters)]

    assert ids() == [first.id, second.id, third.id]
    assert ids(process="p") == [first.id, second.id]
    assert ids(assignee="tom") == [second.id]
    assert ids(group="eu-leads") == [first.id, third.id]
    assert ids(group="eu-leads", process="q") == [third.id]
    assert ids(group="eu") == []  # a whole name, never a part of one
    assert ids(group="sales,eu-leads") == []  # one group, never a list
    assert ids(assignee="nobody") == []
    # a completed task, and every task of an instance that ended, leave the list
    second.complete_task(1, {"ok": True})
    second.run()
    third.cancel()
    assert ids() == [first.id]


def test_zeebe_activiti_flowable_and_bpmn_performers_name_people_too(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path
) -> None:
    engine = make_engine()
    zeebe_static = bpmn(
        one_task(
            '<userTask id="T"><extensionElements><zeebe:userTask/><zeebe:assignmentDefinition '
            'assignee="kim" candidateGroups="sales, support" candidateUsers="ann"/>'
            "</extensionElements></userTask>"
        )
    )
    zeebe_feel = bpmn(
        one_task(
            '<userTask id="T"><extensionElements><zeebe:assignmentDefinition assignee="=owner" '
            'candidateGroups=\'=[region + "-leads", "all"]\'/></extensionElements></userTask>'
        )
    )
    performers = bpmn(
        one_task(
            '<userTask id="T"><humanPerformer><resourceAssignmentExpression><formalExpression>'
            "${owner}</formalExpression></resourceAssignmentExpression></humanPerformer>"
            "<potentialOwner><resourceAssignmentExpression><formalExpression>user(kermit), "
            "group(management), clerks</formalExpression></resourceAssignmentExpression>"
            "</potentialOwner></userTask>"
        )
    )
    flowable = tmp_path / "flowable.bpmn"
    flowable.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'xmlns:flowable="http://flowable.org/bpmn" '
        'xmlns:activiti="http://activiti.org/bpmn" id="d" targetNamespace="t">'
        '<process id="p" isExecutable="true">'
        + one_task('<userTask id="T" flowable:assignee="${owner}" activiti:candidateGroups="hr"/>')
        + "</process></definitions>",
        encoding="utf-8",
    )
    found = {}
    for name, path in (
        ("zeebe", zeebe_static),
        ("feel", zeebe_feel),
        ("performers", performers),
        ("flowable", flowable),
    ):
        instance = engine.start(path, variables={"owner": "olga", "region": "eu"})
        instance.run()
        [task] = [t for t in engine.tasks() if t.instance == instance.id]
        found[name] = (task.assignee, task.candidate_users, task.candidate_groups)
    assert found == {
        "zeebe": ("kim", ("ann",), ("sales", "support")),
        "feel": ("olga", (), ("eu-leads", "all")),
        "performers": ("olga", ("kermit",), ("management", "clerks")),
        "flowable": ("olga", (), ("hr",)),
    }


def test_an_assignment_that_cannot_be_evaluated_is_left_out_with_a_warning(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    """Not enforced, so not worth an incident: the task waits, unassigned."""
    engine = make_engine()
    instance = engine.start(bpmn(APPROVE), variables={"region": "eu"})
    assert instance.run().state == "waiting"
    [task] = engine.tasks()
    assert (task.assignee, task.candidate_users) == (None, ("ann",))
    warnings = [e.data["message"] for e in instance.history() if e.event == "warning"]
    assert any("${boss}" in w and "created without it" in w for w in warnings)
    assert any("${deputy}" in w for w in warnings)


def test_a_list_value_gives_several_candidates_and_the_assignee_is_one_name(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    engine = make_engine()
    path = bpmn(
        one_task(
            '<userTask id="T" camunda:assignee="${people}" '
            'camunda:candidateUsers="${people}" camunda:candidateGroups="${groups}"/>'
        )
    )
    instance = engine.start(path, variables={"people": ["a", "b", "a"], "groups": "x, y"})
    instance.run()
    [task] = engine.tasks()
    assert (task.assignee, task.candidate_users, task.candidate_groups) == (
        None,
        ("a", "b"),
        ("x", "y"),
    )
    warnings = [e.data["message"] for e in instance.history() if e.event == "warning"]
    assert any("the assignee is one name" in w for w in warnings)


def test_the_number_listed_completes_the_task_even_in_a_called_instance(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    path = tmp_path / "calls.bpmn"
    path.write_text(
        '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">'
        '<process id="top" isExecutable="true"><startEvent id="S1"/>'
        '<userTask id="Own" camunda:assignee="top-user"/>'
        '<callActivity id="C" calledElement="leaf"/><endEvent id="E1"/>'
        '<parallelGateway id="F"/><parallelGateway id="J"/>'
        f"{flow('S1', 'F')}{flow('F', 'Own')}{flow('F', 'C')}{flow('Own', 'J')}"
        f"{flow('C', 'J')}{flow('J', 'E1')}</process>"
        '<process id="leaf" isExecutable="true"><startEvent id="S2"/>'
        '<userTask id="Review" camunda:candidateGroups="reviewers"/><endEvent id="E2"/>'
        f"{flow('S2', 'Review')}{flow('Review', 'E2')}</process></definitions>",
        encoding="utf-8",
    )
    engine = make_engine()
    top = engine.start(path, "top")
    top.run()
    [leaf_task] = engine.tasks(group="reviewers")
    assert leaf_task.instance != top.id and leaf_task.process == "leaf"
    [own] = engine.tasks(assignee="top-user")
    assert own.instance == top.id and own.task == leaf_task.task == 1  # numbers per instance
    called = engine.instance(leaf_task.instance)
    called.complete_task(leaf_task.task)
    called.run()
    assert [t.element for t in engine.tasks()] == ["Own"]
    top = engine.instance(top.id)
    top.complete_task(own.task)
    assert top.run().state == "completed"
    assert engine.tasks() == []


def test_the_list_loads_no_instance(
    bpmn: Bpmn, make_engine: MakeEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One query across instances: listing never rebuilds an instance from its rows."""
    engine = make_engine()
    for n in range(3):
        engine.start(bpmn(APPROVE), variables={"boss": f"b{n}", "deputy": "d", "region": "r"}).run()

    def refused(instance_id: str) -> None:
        raise AssertionError(f"loaded instance {instance_id}")

    monkeypatch.setattr(engine.store, "load", refused)
    assert [t.assignee for t in engine.tasks()] == ["b0", "b1", "b2"]


def test_a_rewound_completion_brings_the_task_back_with_its_people(bpmn: Bpmn) -> None:
    with Engine(scratch_db(), undo=True, clock=VirtualClock(START)) as engine:
        instance = engine.start(
            bpmn(APPROVE), variables={"boss": "mary", "deputy": "dan", "region": "eu"}
        )
        instance.run()
        before = engine.tasks()
        instance.complete_task("T", {"ok": True})
        assert engine.tasks() == []
        engine.rewind(instance.id)
        assert engine.tasks() == before
        assert before[0].assignee == "mary" and before[0].created_at is not None
