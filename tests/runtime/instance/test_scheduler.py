"""The scheduler: deterministic order, one step at a time, loops in constant stack depth."""

from __future__ import annotations

import inspect

from bpmn_engine import Engine, Event, ServiceTaskContext
from bpmn_engine.runtime.clock import VirtualClock
from tests.postgresql_server import on_postgresql
from tests.runtime.conftest import Bpmn, MakeEngine, activations, flow, lifecycle, script


def test_ready_tracks_run_in_the_order_they_became_ready(bpmn: Bpmn, engine: Engine):
    # given: two chains after a fork
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        '<task id="A1"/><task id="A2"/><task id="B1"/><task id="B2"/>'
        + flow("S", "Fork")
        + flow("Fork", "A1")
        + flow("Fork", "B1")
        + flow("A1", "A2")
        + flow("B1", "B2")
    )
    instance = engine.start(path)
    # when
    instance.run()
    # then: the branches take turns, one node each
    assert activations(instance) == ["S", "Fork", "A1", "B1", "A2", "B2"]


def test_every_start_event_gets_a_token_in_document_order(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S2"/><startEvent id="S1"/>'
        + script("Two", "order = order + [2]")
        + script("One", "order = order + [1]")
        + flow("S2", "Two")
        + flow("S1", "One")
    )
    # when
    outcome = engine.start(path, variables={"order": []}).run()
    # then
    assert outcome.variables == {"order": [2, 1]}


def test_step_once_does_one_step_and_reports_when_nothing_can_happen(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><task id="T"/><userTask id="U"/>' + flow("S", "T") + flow("T", "U")
    )
    instance = engine.start(path)
    # when / then
    assert instance.step_once() is True
    assert activations(instance) == ["S"]
    assert instance.step_once() is True
    assert activations(instance) == ["S", "T"]
    assert instance.step_once() is True
    assert activations(instance) == ["S", "T", "U"]
    assert instance.step_once() is False
    assert instance.outcome().state == "waiting"


def test_an_inclusive_join_whose_rule_holds_fires_on_arrival_while_others_are_ready(
    bpmn: Bpmn, engine: Engine
):
    # given: an OR-join whose dead branch makes it enabled at once, next to an independent
    # chain X1 -> X2 -> X3 that cannot reach it: it fires in the step of the arrival, as the
    # last arrival at a parallel join does, not after the chain has run out
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        '<inclusiveGateway id="Split"/><inclusiveGateway id="Join"/>'
        '<task id="A"/><task id="B"/><task id="X1"/><task id="X2"/><task id="X3"/>'
        + flow("S", "Fork")
        + flow("Fork", "Split")
        + flow("Fork", "X1")
        + flow("X1", "X2")
        + flow("X2", "X3")
        + flow("Split", "A", "SA", "${true}")
        + flow("Split", "B", "SB", "${false}")
        + flow("A", "Join")
        + flow("B", "Join")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    order = activations(instance)
    assert order.index("A") < order.index("Join") < order.index("X3")
    assert order.count("Join") == 1
    assert ("element.waiting", "Join") not in lifecycle(instance)  # it never waited


def test_on_event_sees_every_event_as_it_is_committed(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><userTask id="U"/><endEvent id="E"/>' + flow("S", "U") + flow("U", "E")
    )
    seen: list[Event] = []
    instance = engine.start(path, on_event=seen.append)
    # when
    instance.run(on_event=seen.append)
    instance.complete_task("U", {"x": 1}, on_event=seen.append)
    instance.run(on_event=seen.append)
    # then
    assert seen == instance.history()
    assert seen[0].event == "instance.started"
    assert seen[-1].event == "instance.completed"


def test_a_loop_runs_in_constant_stack_depth(bpmn: Bpmn, make_engine: MakeEngine):
    # given: a service task in a loop measures the stack each time it is called
    depths: list[int] = []

    def count(context: ServiceTaskContext):
        depths.append(len(inspect.stack(0)))
        return {"n": context.variables["n"] + 1}

    path = bpmn(
        '<startEvent id="S"/><serviceTask id="Count"/>'
        '<exclusiveGateway id="G" default="Out"/><endEvent id="E"/>'
        + flow("S", "Count")
        + flow("Count", "G")
        + flow("G", "Count", "Back", "n < 300")
        + flow("G", "E", "Out")
    )
    engine = make_engine(handlers={"Count": count})
    # when
    outcome = engine.start(path, variables={"n": 0}).run()
    # then
    assert outcome.variables == {"n": 300}
    assert len(depths) == 300
    assert len(set(depths)) == 1


LOOP = (
    '<startEvent id="S"/>'
    + script("Inc", "n = n + 1")
    + '<exclusiveGateway id="G" default="Out"/><endEvent id="E"/>'
    + flow("S", "Inc")
    + flow("Inc", "G")
    + flow("G", "Inc", "Back", "n < turns")
    + flow("G", "E", "Out")
)


def test_a_loop_of_100000_turns_completes(bpmn: Bpmn, engine: Engine):
    """The interpreter's loop, not the store, is what a long run could break (its stack, its
    memory): 100,000 turns on SQLite; on PostgreSQL 10,000, since committing each step to a
    server took 200 s of the suite for nothing more."""
    turns = 10_000 if on_postgresql() else 100_000
    # given
    instance = engine.start(bpmn(LOOP), variables={"n": 0, "turns": turns})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"n": turns, "turns": turns}
    assert outcome.end_event == "E"


def test_the_engines_choice_is_always_the_first_action_enabled(bpmn: Bpmn, make_engine: MakeEngine):
    """`run` and the stepper read one scheduler: at every point of a run with a fork, an
    inclusive join, a condition and a timer, the next action is the first one enabled."""
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        '<inclusiveGateway id="Split"/><inclusiveGateway id="Join"/>'
        + script("A", "a = 1")
        + script("B", "b = 1")
        + '<intermediateCatchEvent id="Wait"><timerEventDefinition>'
        "<timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        '<task id="C"/><parallelGateway id="Merge"/><endEvent id="E"/>'
        + flow("S", "Fork")
        + flow("Fork", "Split")
        + flow("Fork", "Wait")
        + flow("Split", "A", condition="x > 0")
        + flow("Split", "B", condition="x > 1")
        + flow("A", "Join")
        + flow("B", "Join")
        + flow("Join", "Merge")
        + flow("Wait", "C")
        + flow("C", "Merge")
        + flow("Merge", "E")
    )
    instance = make_engine(clock=VirtualClock()).start(path, variables={"x": 1})
    taken = []
    while True:
        enabled = instance.enabled()
        chosen = instance.scheduler.next()
        assert chosen == (enabled[0] if enabled else None)
        if chosen is None:
            break
        taken.append(str(chosen.kind))
        instance.step(chosen)
    assert instance.outcome().state == "completed"
    assert {"enter", "timer"} <= set(taken)
