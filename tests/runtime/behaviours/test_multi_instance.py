"""Multi-instance activities: a body around inner instances, parallel or sequential."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bpmn_engine import BpmnError, Engine, LoadError, UsageError
from bpmn_engine.runtime.clock import VirtualClock
from tests.runtime.conftest import Bpmn, MakeEngine, activations, events_named, flow

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


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


def test_camunda_7_collection_and_element_variable_count_from_zero(bpmn: Bpmn, engine: Engine):
    # given: Camunda 7's attributes (its loopCounter starts at 0, as in Camunda 7 itself)
    loop = (
        '<multiInstanceLoopCharacteristics camunda:collection="${assignees}"'
        ' camunda:elementVariable="assignee" isSequential="true"/>'
    )
    code = "log = log + [[loopCounter, assignee, nrOfInstances]]"
    path = bpmn(around(mi_script(code, loop)))
    # when
    outcome = engine.start(path, variables={"assignees": ["ann", "bob"], "log": []}).run()
    # then
    assert outcome.variables["log"] == [[0, "ann", 2], [1, "bob", 2]]


def test_camunda_7_collection_may_name_a_variable(bpmn: Bpmn, engine: Engine):
    loop = (
        '<multiInstanceLoopCharacteristics camunda:collection="assignees"'
        ' camunda:elementVariable="assignee"/>'
    )
    path = bpmn(around(mi_script("log = log + [assignee]", loop)))
    outcome = engine.start(path, variables={"assignees": ["ann", "bob"], "log": []}).run()
    assert outcome.variables["log"] == ["ann", "bob"]


def test_zeebe_loop_characteristics_with_feel_and_numberof_counters(bpmn: Bpmn, engine: Engine):
    # given: a Zeebe script task per item, with Zeebe's counter names
    task = (
        '<scriptTask id="A"><extensionElements>'
        '<zeebe:script expression="=item * 2 + numberOfInstances" resultVariable="result"/>'
        "</extensionElements>"
        "<multiInstanceLoopCharacteristics><extensionElements><zeebe:loopCharacteristics"
        ' inputCollection="=items" inputElement="item" outputCollection="results"'
        ' outputElement="=result"/></extensionElements>'
        "<completionCondition>=numberOfCompletedInstances &gt;= 5</completionCondition>"
        "</multiInstanceLoopCharacteristics></scriptTask>"
    )
    path = bpmn(around(task))
    # when
    outcome = engine.start(path, variables={"items": [1, 2, 3]}).run()
    # then: outputs in order; the inner result never reached the process scope
    assert outcome.state == "completed"
    assert outcome.variables["results"] == [5, 7, 9]
    assert "result" not in outcome.variables
    assert "numberOfInstances" not in outcome.variables


def test_a_camunda_7_body_also_has_zeebe_counter_names(bpmn: Bpmn, engine: Engine):
    # given: a Camunda 7 body whose script and completion condition use Zeebe's names
    loop = (
        '<multiInstanceLoopCharacteristics camunda:collection="${items}"'
        ' camunda:elementVariable="item" isSequential="true">'
        "<completionCondition>${numberOfCompletedInstances == 2}</completionCondition>"
        "</multiInstanceLoopCharacteristics>"
    )
    code = (
        "log = log + [[loopCounter, numberOfInstances, numberOfActiveInstances, "
        "numberOfCompletedInstances, nrOfCompletedInstances]]"
    )
    path = bpmn(around(mi_script(code, loop)))
    # when
    outcome = engine.start(path, variables={"items": ["a", "b", "c"], "log": []}).run()
    # then: the condition held after the second instance
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["log"] == [[0, 3, 1, 0, 0], [1, 3, 1, 1, 1]]
    assert "numberOfInstances" not in outcome.variables


def test_a_zeebe_body_also_has_camunda_7_counter_names(bpmn: Bpmn, engine: Engine):
    # given: a Zeebe body whose output element and completion condition use Camunda 7's names
    task = (
        '<scriptTask id="A"><extensionElements>'
        '<zeebe:script expression="=item" resultVariable="result"/></extensionElements>'
        '<multiInstanceLoopCharacteristics isSequential="true"><extensionElements>'
        '<zeebe:loopCharacteristics inputCollection="=items" inputElement="item"'
        ' outputCollection="results"'
        ' outputElement="=[result, loopCounter, nrOfInstances, nrOfCompletedInstances]"/>'
        "</extensionElements>"
        "<completionCondition>=nrOfCompletedInstances &gt;= 2</completionCondition>"
        "</multiInstanceLoopCharacteristics></scriptTask>"
    )
    path = bpmn(around(task))
    # when
    outcome = engine.start(path, variables={"items": ["a", "b", "c"]}).run()
    # then: each output saw the counters before its own completion was counted
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["results"] == [["a", 1, 3, 0], ["b", 2, 3, 1], None]
    assert "nrOfInstances" not in outcome.variables


def test_in_camunda_7_a_cardinality_counts_and_the_collection_gives_the_items(
    bpmn: Bpmn, engine: Engine
):
    """Camunda 7 reads both: as many instances as the cardinality, each with the item of
    the collection at its index (its own files only: other engines disagree)."""
    loop = (
        '<multiInstanceLoopCharacteristics isSequential="true" camunda:collection="items" '
        'camunda:elementVariable="item"><loopCardinality>2</loopCardinality>'
        "</multiInstanceLoopCharacteristics>"
    )
    path = bpmn(around(mi_script("seen.append(item)", loop)))
    outcome = engine.start(path, variables={"items": ["a", "b", "c"], "seen": []}).run()
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables["seen"] == ["a", "b"]
    short = engine.start(path, variables={"items": ["a"], "seen": []}).run()
    assert short.state == "failed"
    assert "loopCardinality '2' is 2, but the input collection 'items' has 1 items" in (
        short.incident or ""
    )


def test_a_cardinality_and_an_input_collection_are_refused_before_the_first_step(
    bpmn: Bpmn, engine: Engine
):
    # given: both ways of counting on one activity (Camunda 7 would use the cardinality)
    loop = mi("<loopCardinality>2</loopCardinality>" + BPMN_COLLECTION)
    path = bpmn(around(mi_script("result = item", loop)))
    # when
    with pytest.raises(LoadError) as refused:
        engine.start(path, variables={"items": [1, 2, 3]})
    # then: the file, the marker's line and the activity, why, and the way on
    assert refused.value.file == str(path) and refused.value.line
    assert refused.value.element_id == "A"
    assert "both a loopCardinality ('2') and an input collection ('items')" in str(refused.value)
    assert "keep only one of them" in str(refused.value)
    assert engine.instances() == []


def test_an_input_collection_that_is_not_a_list_is_an_incident(bpmn: Bpmn, engine: Engine):
    path = bpmn(around(mi_script("x = 1", mi(BPMN_COLLECTION))))
    outcome = engine.start(path, variables={"items": 5}).run()
    assert outcome.state == "failed"
    assert "not a list" in (outcome.incident or "")


SUB_WITH_REVIEW = (
    '<subProcess id="A">{loop}<startEvent id="In"/>'
    '<userTask id="Review"/>'
    '<scriptTask id="Note" scriptFormat="python"><script>note = person + "!"</script></scriptTask>'
    '<endEvent id="Out"/>'
    + flow("In", "Review")
    + flow("Review", "Note")
    + flow("Note", "Out")
    + "</subProcess>"
)
PEOPLE = (
    '<loopDataInputRef>people</loopDataInputRef><inputDataItem id="person"/>'
    '<loopDataOutputRef>notes</loopDataOutputRef><outputDataItem id="note"/>'
)


@pytest.mark.parametrize("sequential", [False, True], ids=["parallel", "sequential"])
def test_a_multi_instance_subprocess_runs_its_inner_user_task_per_item(
    bpmn: Bpmn, engine: Engine, sequential: bool
):
    # given
    path = bpmn(around(SUB_WITH_REVIEW.format(loop=mi(PEOPLE, sequential))))
    instance = engine.start(path, variables={"people": ["ann", "bob", "cy"]})
    outcome = instance.run()
    assert len(instance.user_tasks()) == (1 if sequential else 3)
    # when: the reviews are done one by one, newest first
    while outcome.state == "waiting":
        task = max(instance.user_tasks(), key=lambda t: t.id)
        assert task.element == "Review"
        instance.complete_task(task.id, {})
        outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["notes"] == ["ann!", "bob!", "cy!"]
    assert activations(instance, "Review") == ["Review"] * 3


def test_an_interrupting_boundary_timer_cancels_every_inner_instance(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given: three parallel reviews, and a timer on the whole multi-instance activity
    boundary = (
        '<boundaryEvent id="Late" attachedToRef="A"><timerEventDefinition>'
        "<timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>"
        '<endEvent id="TooLate"/>' + flow("Late", "TooLate")
    )
    path = bpmn(around(SUB_WITH_REVIEW.format(loop=mi(PEOPLE)), after=boundary))
    engine = make_engine(clock=VirtualClock(START))  # jumps to the timer once all wait
    instance = engine.start(path, variables={"people": ["ann", "bob", "cy"]})
    while len(instance.user_tasks()) < 3:
        assert instance.step() is not None
    # when: the first review is done, then the timer fires
    instance.complete_task(min(t.id for t in instance.user_tasks()), {})
    outcome = instance.run()
    # then: one timer for the body (not one per instance); the rest cancelled
    assert outcome.state == "completed"
    assert outcome.end_event == "TooLate"
    assert len(events_named(instance, "timer.fired")) == 1
    assert instance.user_tasks() == [] and instance.tokens() == []
    assert "notes" not in outcome.variables
    statuses = engine.store.conn.execute(
        "SELECT status FROM user_tasks WHERE instance = ? ORDER BY id", (instance.id,)
    ).fetchall()
    assert [s for (s,) in statuses] == ["completed", "cancelled", "cancelled"]


def test_an_error_in_one_inner_instance_is_caught_by_the_activity_boundary(
    bpmn: Bpmn, engine: Engine
):
    # given: each inner instance waits for a review, except "bad", which throws an error
    inner = (
        '<subProcess id="A">{loop}<startEvent id="In"/>'
        '<exclusiveGateway id="Check" default="ok"/>'
        '<userTask id="Review"/><endEvent id="Out"/>'
        '<endEvent id="Fail"><errorEventDefinition errorRef="Bad"/></endEvent>'
        + flow("In", "Check")
        + flow("Check", "Fail", "bad", condition="person == 'bad'")
        + flow("Check", "Review", "ok")
        + flow("Review", "Out")
        + "</subProcess>"
    ).format(loop=mi('<loopDataInputRef>people</loopDataInputRef><inputDataItem id="person"/>'))
    boundary = (
        '<boundaryEvent id="Caught" attachedToRef="A"><errorEventDefinition errorRef="Bad"/>'
        '</boundaryEvent><endEvent id="Handled"/>' + flow("Caught", "Handled")
    )
    path = bpmn(around(inner, after=boundary))
    path.write_text(
        path.read_text().replace("<process ", '<error id="Bad" errorCode="BAD"/><process ', 1)
    )
    # when
    instance = engine.start(path, variables={"people": ["ann", "bad", "cy"]})
    outcome = instance.run()
    # then: the body ends with every instance (ann's review is cancelled)
    assert outcome.state == "completed"
    assert outcome.end_event == "Handled"
    assert instance.user_tasks() == [] and instance.tokens() == []
    assert [e.element for e in events_named(instance, "error.caught")] == ["Caught"]
    assert activations(instance, "Review") == ["Review"]  # ann's: cy's never started


def test_an_error_from_a_handler_in_one_instance_is_caught_by_the_activity_boundary(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given: a sequential service task whose second call throws a BPMN error
    calls = []

    def charge(task):
        calls.append(task.variables["amount"])
        if task.variables["amount"] > 10:
            raise BpmnError("TOO_MUCH")
        return {"charged": task.variables["amount"]}

    loop = mi('<loopDataInputRef>amounts</loopDataInputRef><inputDataItem id="amount"/>', True)
    boundary = (
        '<boundaryEvent id="Caught" attachedToRef="A"><errorEventDefinition/></boundaryEvent>'
        '<endEvent id="Handled"/>' + flow("Caught", "Handled")
    )
    path = bpmn(around(f'<serviceTask id="A">{loop}</serviceTask>', after=boundary))
    engine = make_engine(handlers={"A": charge})
    # when
    outcome = engine.start(path, variables={"amounts": [5, 50, 7]}).run()
    # then: the third instance never ran
    assert outcome.end_event == "Handled"
    assert calls == [5, 50]


def test_each_receive_task_instance_waits_for_the_message_with_its_own_key(
    bpmn: Bpmn, engine: Engine
):
    # given: one receive task per order, correlated by the order id of that instance
    task = (
        '<receiveTask id="A" messageRef="Paid"><multiInstanceLoopCharacteristics>'
        '<extensionElements><zeebe:loopCharacteristics inputCollection="=orders"'
        ' inputElement="orderId"/></extensionElements>'
        "</multiInstanceLoopCharacteristics></receiveTask>"
    )
    path = bpmn(around(task))
    message = (
        '<message id="Paid" name="paid"><extensionElements>'
        '<zeebe:subscription correlationKey="=orderId"/></extensionElements></message>'
    )
    path.write_text(path.read_text().replace("<process ", message + "<process ", 1))
    instance = engine.start(path, variables={"orders": ["A-1", "B-2"]})
    assert instance.run().state == "waiting"
    keys = sorted(s.key for s in instance.subscriptions())
    assert keys == ["A-1", "B-2"]
    # when
    [woken] = engine.publish_message("paid", "B-2")
    assert woken.run().state == "waiting"
    [woken] = engine.publish_message("paid", "A-1")
    # then
    assert woken.run().state == "completed"


def test_cancelling_the_instance_ends_the_body_and_every_inner_instance(bpmn: Bpmn, engine: Engine):
    # given: three parallel subprocess instances, each waiting at a user task
    path = bpmn(around(SUB_WITH_REVIEW.format(loop=mi(PEOPLE))))
    instance = engine.start(path, variables={"people": ["ann", "bob", "cy"]})
    assert instance.run().state == "waiting"
    assert len(instance.tokens()) == 7  # the body, three inner instances, three reviews
    # when
    outcome = instance.cancel()
    # then
    assert outcome.state == "terminated"
    assert instance.tokens() == [] and instance.user_tasks() == []
    scopes = engine.store.conn.execute(
        "SELECT status FROM scopes WHERE instance = ? ORDER BY id", (instance.id,)
    ).fetchall()
    assert {s for (s,) in scopes} == {"terminated"}


def test_a_standard_loop_on_a_subprocess_runs_it_again_in_a_fresh_scope(bpmn: Bpmn, engine: Engine):
    # given: the subprocess counts its own iterations in a local it sets up each time
    sub = (
        '<subProcess id="A"><standardLoopCharacteristics loopMaximum="3">'
        "<loopCondition>True</loopCondition></standardLoopCharacteristics>"
        '<startEvent id="In"/>'
        '<scriptTask id="Work" scriptFormat="python"><script>seen = seen + [loopCounter]</script>'
        '</scriptTask><endEvent id="Out"/>'
        + flow("In", "Work")
        + flow("Work", "Out")
        + "</subProcess>"
    )
    # when
    instance = engine.start(bpmn(around(sub)), variables={"seen": []})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["seen"] == [1, 2, 3]
    assert activations(instance, "Work") == ["Work"] * 3


def test_the_completion_condition_sees_the_outputs_gathered_so_far(bpmn: Bpmn, engine: Engine):
    # given: stop as soon as some instance produced a value over 15
    loop = mi(
        BPMN_COLLECTION
        + "<completionCondition>any(r is not None and r &gt; 15 for r in results)"
        + "</completionCondition>",
        sequential=True,
    )
    path = bpmn(around(mi_script("result = item * 10", loop)))
    # when
    instance = engine.start(path, variables={"items": [1, 2, 3, 4]})
    outcome = instance.run()
    # then: the third and fourth never ran
    assert outcome.variables["results"] == [10, 20, None, None]
    assert activations(instance, "A") == ["A"] * 3


def test_input_mappings_apply_per_instance_after_the_element_variable(bpmn: Bpmn, engine: Engine):
    # given: a Camunda input mapping built from each instance's element variable
    task = (
        '<userTask id="A"><extensionElements><camunda:inputOutput>'
        '<camunda:inputParameter name="greeting">${person}</camunda:inputParameter>'
        "</camunda:inputOutput></extensionElements>"
        '<multiInstanceLoopCharacteristics camunda:collection="people"'
        ' camunda:elementVariable="person"/></userTask>'
    )
    instance = engine.start(bpmn(around(task)), variables={"people": ["ann", "bob"]})
    # when
    instance.run()
    # then: each waiting task got its own input
    inputs = sorted(t.inputs["greeting"] for t in instance.user_tasks())
    assert inputs == ["ann", "bob"]


def test_a_non_interrupting_boundary_timer_fires_for_the_body_not_per_instance(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given: three waiting reviews and a reminder on the whole activity
    boundary = (
        '<boundaryEvent id="Remind" attachedToRef="A" cancelActivity="false">'
        "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
        '</boundaryEvent><endEvent id="Reminded"/>' + flow("Remind", "Reminded")
    )
    path = bpmn(around(SUB_WITH_REVIEW.format(loop=mi(PEOPLE)), after=boundary))
    instance = make_engine(clock=VirtualClock(START)).start(
        path, variables={"people": ["ann", "bob", "cy"]}
    )
    # when: the timer fires once everything waits
    outcome = instance.run()
    # then: one reminder; the reviews still wait
    assert outcome.state == "waiting"
    assert len(events_named(instance, "timer.fired")) == 1
    assert len(instance.user_tasks()) == 3
    for task in sorted(instance.user_tasks(), key=lambda t: t.id):
        instance.complete_task(task.id, {})
    assert instance.run().state == "completed"


def test_variables_set_for_an_inner_instances_token_stay_in_that_instance(
    bpmn: Bpmn, engine: Engine
):
    """`set_variables(track=...)` writes as the token would (what `bpmn step`'s `set` does at
    a breakpoint stop): the output element is that inner instance's, so it is collected."""
    # given: a body whose inner instances have not entered the task yet
    instance = engine.start(
        bpmn(around(f'<task id="A">{mi(BPMN_COLLECTION)}</task>')), variables={"items": [1, 2]}
    )
    while not any(instance.opens_body(a) for a in instance.enabled()):
        instance.step()
    [body] = [a for a in instance.enabled() if instance.opens_body(a)]
    instance.step(body)
    inner = [a for a in instance.enabled() if a.element == "A"]
    assert len(inner) == 2 and not any(instance.opens_body(a) for a in inner)
    # when
    instance.set_variables({"result": "set", "fresh": 1}, track=inner[1].track)
    instance.set_variables({}, ("item",), track=inner[0].track)
    outcome = instance.run()
    # then: `fresh`, defined nowhere, lands in the process scope as a token's write would
    assert outcome.state == "completed"
    assert outcome.variables == {"items": [1, 2], "results": [None, "set"], "fresh": 1}
    with pytest.raises(UsageError, match="no live token"):
        instance.set_variables({"x": 1}, track=inner[0].track)


@pytest.mark.parametrize(
    ("loop", "variables", "says"),
    [
        (mi("<loopCardinality>n</loopCardinality>"), {"n": 10_000_000}, "loopCardinality 'n' is"),
        (mi(BPMN_COLLECTION), {"items": list(range(100_001))}, "the input collection 'items'"),
    ],
    ids=["cardinality", "collection"],
)
def test_a_multi_instance_past_its_bound_is_an_incident_not_out_of_memory(
    bpmn: Bpmn, engine: Engine, loop: str, variables: dict, says: str
) -> None:
    """`loopCardinality` 10,000,000 ran out of memory in three chained tracebacks, again on
    every resume: the instances are bounded, the limit named."""
    outcome = engine.start(bpmn(around(mi_script("x = 1", loop))), variables=variables).run()
    assert outcome.state == "failed"
    assert says in outcome.incident
    assert "runs at most 100,000 instances" in outcome.incident
