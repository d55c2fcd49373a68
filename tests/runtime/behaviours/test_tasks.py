"""Tasks: pass-through, user, script and the handler-backed service/send/business-rule tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError, ServiceTaskContext, UsageError
from tests.runtime.conftest import HEADER, Bpmn, MakeEngine, events_named, flow, lifecycle, script

# --- none start, pass-through tasks and events --------------------------------------------


def test_start_task_end_completes_with_the_ordered_element_lifecycle(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><task id="T"/><endEvent id="E"/>' + flow("S", "T") + flow("T", "E")
    )
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "completed"
    assert outcome.end_event == "E"
    assert lifecycle(engine.instance(outcome.instance)) == [
        ("element.activated", "S"),
        ("element.completed", "S"),
        ("element.activated", "T"),
        ("element.completed", "T"),
        ("element.activated", "E"),
        ("element.completed", "E"),
    ]


def test_history_brackets_the_run_with_instance_started_and_instance_completed(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn('<startEvent id="S"/><endEvent id="E"/>' + flow("S", "E", "F1"))
    instance = engine.start(path, variables={"a": 1})
    # when
    instance.run()
    # then
    history = instance.history()
    assert [(e.event, e.element) for e in history] == [
        ("instance.started", "p"),
        ("element.activated", "S"),
        ("element.completed", "S"),
        ("flow.taken", "S"),
        ("element.activated", "E"),
        ("element.completed", "E"),
        ("track.completed", "E"),
        ("instance.completed", "E"),
    ]
    assert [e.seq for e in history] == list(range(1, len(history) + 1))
    assert history[3].data == {"flow": "F1", "target": "E"}
    assert history[-1].data["variables"] == {"a": 1}


def test_manual_task_passes_the_token_through(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><manualTask id="M" name="Sign"/><endEvent id="E"/>'
        + flow("S", "M")
        + flow("M", "E")
    )
    # when
    instance = engine.start(path)
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert lifecycle(instance)[2:4] == [("element.activated", "M"), ("element.completed", "M")]
    activated = events_named(instance, "element.activated")[1]
    assert activated.data == {"type": "manualTask", "name": "Sign"}


@pytest.mark.parametrize("kind", ["manualTask", "task"])
def test_a_task_with_no_work_still_maps_its_inputs_and_outputs(
    bpmn: Bpmn, engine: Engine, kind: str
):
    """Camunda 7 and bpmn-engine map a plain task's inputs and outputs as any activity's (its
    output mappings were dropped without a word)."""
    path = bpmn(
        f'<startEvent id="S"/><{kind} id="M"><extensionElements><camunda:inputOutput>'
        '<camunda:inputParameter name="who">${name}</camunda:inputParameter>'
        '<camunda:outputParameter name="greeting">Hello ${who}!</camunda:outputParameter>'
        "</camunda:inputOutput></extensionElements></"
        + kind
        + '><endEvent id="E"/>'
        + flow("S", "M")
        + flow("M", "E")
    )
    outcome = engine.start(path, variables={"name": "Ann"}).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"name": "Ann", "greeting": "Hello Ann!"}  # `who` stays local


SPIFF_NS = "http://spiffworkflow.org/bpmn/schema/1.0/core"
SPIFF_HEADER = HEADER.replace("<definitions ", f'<definitions xmlns:spiffworkflow="{SPIFF_NS}" ')


@pytest.mark.parametrize("kind", ["manualTask", "task"])
def test_in_a_diagram_drawn_for_spiffworkflow_manual_and_none_tasks_wait_for_a_person(
    tmp_path: Path, engine: Engine, kind: str
):
    """SpiffWorkflow's manual and none task specs are manual: its workflow waits there, and
    the person's answers become variables (they passed straight through, without a word)."""
    path = tmp_path / "spiff.bpmn"
    path.write_text(
        f'{SPIFF_HEADER}<process id="p" isExecutable="true">'
        f'<startEvent id="S"/><{kind} id="M" name="Sign"/><endEvent id="E"/>'
        + flow("S", "M")
        + flow("M", "E")
        + "</process></definitions>"
    )
    instance = engine.start(path)
    assert instance.run().state == "waiting"
    [task] = instance.user_tasks()
    assert (task.element, task.name) == ("M", "Sign")
    instance.complete_task("M", {"signed": True})
    outcome = instance.run()
    assert (outcome.state, outcome.variables) == ("completed", {"signed": True})


def test_intermediate_none_throw_event_passes_the_token_through(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><intermediateThrowEvent id="I"/><endEvent id="E"/>'
        + flow("S", "I")
        + flow("I", "E")
    )
    # when
    instance = engine.start(path)
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert ("element.completed", "I") in lifecycle(instance)
    assert outcome.end_event == "E"


def test_a_process_without_start_event_starts_at_every_node_without_incoming_flow(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(script("A", "a = 1") + script("B", "b = 2") + '<endEvent id="E"/>' + flow("A", "E"))
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1, "b": 2}


def test_a_node_without_outgoing_flow_ends_its_track_and_the_last_one_completes_the_instance(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn('<startEvent id="S"/><task id="T"/>' + flow("S", "T"))
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "completed"
    assert outcome.end_event == "T"


# --- user tasks -----------------------------------------------------------------------------

USER_TASK = (
    '<startEvent id="S"/><userTask id="Review" name="Review claim"/><endEvent id="E"/>'
    + flow("S", "Review")
    + flow("Review", "E")
)


def test_user_task_makes_the_instance_wait_for_it(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(USER_TASK))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    assert outcome.end_event is None
    [waiting] = outcome.waiting_for
    assert waiting["element"] == "Review"
    assert waiting["name"] == "Review claim"
    assert instance.tokens() == [
        {"track": 1, "element": "Review", "state": "waiting", "scope": 1, "via": "S_Review"}
    ]
    assert lifecycle(instance)[-2:] == [
        ("element.activated", "Review"),
        ("element.waiting", "Review"),
    ]
    assert [t.element for t in instance.user_tasks()] == ["Review"]
    assert outcome.to_json()["event"] == "instance.waiting"


def test_run_again_on_a_waiting_instance_does_nothing(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(USER_TASK))
    instance.run()
    before = len(instance.history())
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    assert len(instance.history()) == before
    assert instance.step_once() is False


@pytest.mark.parametrize("task", ["Review", "Review claim", 1])
def test_complete_task_by_element_id_name_or_number_sets_variables_and_the_run_completes(
    bpmn: Bpmn, engine: Engine, task: str | int
):
    # given
    instance = engine.start(bpmn(USER_TASK), variables={"claim": 7})
    instance.run()
    # when
    instance.complete_task(task, {"approved": True})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"claim": 7, "approved": True}
    assert instance.user_tasks() == []
    assert instance.tokens() == []
    assert lifecycle(instance)[-4:] == [
        ("element.waiting", "Review"),
        ("element.completed", "Review"),
        ("element.activated", "E"),
        ("element.completed", "E"),
    ]


def test_complete_task_with_an_unknown_name_raises_usage_error_and_changes_nothing(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(USER_TASK))
    instance.run()
    before = instance.history()
    # when / then
    with pytest.raises(UsageError, match="Nope"):
        instance.complete_task("Nope", {"x": 1})
    assert instance.history() == before
    assert instance.outcome().state == "waiting"


def test_complete_task_on_a_finished_instance_raises_usage_error(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(USER_TASK))
    instance.run()
    instance.complete_task("Review")
    instance.run()
    # when / then
    with pytest.raises(UsageError, match="no waiting user task"):
        instance.complete_task("Review")


def test_on_user_task_answers_tasks_as_they_wait(bpmn: Bpmn, make_engine: MakeEngine):
    # given
    seen: list[str] = []

    def answer(instance, task):
        seen.append(task.element)
        return {"approved": False}

    engine = make_engine(on_user_task=answer)
    # when
    outcome = engine.start(bpmn(USER_TASK)).run()
    # then
    assert seen == ["Review"]
    assert outcome.state == "completed"
    assert outcome.variables == {"approved": False}


def test_on_user_task_returning_none_leaves_the_task_waiting(bpmn: Bpmn, make_engine: MakeEngine):
    # given
    engine = make_engine(on_user_task=lambda instance, task: None)
    # when
    outcome = engine.start(bpmn(USER_TASK)).run()
    # then
    assert outcome.state == "waiting"
    assert [w["element"] for w in outcome.waiting_for] == ["Review"]


# --- script tasks ---------------------------------------------------------------------------


def test_script_task_sets_variables(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/>'
        + script("Calc", "total = price * qty\nlabel = 'x' + str(qty)")
        + '<endEvent id="E"/>'
        + flow("S", "Calc")
        + flow("Calc", "E")
    )
    # when
    outcome = engine.start(path, variables={"price": 3, "qty": 4}).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"price": 3, "qty": 4, "total": 12, "label": "x4"}


def test_script_task_with_result_variable_stores_the_expression_value(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/>'
        '<scriptTask id="Calc" scriptFormat="python" camunda:resultVariable="total">'
        "<script>price * 2</script></scriptTask>"
        '<endEvent id="E"/>' + flow("S", "Calc") + flow("Calc", "E")
    )
    # when
    outcome = engine.start(path, variables={"price": 21}).run()
    # then
    assert outcome.variables == {"price": 21, "total": 42}


def test_script_task_without_script_warns_and_passes_through(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn('<startEvent id="S"/><scriptTask id="Empty"/>' + flow("S", "Empty"))
    # when
    instance = engine.start(path)
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert [e.element for e in events_named(instance, "warning")] == ["Empty"]


SCRIPT_ERROR = (
    '<startEvent id="S"/>'
    + script("Before", "seen = 1")
    + script("Boom", "partial = 1\nx = 1 / zero")
    + '<endEvent id="E"/>'
    + flow("S", "Before")
    + flow("Before", "Boom")
    + flow("Boom", "E")
)


def test_script_error_becomes_an_incident_naming_the_element(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(SCRIPT_ERROR), variables={"zero": 0})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("Boom: ")
    [incident] = events_named(instance, "incident.created")
    assert incident.element == "Boom"
    assert incident.data["message"]
    assert instance.history()[-1].event == "instance.failed"
    assert instance.tokens() == [
        {"track": 1, "element": "Boom", "state": "failed", "scope": 1, "via": "Before_Boom"}
    ]


def test_a_failed_step_keeps_none_of_its_variables_or_events(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(SCRIPT_ERROR), variables={"zero": 0})
    # when
    outcome = instance.run()
    # then
    assert outcome.variables == {"zero": 0, "seen": 1}
    assert "partial" not in instance.variables
    assert ("element.activated", "Boom") not in lifecycle(instance)
    assert engine.instance(instance.id).variables == {"zero": 0, "seen": 1}


def test_a_step_failing_after_it_created_a_variable_is_an_incident_without_that_variable(
    bpmn: Bpmn, engine: Engine
):
    # given: the script creates `result`, then its outgoing condition cannot be evaluated
    path = bpmn(
        '<startEvent id="S"/>'
        + script("T", "result = 1")
        + '<endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E", "ToE", "result > missing")
    )
    instance = engine.start(path, variables={"a": 1})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert (outcome.incident or "").startswith("T: ")
    assert outcome.variables == {"a": 1}
    assert engine.instance(instance.id).outcome().state == "failed"


def test_a_failed_step_puts_back_a_variable_it_had_changed(bpmn: Bpmn, engine: Engine):
    # given: Change sets `seen` to 99, then its outgoing condition cannot be evaluated
    path = bpmn(
        '<startEvent id="S"/>'
        + script("Change", "seen = 99")
        + '<endEvent id="E"/>'
        + flow("S", "Change")
        + flow("Change", "E", "ToE", "seen > missing")
    )
    instance = engine.start(path, variables={"seen": 1})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert (outcome.incident or "").startswith("Change: ")
    assert outcome.variables == {"seen": 1}
    assert engine.instance(instance.id).variables == {"seen": 1}
    assert events_named(instance, "variables.updated") == []


def test_a_failed_instance_does_not_run_further(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(SCRIPT_ERROR), variables={"zero": 0})
    instance.run()
    before = instance.history()
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert instance.history() == before


def test_retry_makes_the_instance_active_and_the_failed_track_ready_again(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(SCRIPT_ERROR), variables={"zero": 0})
    instance.run()
    # when
    retried = instance.retry()
    # then
    assert retried == 1
    assert str(instance.state) == "active"
    assert instance.outcome().incident is None
    assert instance.tokens() == [
        {"track": 1, "element": "Boom", "state": "alive", "scope": 1, "via": "Before_Boom"}
    ]
    assert [e.element for e in events_named(instance, "incident.retried")] == ["Boom"]


def test_retry_after_fixing_the_variable_in_the_store_completes_the_run(bpmn: Bpmn, engine: Engine):
    # given: a division by a zero variable failed
    instance = engine.start(bpmn(SCRIPT_ERROR), variables={"zero": 0})
    instance.run()
    # when: the variable is fixed in the store and the instance reopened from its rows
    with engine.store.transaction() as conn:
        conn.execute(
            "UPDATE variables SET value = '4' WHERE instance = ? AND name = 'zero'",
            (instance.id,),
        )
    reopened = engine.instance(instance.id)
    reopened.retry()
    outcome = reopened.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"zero": 4, "seen": 1, "partial": 1, "x": 0.25}
    assert [e.element for e in events_named(reopened, "element.activated")].count("Boom") == 1


def test_a_user_task_whose_completion_failed_is_offered_once_again_after_retry(
    bpmn: Bpmn, engine: Engine
):
    # given: the task's output mapping needs `answer`, which the first completion lacks
    path = bpmn(
        '<startEvent id="S"/><userTask id="Review"><extensionElements><camunda:inputOutput>'
        '<camunda:outputParameter name="approved">${answer == "yes"}</camunda:outputParameter>'
        "</camunda:inputOutput></extensionElements></userTask>"
        '<endEvent id="E"/>' + flow("S", "Review") + flow("Review", "E")
    )
    instance = engine.start(path)
    instance.run()
    instance.complete_task("Review", {"other": 1})
    failed = instance.run()
    # when
    instance.retry()
    waiting = instance.run()
    instance.complete_task("Review", {"answer": "yes"})
    outcome = instance.run()
    # then
    assert failed.state == "failed"
    assert (failed.incident or "").startswith("Review: ")
    assert failed.waiting_for == []
    assert [w["element"] for w in waiting.waiting_for] == ["Review"]
    assert outcome.state == "completed"
    assert outcome.variables == {"approved": True}
    assert instance.user_tasks() == []
    assert engine.instances()[0]["waiting_tasks"] == 0


def test_retry_after_set_variables_completes_the_run(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(SCRIPT_ERROR), variables={"zero": 0})
    assert instance.run().state == "failed"
    # when
    instance.set_variables({"zero": 2})
    instance.retry()
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"zero": 2, "seen": 1, "partial": 1, "x": 0.5}


def test_retry_on_an_instance_that_has_not_failed_does_nothing(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(USER_TASK))
    instance.run()
    # when / then
    assert instance.retry() == 0
    assert instance.outcome().state == "waiting"


# --- service tasks and their handlers -------------------------------------------------------


def service(attrs: str, inner: str = "", tag: str = "serviceTask", task_id: str = "Svc") -> str:
    return (
        '<startEvent id="S"/>'
        f'<{tag} id="{task_id}" name="Do it" {attrs}>{inner}</{tag}>'
        '<endEvent id="E"/>' + flow("S", task_id) + flow(task_id, "E")
    )


ZEEBE_TASK = '<extensionElements><zeebe:taskDefinition type="x-y"/></extensionElements>'


@pytest.mark.parametrize(
    ("attrs", "inner", "name"),
    [
        ('camunda:type="external" camunda:topic="charge"', "", "charge"),
        ('camunda:type="charge"', "", "charge"),
        ("", ZEEBE_TASK, "x_y"),
        ("", "", "Svc"),
        ('camunda:class="com.acme.ChargeCard"', "", "ChargeCard"),
        ('camunda:delegateExpression="${chargeBean}"', "", "chargeBean"),
    ],
    ids=["camunda-topic", "camunda-type", "zeebe-type", "element-id", "class", "delegate"],
)
def test_service_task_finds_its_handler(
    bpmn: Bpmn, attrs: str, inner: str, name: str, make_engine: MakeEngine
):
    # given
    calls: list[str] = []

    def handler(context: ServiceTaskContext):
        calls.append(context.element_id)
        return {"done": True}

    engine = make_engine(handlers={name: handler})
    instance = engine.start(bpmn(service(attrs, inner)))
    # when
    outcome = instance.run()
    # then
    assert calls == ["Svc"]
    assert outcome.state == "completed"
    assert outcome.variables == {"done": True}
    [job] = events_named(instance, "job.started")
    assert job.data == {"handler": name, "attempt": 1}


def test_the_most_specific_handler_name_wins_over_the_element_id(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given
    handlers = {"charge": lambda c: {"by": "topic"}, "Svc": lambda c: {"by": "id"}}
    engine = make_engine(handlers=handlers)
    # when
    outcome = engine.start(bpmn(service('camunda:type="external" camunda:topic="charge"')))
    outcome = outcome.run()
    # then
    assert outcome.variables == {"by": "topic"}


def test_handler_gets_a_context_with_variables_element_attempt_and_idempotency_key(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given
    seen: list[ServiceTaskContext] = []

    def charge(context: ServiceTaskContext):
        seen.append(context)
        context.variables["amount"] = 0  # a copy: this must not change the instance
        return {"charged": True}

    engine = make_engine(handlers={"charge": charge})
    instance = engine.start(bpmn(service('camunda:topic="charge"')), variables={"amount": 5})
    # when
    outcome = instance.run()
    # then
    [context] = seen
    assert context.element_id == "Svc"
    assert context.element_name == "Do it"
    assert context.instance_id == instance.id
    assert context.attempt == 1
    assert context.idempotency_key
    assert instance.id in context.idempotency_key
    assert outcome.variables == {"amount": 5, "charged": True}


def test_handlers_get_different_idempotency_keys_for_different_activations(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given: the same service task visited twice in a loop
    keys: list[str] = []

    def charge(context: ServiceTaskContext):
        keys.append(context.idempotency_key)
        return {"n": context.variables["n"] + 1}

    path = bpmn(
        '<startEvent id="S"/><serviceTask id="Svc" camunda:topic="charge"/>'
        '<exclusiveGateway id="G" default="Out"/><endEvent id="E"/>'
        + flow("S", "Svc")
        + flow("Svc", "G")
        + flow("G", "Svc", "Back", "n < 2")
        + flow("G", "E", "Out")
    )
    engine = make_engine(handlers={"charge": charge})
    # when
    outcome = engine.start(path, variables={"n": 0}).run()
    # then
    assert outcome.variables == {"n": 2}
    assert len(keys) == 2
    assert len(set(keys)) == 2


def test_handler_context_variables_are_a_deep_copy(bpmn: Bpmn, tmp_path, make_engine: MakeEngine):
    # given: a handler that mutates a nested value it was given
    def sneaky(context: ServiceTaskContext):
        context.variables["items"].append("stolen")
        return None

    engine = make_engine(tmp_path / "h.db", handlers={"Svc": sneaky})
    instance = engine.start(bpmn(service("")), variables={"items": ["book"]})
    # when
    outcome = instance.run()
    # then: memory and rows agree, and neither saw the mutation
    assert engine.instance(instance.id).variables == {"items": ["book"]}
    assert outcome.variables == {"items": ["book"]}


def test_a_raising_handler_fails_the_instance_with_the_exception_message(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given
    def charge(context: ServiceTaskContext):
        raise ValueError("card declined")

    engine = make_engine(handlers={"charge": charge}, retries=1)
    instance = engine.start(bpmn(service('camunda:topic="charge"')))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("Svc: ")
    assert "card declined" in outcome.incident
    [incident] = events_named(instance, "incident.created")
    assert incident.element == "Svc"
    assert "ValueError" in incident.data["message"]


def test_retry_reruns_a_handler_that_failed(bpmn: Bpmn, make_engine: MakeEngine):
    # given: a handler that fails once, then works
    attempts: list[int] = []

    def flaky(context: ServiceTaskContext):
        attempts.append(context.attempt)
        if len(attempts) == 1:
            raise TimeoutError("provider down")
        return {"ok": True}

    engine = make_engine(handlers={"Svc": flaky}, retries=1)
    instance = engine.start(bpmn(service("")))
    assert instance.run().state == "failed"
    # when
    instance.retry()
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"ok": True}
    assert len(attempts) == 2


@pytest.mark.parametrize("result", [42, "done", ["a"], True])
def test_a_handler_returning_a_non_dict_is_an_incident(
    bpmn: Bpmn, result: object, make_engine: MakeEngine
):
    # given
    engine = make_engine(handlers={"Svc": lambda context: result})
    instance = engine.start(bpmn(service("")))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("Svc: ")
    assert type(result).__name__ in outcome.incident
    assert "dict" in outcome.incident
    assert "internal error" not in outcome.incident


def test_a_handler_returning_none_sets_nothing_and_completes(bpmn: Bpmn, make_engine: MakeEngine):
    # given
    engine = make_engine(handlers={"Svc": lambda context: None})
    # when
    outcome = engine.start(bpmn(service("")), variables={"a": 1}).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1}


def test_a_handler_returning_a_value_that_cannot_be_stored_is_an_incident(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given
    engine = make_engine(handlers={"Svc": lambda context: {"when": object()}})
    instance = engine.start(bpmn(service("")))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert "when" in (outcome.incident or "")
    assert "when" not in instance.variables


def test_a_service_task_without_handler_waits_as_a_job_for_one(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(service('camunda:type="external" camunda:topic="charge"')))
    # when
    outcome = instance.run()
    # then: a no-op would have changed the path taken; it waits, saying what would serve it
    assert outcome.state == "waiting"
    assert outcome.waiting_for == [
        {"element": "Svc", "reason": "job", "track": 1, "handlers": ["charge", "Svc"]}
    ]
    assert events_named(instance, "job.started") == []
    assert "E" not in [e.element for e in events_named(instance, "element.completed")]


def test_a_job_waits_on_through_runs_without_its_handler_and_an_engine_with_it_serves_it(
    bpmn: Bpmn, engine: Engine
):
    # given: a service task waiting for a handler, run again by an engine still without one
    path = bpmn(service('camunda:type="external" camunda:topic="charge"'))
    first = engine.start(path)
    first.run()
    assert engine.instance(first.id).run().state == "waiting"
    calls: list[str] = []

    def charge(context: ServiceTaskContext) -> dict[str, object]:
        calls.append(context.element_id)
        return {"charged": context.variables["amount"]}

    engine.handlers = {"charge": charge}
    engine.instance(first.id).set_variables({"amount": 12})
    # when: an engine that has the handler runs the instance
    outcome = engine.instance(first.id).run()
    # then: the job is served once, with the variables as they are now
    assert outcome.state == "completed"
    assert outcome.variables == {"amount": 12, "charged": 12}
    assert calls == ["Svc"]
    assert [e.data["attempt"] for e in events_named(engine.instance(first.id), "job.started")] == [
        1
    ]


def test_a_simulating_engine_completes_a_service_task_without_handler_as_a_no_op(
    bpmn: Bpmn, make_engine: MakeEngine
):
    # given
    eng = make_engine(simulate=True)
    instance = eng.start(bpmn(service('camunda:type="external" camunda:topic="charge"')))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    [warning] = events_named(instance, "warning")
    assert warning.element == "Svc"
    assert "charge" in warning.data["message"] and "simulated" in warning.data["message"]
    assert events_named(instance, "job.started") == []


@pytest.mark.parametrize(
    ("tag", "attrs", "name"),
    [
        ("sendTask", 'camunda:type="external" camunda:topic="notify"', "notify"),
        ("businessRuleTask", 'camunda:class="com.example.Score"', "Score"),
        ("businessRuleTask", 'camunda:type="external" camunda:topic="score"', "score"),
    ],
)
def test_send_and_business_rule_tasks_call_handlers_too(
    bpmn: Bpmn, tag: str, attrs: str, name: str, make_engine: MakeEngine
):
    # given
    eng = make_engine(handlers={name: lambda context: {"by": context.element_id}})
    instance = eng.start(bpmn(service(attrs, tag=tag, task_id="Work")))
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"by": "Work"}
    assert lifecycle(instance)[2:4] == [
        ("element.activated", "Work"),
        ("element.completed", "Work"),
    ]


def test_handlers_can_be_loaded_from_a_python_file(bpmn: Bpmn, tmp_path, make_engine: MakeEngine):
    # given
    handlers = tmp_path / "handlers.py"
    handlers.write_text(
        "def charge(context):\n    return {'paid': context.variables['amount']}\n"
        "def _private(context):\n    raise AssertionError('not a handler')\n"
    )
    engine = make_engine(handlers=handlers)
    # when
    outcome = engine.start(bpmn(service('camunda:topic="charge"')), variables={"amount": 3})
    outcome = outcome.run()
    # then
    assert outcome.variables == {"amount": 3, "paid": 3}


# --- refused before the first step ----------------------------------------------------------


def test_a_condition_that_does_not_compile_is_refused_at_start(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn('<startEvent id="S"/><endEvent id="E"/>' + flow("S", "E", "Broken", "${x >}"))
    # when / then
    with pytest.raises(LoadError, match="Broken"):
        engine.start(path)
    assert engine.instances() == []


def test_a_script_the_sandbox_forbids_is_refused_at_start(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn('<startEvent id="S"/>' + script("Evil", "import os") + flow("S", "Evil"))
    # when / then
    with pytest.raises(LoadError, match="Evil"):
        engine.start(path)
    assert engine.instances() == []


def test_a_handler_value_past_the_size_of_a_variable_is_an_incident(
    bpmn: Bpmn, make_engine: MakeEngine
):
    """A handler's answer meets the bound a sandboxed script meets (300 MB were stored)."""
    engine = make_engine(handlers={"charge": lambda context: {"receipt": "x" * 10_000_001}})
    outcome = engine.start(bpmn(service('camunda:topic="charge"'))).run()
    assert outcome.state == "failed"
    assert "a variable holds at most 10,000,000 characters" in outcome.incident


def test_an_incident_message_is_kept_to_ten_thousand_characters(
    bpmn: Bpmn, make_engine: MakeEngine
):
    """A 30 MB error text was stored in the row, the history and the outcome."""

    def charge(context: ServiceTaskContext):
        raise ValueError("e" * 1_000_000)

    engine = make_engine(handlers={"charge": charge}, retries=1)
    instance = engine.start(bpmn(service('camunda:topic="charge"')))
    outcome = instance.run()
    assert outcome.incident is not None and len(outcome.incident) < 10_100
    assert outcome.incident.endswith("more characters)")
    [incident] = events_named(instance, "incident.created")
    assert len(incident.data["message"]) < 10_100
