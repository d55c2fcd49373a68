"""Multi-instance activities: a body around inner instances, parallel or sequential."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine
from tests.runtime.conftest import Bpmn, activations, events_named, flow


def around(activity: str, activity_id: str = "A", after: str = "") -> str:
    """S -> activity -> E (with `after`: extra elements such as boundary events)."""
    return (
        '<startEvent id="S"/>'
        + activity
        + after
        + '<endEvent id="E"/>'
        + flow("S", activity_id)
        + flow(activity_id, "E")
    )


def mi(inner: str = "", sequential: bool = False) -> str:
    flag = "true" if sequential else "false"
    return (
        f'<multiInstanceLoopCharacteristics isSequential="{flag}">{inner}'
        "</multiInstanceLoopCharacteristics>"
    )


def mi_script(code: str, loop: str) -> str:
    text = code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<scriptTask id="A" scriptFormat="python">{loop}<script>{text}</script></scriptTask>'


BPMN_COLLECTION = (
    "<loopDataInputRef>items</loopDataInputRef>"
    "<loopDataOutputRef>results</loopDataOutputRef>"
    '<inputDataItem id="item"/><outputDataItem id="result"/>'
)


@pytest.mark.parametrize("sequential", [False, True], ids=["parallel", "sequential"])
def test_each_item_runs_once_and_the_outputs_keep_the_input_order(
    bpmn: Bpmn, engine: Engine, sequential: bool
):
    # given: a script task run for each item, collecting item * 10
    path = bpmn(around(mi_script("result = item * 10", mi(BPMN_COLLECTION, sequential))))
    # when
    outcome = engine.start(path, variables={"items": [3, 1, 2]}).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["results"] == [30, 10, 20]
    assert "item" not in outcome.variables and "result" not in outcome.variables
    assert "loopCounter" not in outcome.variables


def test_a_cardinality_runs_that_many_instances_with_a_one_based_loop_counter(
    bpmn: Bpmn, engine: Engine
):
    # given: three instances, each appending its loopCounter (plain BPMN counts from 1)
    loop = mi("<loopCardinality>n</loopCardinality>", sequential=True)
    path = bpmn(around(mi_script("seen = seen + [loopCounter]", loop)))
    # when
    instance = engine.start(path, variables={"n": 3, "seen": []})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["seen"] == [1, 2, 3]
    assert activations(instance, "A") == ["A"] * 4  # the body, then each inner instance


def test_the_counters_are_visible_inside_each_instance(bpmn: Bpmn, engine: Engine):
    # given: a sequential body recording (loopCounter, nrOf...) as each instance runs
    code = (
        "log = log + [[loopCounter, nrOfInstances, nrOfActiveInstances, "
        "nrOfCompletedInstances, numberOfCompletedInstances]]"
    )
    path = bpmn(around(mi_script(code, mi("<loopCardinality>3</loopCardinality>", True))))
    # when
    outcome = engine.start(path, variables={"log": []}).run()
    # then
    assert outcome.variables["log"] == [[1, 3, 1, 0, 0], [2, 3, 1, 1, 1], [3, 3, 1, 2, 2]]
    assert "nrOfInstances" not in outcome.variables


def test_parallel_instances_are_all_active_at_once(bpmn: Bpmn, engine: Engine):
    # given
    code = "log = log + [[loopCounter, nrOfActiveInstances, nrOfCompletedInstances]]"
    path = bpmn(around(mi_script(code, mi("<loopCardinality>3</loopCardinality>"))))
    # when
    outcome = engine.start(path, variables={"log": []}).run()
    # then: each instance runs in turn, but all three were started together
    assert outcome.variables["log"] == [[1, 3, 0], [2, 2, 1], [3, 1, 2]]


@pytest.mark.parametrize("items", [[], None], ids=["empty-collection", "zero-cardinality"])
def test_no_instances_complete_the_body_at_once(bpmn: Bpmn, engine: Engine, items):
    # given
    loop = mi(BPMN_COLLECTION) if items is not None else mi("<loopCardinality>0</loopCardinality>")
    path = bpmn(around(mi_script("result = 1", loop)))
    # when
    instance = engine.start(path, variables={"items": items or []})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert activations(instance, "A") == ["A"]
    if items is not None:
        assert outcome.variables["results"] == []


@pytest.mark.parametrize("sequential", [False, True], ids=["parallel", "sequential"])
def test_a_completion_condition_that_holds_cancels_the_remaining_instances(
    bpmn: Bpmn, engine: Engine, sequential: bool
):
    # given: user tasks per item; the body completes once two are done
    loop = mi(
        BPMN_COLLECTION
        + "<completionCondition>nrOfCompletedInstances &gt;= 2</completionCondition>",
        sequential,
    )
    path = bpmn(around(f'<userTask id="A">{loop}</userTask>'))
    instance = engine.start(path, variables={"items": ["a", "b", "c", "d"]})
    instance.run()
    # when
    instance.complete_task("A", {"result": "first"})
    instance.run()
    instance.complete_task("A", {"result": "second"})
    outcome = instance.run()
    # then: done after two, the others cancelled and their tasks gone
    assert outcome.state == "completed"
    assert outcome.variables["results"] == ["first", "second", None, None]
    assert instance.user_tasks() == []
    assert instance.tokens() == []
    assert len(events_named(instance, "multi-instance.condition_met")) == 1


def test_a_parallel_user_task_waits_once_per_item_and_collects_in_input_order(
    bpmn: Bpmn, engine: Engine
):
    # given: one user task per reviewer
    loop = mi(
        '<loopDataInputRef>reviewers</loopDataInputRef><inputDataItem id="reviewer"/>'
        '<loopDataOutputRef>verdicts</loopDataOutputRef><outputDataItem id="verdict"/>'
    )
    path = bpmn(around(f'<userTask id="A" name="Review">{loop}</userTask>'))
    instance = engine.start(path, variables={"reviewers": ["ann", "bob", "cy"]})
    outcome = instance.run()
    assert outcome.state == "waiting"
    tasks = sorted(instance.user_tasks(), key=lambda t: t.id)
    assert len(tasks) == 3
    assert [t.element for t in tasks] == ["A"] * 3
    # when: completed out of order, by task id
    for task, verdict in zip(reversed(tasks), ["no", "maybe", "yes"], strict=True):
        instance.complete_task(task.id, {"verdict": verdict})
        outcome = instance.run()
    # then: the verdicts are in reviewer order, whatever the completion order
    assert outcome.state == "completed"
    assert outcome.variables["verdicts"] == ["yes", "maybe", "no"]
    assert "verdict" not in outcome.variables and "reviewer" not in outcome.variables


def test_a_user_task_sees_its_own_element_variable_as_an_input(bpmn: Bpmn, engine: Engine):
    # given
    loop = mi('<loopDataInputRef>people</loopDataInputRef><inputDataItem id="person"/>', True)
    path = bpmn(around(f'<userTask id="A">{loop}</userTask>'))
    instance = engine.start(path, variables={"people": ["ann", "bob"]})
    seen = []
    # when: each waiting task is completed with the person it was for
    while instance.run().state == "waiting":
        task = instance.find_task("A")
        track = instance.data.tracks[task.track]
        person = instance.data.variables.visible(track.scope)["person"]
        seen.append(person)
        instance.complete_task(task.id, {})
    # then
    assert seen == ["ann", "bob"]
