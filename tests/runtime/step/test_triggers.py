"""Wait states the API triggers: a receive task with neither a message nor a name, and an
intermediate catch event with no event definition, wait until `Instance.trigger` moves them
on (as Camunda 7, Activiti and Flowable's `runtimeService.trigger`, and a click in
bpmn-js-token-simulation). A receive task with a name but no messageRef waits for the message
of that name (`test_message_names.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import ActionKind, Engine, LoadError, UsageError
from tests.runtime.conftest import HEADER, Bpmn, activations, flow

CATCH = (
    f'<startEvent id="s"/>{flow("s", "wait")}'
    '<intermediateCatchEvent id="wait" name="Wait here"/>'
    f'{flow("wait", "e")}<endEvent id="e"/>'
)
RECEIVE = (
    f'<startEvent id="s"/>{flow("s", "r")}<receiveTask id="r"/>{flow("r", "e")}<endEvent id="e"/>'
)


@pytest.mark.parametrize("body,element", [(CATCH, "wait"), (RECEIVE, "r")])
def test_an_element_nothing_names_waits_for_a_trigger(
    bpmn: Bpmn, engine: Engine, body: str, element: str
) -> None:
    instance = engine.start(bpmn(body))
    outcome = instance.run()
    assert outcome.state == "waiting"
    [wait] = outcome.waiting_for
    assert (wait["element"], wait["reason"]) == (element, "trigger")
    assert instance.subscriptions() == []  # no message or event is awaited
    assert not instance.is_stuck()  # it waits for someone, it is not stuck


@pytest.mark.parametrize("body,element", [(CATCH, "wait"), (RECEIVE, "r")])
def test_a_trigger_moves_the_token_on_with_its_variables(
    bpmn: Bpmn, engine: Engine, body: str, element: str
) -> None:
    instance = engine.start(bpmn(body), variables={"kept": 1})
    instance.run()
    reopened = engine.instance(instance.id)  # the wait is in the rows
    reopened.trigger(element, {"approved": True})
    outcome = reopened.run()
    assert outcome.state == "completed"
    assert outcome.variables == {"approved": True, "kept": 1}
    assert activations(reopened, element) == [element]
    [triggered] = [e for e in reopened.history() if e.event == "element.triggered"]
    assert (triggered.element, triggered.data["variables"]) == (element, ["approved"])


def test_a_catch_event_is_triggered_by_its_name(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(bpmn(CATCH))
    assert instance.run().waiting_for[0]["name"] == "Wait here"
    instance.trigger("Wait here")
    assert instance.run().state == "completed"


def test_a_name_two_waiting_elements_share_is_refused(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "fork")}<parallelGateway id="fork"/>'
        f"{flow('fork', 'a')}{flow('fork', 'b')}"
        '<intermediateCatchEvent id="a" name="Wait"/><intermediateCatchEvent id="b" name="Wait"/>'
        f'{flow("a", "ea")}{flow("b", "eb")}<endEvent id="ea"/><endEvent id="eb"/>'
    )
    instance = engine.start(path)
    instance.run()
    with pytest.raises(UsageError, match=r"'Wait' names 2 elements .*\(a, b\)"):
        instance.trigger("Wait")
    instance.trigger("b")
    assert [w["element"] for w in instance.run().waiting_for] == ["a"]


def test_the_output_mappings_of_a_receive_task_take_the_variables(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "r")}<receiveTask id="r"><extensionElements>'
        "<camunda:inputOutput>"
        '<camunda:outputParameter name="total">${price * 2}</camunda:outputParameter>'
        f"</camunda:inputOutput></extensionElements></receiveTask>{flow('r', 'e')}"
        '<endEvent id="e"/>'
    )
    instance = engine.start(path)
    instance.run()
    instance.trigger("r", {"price": 21})
    assert instance.run().variables == {"total": 42}  # only what is mapped leaves


def test_triggering_what_does_not_wait_is_refused_naming_what_does(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "u")}<userTask id="u"/>{flow("u", "wait")}'
        f'<intermediateCatchEvent id="wait" name="Wait here"/>{flow("wait", "e")}'
        '<endEvent id="e"/>'
    )
    instance = engine.start(path)
    instance.run()
    with pytest.raises(UsageError, match=r"no token waiting at 'u' for a trigger; 'u' is a user"):
        instance.trigger("u")  # a user task is completed, not triggered
    with pytest.raises(UsageError, match="no token waiting at 'nowhere'"):
        instance.trigger("nowhere")
    instance.complete_task("u")
    instance.run()
    with pytest.raises(UsageError, match=r"waiting for a trigger: wait \(Wait here\)"):
        instance.trigger("u")
    instance.trigger("wait")
    assert instance.run().state == "completed"
    with pytest.raises(UsageError, match="no token waiting at 'wait'"):
        instance.trigger("wait")  # it moved on: triggered once only


def test_a_sibling_of_a_token_stopped_on_an_incident_is_triggered(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "fork")}<parallelGateway id="fork"/>'
        f'{flow("fork", "wait")}{flow("fork", "boom")}<intermediateCatchEvent id="wait"/>'
        '<scriptTask id="boom" scriptFormat="python"><script>y = missing</script></scriptTask>'
        f'{flow("wait", "ew")}{flow("boom", "eb")}<endEvent id="ew"/><endEvent id="eb"/>'
    )
    instance = engine.start(path)
    outcome = instance.run()
    assert outcome.state == "failed" and outcome.others_wait  # `wait` waits: still active
    instance.trigger("wait")  # the other token goes on to its end
    assert instance.run().state == "failed" and instance.state == "failed"  # none is left
    assert instance.waiting_triggers() == []
    instance.retry(variables={"missing": 1})
    assert instance.run().state == "completed"


def test_variables_that_cannot_be_stored_are_refused_and_nothing_moves(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(RECEIVE))
    instance.run()
    with pytest.raises(UsageError):
        instance.trigger("r", {"bad": object()})
    assert instance.outcome().waiting_for[0]["element"] == "r"


def test_tokens_of_a_parallel_multi_instance_are_triggered_one_by_one(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "r")}<receiveTask id="r">'
        "<multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality>"
        f'</multiInstanceLoopCharacteristics></receiveTask>{flow("r", "e")}<endEvent id="e"/>'
    )
    instance = engine.start(path)
    instance.run()
    tracks = [t.track for t in instance.waiting_triggers()]
    assert len(tracks) == 2
    with pytest.raises(UsageError, match=r"2 tokens .* wait at 'r' .*--track"):
        instance.trigger("r")
    instance.trigger("r", track=tracks[1])
    assert [t.track for t in instance.waiting_triggers()] == tracks[:1]
    instance.trigger("r")  # one left: no need to say which
    assert instance.run().state == "completed"


def test_the_stepper_is_offered_the_trigger_and_never_takes_it_itself(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(RECEIVE))
    instance.run()
    assert instance.step_once() is False  # the engine never triggers by itself
    [action] = instance.enabled()
    assert (action.kind, action.element) == (ActionKind.TRIGGER, "r")
    instance.step(action, {"x": 1})
    assert instance.run().variables == {"x": 1}


def test_after_an_event_based_gateway_the_trigger_chooses_the_path(
    bpmn: Bpmn, engine: Engine
) -> None:
    # as a click on the event in the token simulator: it wins, the timer's wait ends
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "g")}<eventBasedGateway id="g"/>'
        f'{flow("g", "click")}{flow("g", "t")}<intermediateCatchEvent id="click" name="Click"/>'
        '<intermediateCatchEvent id="t"><timerEventDefinition><timeDuration>PT1H'
        f"</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        f'{flow("click", "ec")}{flow("t", "et")}<endEvent id="ec"/><endEvent id="et"/>'
    )
    instance = engine.start(path)
    outcome = instance.run()
    assert outcome.state == "waiting"
    assert sorted((w["element"], w["reason"], w.get("gateway")) for w in outcome.waiting_for) == [
        ("click", "trigger", "g"),
        ("t", "timer", None),
    ]
    assert not instance.is_stuck()
    instance.trigger("Click", {"clicked": True})
    outcome = instance.run()
    assert (outcome.state, outcome.end_event) == ("completed", "ec")
    assert outcome.variables == {"clicked": True}
    assert activations(instance) == ["s", "g", "click", "ec"]


def test_an_event_based_gateway_of_trigger_waits_only_waits_for_the_choice(
    bpmn: Bpmn, engine: Engine
) -> None:
    path = bpmn(
        f'<startEvent id="s"/>{flow("s", "g")}<eventBasedGateway id="g"/>'
        f'{flow("g", "a")}{flow("g", "b")}<intermediateCatchEvent id="a"/><receiveTask id="b"/>'
        f'{flow("a", "ea")}{flow("b", "eb")}<endEvent id="ea"/><endEvent id="eb"/>'
    )
    instance = engine.start(path)
    assert instance.run().state == "waiting"
    assert [(a.kind, a.element) for a in instance.enabled()] == [
        (ActionKind.TRIGGER, "a"),
        (ActionKind.TRIGGER, "b"),
    ]
    assert not instance.is_stuck()
    instance.trigger("b")
    assert instance.run().end_event == "eb"
    assert "a" not in activations(instance)


CALLED = f"""<?xml version="1.0"?>
{HEADER}
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>{flow("ps", "call")}
    <callActivity id="call" calledElement="child"/>{flow("call", "pe")}
    <endEvent id="pe"/>
  </process>
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>{flow("cs", "wait")}
    <intermediateCatchEvent id="wait" name="Wait here"/>{flow("wait", "ce")}
    <endEvent id="ce"/>
  </process>
</definitions>
"""


def test_a_trigger_wait_in_a_called_instance_is_found_from_the_root(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "called.bpmn"
    path.write_text(CALLED)
    root = engine.start(path, "parent")
    assert root.run().state == "waiting"
    [child_id] = engine.family(root.id)[1:]
    holder = root.trigger_holder("Wait here")
    assert holder.id == child_id
    with pytest.raises(UsageError, match=r"has no token waiting at 'wait'"):
        root.trigger("wait")  # the root itself does not wait there
    with pytest.raises(
        UsageError, match=rf"or of the instances it called .*wait \(Wait here\) in {child_id}"
    ):
        root.trigger_holder("nowhere")
    holder.trigger("Wait here", {"answer": 42})
    holder.run()
    outcome = engine.instance(root.id).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"answer": 42}  # the child's variables come back


def test_the_same_wait_in_two_called_instances_is_ambiguous(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "twice.bpmn"
    path.write_text(
        CALLED.replace(
            '<callActivity id="call" calledElement="child"/>',
            '<callActivity id="call" calledElement="child"><multiInstanceLoopCharacteristics>'
            "<loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>"
            "</callActivity>",
        )
    )
    root = engine.start(path, "parent")
    root.run()
    children = engine.family(root.id)[1:]
    with pytest.raises(UsageError, match=r"in 2 instances of the call tree") as ambiguous:
        root.trigger_holder("wait")
    assert all(child in str(ambiguous.value) for child in children)
    for child in children:
        called = engine.instance(child)
        called.trigger("wait")
        called.run()
    assert engine.instance(root.id).run().state == "completed"


PLAIN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
    'targetNamespace="t"{extra}><process id="p" isExecutable="true">'
    '<startEvent id="s"/>{catch}<endEvent id="e"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>'
    '<sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process></definitions>'
)
NAMING_NOTHING = {
    "message": "<messageEventDefinition/>",
    "signal": "<signalEventDefinition/>",
    "timer": "<timerEventDefinition/>",
    "conditional": "<conditionalEventDefinition/>",
    "none": "",  # bpmn-js draws a boundary event so until a kind is chosen (it was not armed)
}


@pytest.mark.parametrize("kind", sorted(NAMING_NOTHING))
def test_in_a_file_drawn_for_no_engine_a_catch_naming_nothing_waits_for_a_trigger(
    tmp_path: Path, engine: Engine, kind: str
) -> None:
    """As bpmn-js-token-simulation waits for a click: the diagram says nothing else."""
    path = tmp_path / "sim.bpmn"
    catch = f'<intermediateCatchEvent id="wait">{NAMING_NOTHING[kind]}</intermediateCatchEvent>'
    path.write_text(PLAIN.format(extra="", catch=catch))
    instance = engine.start(path)
    [wait] = instance.run().waiting_for
    assert (wait["element"], wait["reason"]) == ("wait", "trigger")
    instance.trigger("wait")
    assert instance.run().state == "completed"


def test_in_a_camunda_file_a_message_catch_naming_nothing_stays_refused(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "camunda.bpmn"
    catch = '<intermediateCatchEvent id="wait"><messageEventDefinition/></intermediateCatchEvent>'
    camunda = ' xmlns:camunda="http://camunda.org/schema/1.0/bpmn"'
    path.write_text(PLAIN.format(extra=camunda, catch=catch))
    with pytest.raises(LoadError, match="names no message"):
        engine.start(path)


NO_ENGINE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" '
    'targetNamespace="t"><process id="p" isExecutable="true">{body}</process></definitions>'
)


def _boundary(kind: str, cancel: bool) -> str:
    return (
        f'<startEvent id="s"/>{flow("s", "work")}<userTask id="work" name="Work"/>'
        f'{flow("work", "done")}<endEvent id="done"/>'
        f'<boundaryEvent id="b" attachedToRef="work" '
        f'cancelActivity="{str(cancel).lower()}">{NAMING_NOTHING[kind]}</boundaryEvent>'
        f'{flow("b", "after")}<userTask id="after"/>{flow("after", "e2")}<endEvent id="e2"/>'
    )


@pytest.mark.parametrize("kind", sorted(NAMING_NOTHING))
def test_in_a_file_drawn_for_no_engine_a_boundary_naming_nothing_is_triggered(
    tmp_path: Path, engine: Engine, kind: str
) -> None:
    """The token simulator fires such a boundary event when it is clicked: so does
    `bpmn trigger`; no message, signal, clock or condition can."""
    path = tmp_path / "sim.bpmn"
    path.write_text(NO_ENGINE.format(body=_boundary(kind, cancel=True)))
    instance = engine.start(path, variables={"x": 1})
    waits = {(w["element"], w.get("reason", "task")) for w in instance.run().waiting_for}
    assert waits == {("work", "task"), ("b", "trigger")}
    assert [(t.element, t.subscription is not None) for t in instance.waiting_triggers()] == [
        ("b", True)
    ]
    instance.trigger("b", {"poked": True})
    outcome = instance.run()
    assert [(w["element"], w.get("reason", "task")) for w in outcome.waiting_for] == [
        ("after", "task")
    ]
    assert outcome.variables == {"x": 1, "poked": True}
    assert instance.user_tasks()[0].element == "after"  # the interrupted task is gone
    with pytest.raises(UsageError, match="no token waiting at 'b'"):
        instance.trigger("b")


def test_a_non_interrupting_boundary_naming_nothing_fires_each_time_it_is_triggered(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "sim.bpmn"
    path.write_text(NO_ENGINE.format(body=_boundary("signal", cancel=False)))
    instance = engine.start(path)
    instance.run()
    instance.trigger("b")
    instance.trigger("b")  # it listens again, as long as its activity is active
    instance.run()
    assert sorted(t.element for t in instance.user_tasks()) == ["after", "after", "work"]
    instance.complete_task("work")
    assert instance.run().waiting_for and instance.waiting_triggers() == []  # it ended with it


def test_an_event_subprocess_start_naming_nothing_is_triggered(
    tmp_path: Path, engine: Engine
) -> None:
    body = (
        f'<startEvent id="s"/>{flow("s", "work")}<userTask id="work"/>'
        f'{flow("work", "done")}<endEvent id="done"/>'
        '<subProcess id="handler" triggeredByEvent="true">'
        '<startEvent id="poked" isInterrupting="false"><messageEventDefinition/></startEvent>'
        f'{flow("poked", "note", "f9")}<userTask id="note"/>{flow("note", "ne", "f10")}'
        '<endEvent id="ne"/></subProcess>'
    )
    path = tmp_path / "sim.bpmn"
    path.write_text(NO_ENGINE.format(body=body))
    instance = engine.start(path)
    waits = {(w["element"], w.get("reason", "task")) for w in instance.run().waiting_for}
    assert waits == {("work", "task"), ("poked", "trigger")}
    reopened = engine.instance(instance.id)  # the subscription is in the rows
    reopened.trigger("poked", {"why": "look"})
    outcome = reopened.run()
    assert sorted(t.element for t in reopened.user_tasks()) == ["note", "work"]
    assert outcome.variables == {"why": "look"}
    assert [t.element for t in reopened.waiting_triggers()] == ["poked"]  # listens again


def test_in_a_camunda_file_a_boundary_naming_nothing_stays_refused(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "camunda.bpmn"
    text = NO_ENGINE.format(body=_boundary("signal", cancel=True))
    path.write_text(
        text.replace(' id="d"', ' xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d"')
    )
    with pytest.raises(LoadError, match="names no signal"):
        engine.start(path)
