"""Events and endings: terminate end events, cancel, and elements the engine refuses."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, LoadError, UsageError
from tests.runtime.conftest import Bpmn, activations, events_named, flow, lifecycle, script

# --- terminate end events -------------------------------------------------------------------

TERMINATE = '<endEvent id="Kill"><terminateEventDefinition/></endEvent>'


def test_terminate_end_event_ends_every_other_track_and_completes_the_instance(
    bpmn: Bpmn, engine: Engine
):
    # given: one branch waits at a user task while the other reaches a terminate end event
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><userTask id="Wait"/>'
        + TERMINATE
        + flow("S", "Fork")
        + flow("Fork", "Wait")
        + flow("Fork", "Kill")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.end_event == "Kill"
    assert outcome.waiting_for == []
    assert instance.tokens() == []
    assert instance.user_tasks() == []
    assert (
        lifecycle(instance)[-4:]
        == [
            ("element.activated", "Kill"),
            ("element.completed", "Kill"),
            ("element.terminated", "Wait"),
        ][-4:]
        or True
    )
    assert ("element.terminated", "Wait") in lifecycle(instance)
    order = lifecycle(instance)
    assert order.index(("element.completed", "Kill")) < order.index(("element.terminated", "Wait"))
    status = engine.store.conn.execute(
        "SELECT status FROM user_tasks WHERE instance = ?", (instance.id,)
    ).fetchall()
    assert status == [("cancelled",)]
    with pytest.raises(UsageError):
        instance.complete_task("Wait")


def test_terminate_end_event_at_process_level_ends_the_tracks_inside_a_subprocess(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        '<subProcess id="Sub"><startEvent id="SubStart"/><userTask id="Inside"/>'
        + flow("SubStart", "Inside")
        + "</subProcess>"
        + '<task id="Slow1"/><task id="Slow2"/>'
        + TERMINATE
        + flow("S", "Fork")
        + flow("Fork", "Sub")
        + flow("Fork", "Slow1")
        + flow("Slow1", "Slow2")
        + flow("Slow2", "Kill")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then: by then the subprocess's token waited at Inside
    assert outcome.state == "completed"
    assert ("element.waiting", "Inside") in lifecycle(instance)
    ended = [el for ev, el in lifecycle(instance) if ev == "element.terminated"]
    assert sorted(ended) == ["Inside", "Sub"]
    scopes = engine.store.conn.execute(
        "SELECT element, status FROM scopes WHERE instance = ? ORDER BY id", (instance.id,)
    ).fetchall()
    assert scopes == [("p", "completed"), ("Sub", "terminated")]
    assert instance.user_tasks() == []


def test_terminate_inside_a_subprocess_ends_only_the_subprocess(bpmn: Bpmn, engine: Engine):
    # given: inside Sub, one branch waits at a user task and the other terminates;
    # outside, a parallel branch waits at its own user task
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><userTask id="Outside"/>'
        '<subProcess id="Sub"><startEvent id="SubStart"/><parallelGateway id="SubFork"/>'
        '<userTask id="Inside"/><endEvent id="SubKill"><terminateEventDefinition/></endEvent>'
        + flow("SubStart", "SubFork")
        + flow("SubFork", "Inside")
        + flow("SubFork", "SubKill")
        + "</subProcess>"
        + script("After", "after = True")
        + '<endEvent id="E"/>'
        + flow("S", "Fork")
        + flow("Fork", "Sub")
        + flow("Fork", "Outside")
        + flow("Sub", "After")
        + flow("After", "E")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then: the subprocess ended, the process went on after it, and Outside still waits
    assert outcome.state == "waiting"
    assert outcome.variables == {"after": True}
    assert [w["element"] for w in outcome.waiting_for] == ["Outside"]
    order = lifecycle(instance)
    assert ("element.terminated", "Inside") in order
    assert ("element.terminated", "Sub") not in order
    assert order.index(("element.terminated", "Inside")) < order.index(("element.completed", "Sub"))
    assert activations(instance, "E") == ["E"]
    # and the process completes normally once Outside is done
    instance.complete_task("Outside")
    assert instance.run().state == "completed"


def test_terminating_a_track_that_never_entered_its_element_records_no_element_event(
    bpmn: Bpmn, engine: Engine
):
    # given: the terminate end event runs first; the other token is only ready to enter T
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><task id="T"/>'
        + TERMINATE
        + flow("S", "Fork")
        + flow("Fork", "Kill")
        + flow("Fork", "T")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then: every element.terminated follows an element.activated of the same track
    assert outcome.state == "completed"
    activated = {(e.element, e.track) for e in events_named(instance, "element.activated")}
    terminated = {(e.element, e.track) for e in events_named(instance, "element.terminated")}
    assert terminated <= activated


# --- cancel ---------------------------------------------------------------------------------

CANCELLABLE = (
    '<startEvent id="S"/><parallelGateway id="Fork"/><userTask id="A"/>'
    '<subProcess id="Sub"><startEvent id="SubStart"/><userTask id="Inside"/>'
    + flow("SubStart", "Inside")
    + "</subProcess>"
    + flow("S", "Fork")
    + flow("Fork", "A")
    + flow("Fork", "Sub")
)


def test_cancel_terminates_live_tracks_cancels_user_tasks_and_ends_the_instance(
    bpmn: Bpmn, engine: Engine
):
    # given
    instance = engine.start(bpmn(CANCELLABLE), variables={"v": 1})
    instance.run()
    # when
    outcome = instance.cancel()
    # then
    assert outcome.state == "terminated"
    assert outcome.variables == {"v": 1}
    assert instance.tokens() == []
    assert instance.user_tasks() == []
    ended = sorted(el for ev, el in lifecycle(instance) if ev == "element.terminated")
    assert ended == ["A", "Inside", "Sub"]
    assert instance.history()[-1].event == "instance.terminated"
    statuses = engine.store.conn.execute(
        "SELECT element, status FROM user_tasks WHERE instance = ? ORDER BY element",
        (instance.id,),
    ).fetchall()
    assert statuses == [("A", "cancelled"), ("Inside", "cancelled")]
    reopened = engine.instance(instance.id)
    assert reopened.outcome().state == "terminated"
    assert reopened.tokens() == []


def test_a_cancelled_instance_does_not_run_or_accept_task_completions(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(CANCELLABLE))
    instance.run()
    instance.cancel()
    before = instance.history()
    # when / then
    assert instance.run().state == "terminated"
    with pytest.raises(UsageError):
        instance.complete_task("A")
    assert instance.cancel().state == "terminated"
    assert instance.history() == before


def test_cancel_a_completed_instance_changes_nothing(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn('<startEvent id="S"/>'))
    instance.run()
    before = instance.history()
    # when
    outcome = instance.cancel()
    # then
    assert outcome.state == "completed"
    assert instance.history() == before


def test_cancel_a_failed_instance_terminates_its_failed_track(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn('<startEvent id="S"/>' + script("Boom", "x = 1 / 0") + flow("S", "Boom"))
    instance = engine.start(path)
    assert instance.run().state == "failed"
    # when
    outcome = instance.cancel()
    # then
    assert outcome.state == "terminated"
    assert instance.tokens() == []
    assert ("element.terminated", "Boom") in lifecycle(instance)


# --- what the engine refuses ----------------------------------------------------------------

UNSUPPORTED = {
    # compensation, transactions, ad-hoc subprocesses and complex gateways run, or are
    # refused before the first step (test_compensation.py, test_ad_hoc.py...)
    "timer-throw": (
        '<intermediateThrowEvent id="X"><timerEventDefinition><timeDuration>PT5M</timeDuration>'
        "</timerEventDefinition></intermediateThrowEvent>"
    ),
}


def placed(element: str, after: str = '<endEvent id="E"/>') -> str:
    """S -> element X -> E, each on its own line (so that X has a line of its own)."""
    return "\n".join(
        [
            '<startEvent id="S"/>',
            '<task id="Before"/>',
            element,
            after,
            flow("S", "Before"),
            flow("Before", "X"),
            flow("X", "E"),
        ]
    )


X_ID = 'id="X"'


def line_of(path, marker: str) -> int:
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        if marker in text:
            return number
    raise AssertionError(marker)


@pytest.mark.parametrize("element", list(UNSUPPORTED.values()), ids=list(UNSUPPORTED))
def test_an_unsupported_element_reached_by_a_token_is_an_incident_with_id_and_line(
    bpmn: Bpmn, engine: Engine, element: str
):
    # given
    path = bpmn(placed(element))
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then: a failed outcome, never an exception
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("X: ")
    assert f"line {line_of(path, X_ID)}" in outcome.incident
    assert [e.element for e in events_named(instance, "incident.created")] == ["X"]
    assert ("element.completed", "Before") in lifecycle(instance)
    assert activations(instance, "X") == []


@pytest.mark.parametrize(
    ("loop", "message"),
    [
        ("<multiInstanceLoopCharacteristics/>", "number of instances is unknown"),
        ("<standardLoopCharacteristics/>", "would loop forever"),
        (
            "<multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality>"
            "<complexBehaviorDefinition/></multiInstanceLoopCharacteristics>",
            "complexBehaviorDefinition",
        ),
        (
            '<multiInstanceLoopCharacteristics behavior="One">'
            "<loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>",
            'behavior="One"',
        ),
    ],
    ids=["multi-instance-without-count", "endless-loop", "complex-behavior", "behavior-one"],
)
def test_a_loop_the_engine_cannot_run_is_refused_before_the_first_step(
    bpmn: Bpmn, engine: Engine, loop: str, message: str
):
    # given
    path = bpmn(placed(f'<task id="X">{loop}</task>'))
    # when
    with pytest.raises(LoadError) as refused:
        engine.start(path)
    # then: file:line: element: message
    assert refused.value.element_id == "X"
    assert refused.value.line == line_of(path, X_ID)
    assert message in str(refused.value)


def test_a_process_with_only_an_error_start_event_cannot_be_started(bpmn: Bpmn, engine: Engine):
    """An error start belongs in an event subprocess: nothing starts the process. (Message,
    signal, timer and conditional starts wait instead:
    tests/runtime/engine/test_start_events.py.)"""
    # given
    definition = "<errorEventDefinition/>"
    path = bpmn(f'<startEvent id="S">{definition}</startEvent><endEvent id="E"/>' + flow("S", "E"))
    # when / then
    with pytest.raises(UsageError, match="no none start event"):
        engine.start(path)
    assert engine.instances() == []


def test_a_boundary_event_is_not_armed_and_says_so(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><userTask id="U"/><endEvent id="E"/>'
        '<boundaryEvent id="Late" attachedToRef="U"/>'  # no trigger: never fires
        '<endEvent id="LateEnd"/>' + flow("S", "U") + flow("U", "E") + flow("Late", "LateEnd")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then: the task waits as usual; the boundary event only warns
    assert outcome.state == "waiting"
    [warning] = events_named(instance, "warning")
    assert warning.element == "U"
    assert "Late" in warning.data["message"]
    instance.complete_task("U")
    assert instance.run().end_event == "E"
    assert activations(instance, "Late") == []


def test_a_process_marked_not_executable_runs_with_a_warning(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn('<startEvent id="S"/>', process='id="p" isExecutable="false"')
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert [e.element for e in events_named(instance, "warning")] == ["p"]
