"""A process whose start events all wait for a message or a signal is created waiting at
them: the first trigger fires its start event with its variables, the others stop waiting.
A parallel multiple start event fires once every one of its definitions has come."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, Instance, UsageError
from tests.runtime.conftest import Bpmn, events_named, flow

TWO_STARTS = (
    '<startEvent id="byMessage"><messageEventDefinition messageRef="paid"/></startEvent>'
    '<startEvent id="bySignal"><signalEventDefinition signalRef="go"/></startEvent>'
    '<endEvent id="paidEnd"/><endEvent id="goEnd"/>'
    + flow("byMessage", "paidEnd")
    + flow("bySignal", "goEnd")
)


def waits(instance: Instance) -> list[tuple[str, str]]:
    return sorted((w["element"], w["reason"]) for w in instance.outcome().waiting_for)


def test_an_instance_is_created_waiting_at_its_message_and_signal_starts(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(TWO_STARTS))
    assert instance.run().state == "waiting"
    assert sorted((t["element"], t["state"]) for t in instance.tokens()) == [
        ("byMessage", "waiting"),
        ("bySignal", "waiting"),
    ]
    assert waits(instance) == [("byMessage", "message"), ("bySignal", "signal")]


def test_the_first_message_fires_its_start_with_its_variables_and_the_others_stop(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(TWO_STARTS))
    [woken] = engine.publish_message("paid", variables={"amount": 5})
    assert woken.id == instance.id
    outcome = woken.run()
    assert (outcome.state, outcome.end_event, outcome.variables) == (
        "completed",
        "paidEnd",
        {"amount": 5},
    )
    assert [e.element for e in events_named(woken, "element.terminated")] == ["bySignal"]
    assert engine.broadcast_signal("go") == []  # nobody waits for it any more
    assert len(engine.instances()) == 1


def test_a_signal_fires_its_start_and_the_message_start_stops_waiting(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(TWO_STARTS))
    [woken] = engine.broadcast_signal("go", {"who": "ops"})
    assert woken.id == instance.id
    assert (woken.run().end_event, woken.variables) == ("goEnd", {"who": "ops"})
    assert engine.publish_message("paid") == []  # expired: no one waits


def test_a_message_thrown_by_another_instance_fires_the_start(bpmn: Bpmn, engine: Engine) -> None:
    waiting = engine.start(bpmn(TWO_STARTS))
    sender = bpmn(
        '<startEvent id="s"/>'
        '<intermediateThrowEvent id="send"><messageEventDefinition messageRef="paid"/>'
        '</intermediateThrowEvent><endEvent id="e"/>' + flow("s", "send") + flow("send", "e")
    )
    assert engine.start(sender).run().state == "completed"
    assert engine.instance(waiting.id).outcome().end_event == "paidEnd"


def test_a_message_published_before_the_instance_is_taken_when_it_starts_waiting(
    bpmn: Bpmn, engine: Engine
) -> None:
    assert engine.publish_message("paid", variables={"amount": 7}, ttl=60) == []  # buffered
    instance = engine.start(bpmn(TWO_STARTS))
    outcome = engine.instance(instance.id).run()
    assert (outcome.state, outcome.end_event, outcome.variables) == (
        "completed",
        "paidEnd",
        {"amount": 7},
    )


MULTIPLE = (
    '<startEvent id="both" parallelMultiple="PARALLEL">'
    '<messageEventDefinition messageRef="paid"/><signalEventDefinition signalRef="go"/>'
    '</startEvent><endEvent id="e"/>' + flow("both", "e")
)


def test_a_multiple_start_event_fires_on_the_first_of_its_triggers(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(MULTIPLE.replace("PARALLEL", "false")))
    assert waits(instance) == [("both", "message"), ("both", "signal")]
    [woken] = engine.broadcast_signal("go")
    assert woken.run().state == "completed"
    assert engine.publish_message("paid") == []  # its message subscription was cancelled


def test_a_parallel_multiple_start_event_fires_once_every_trigger_came(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(bpmn(MULTIPLE.replace("PARALLEL", "true")))
    [woken] = engine.publish_message("paid", variables={"amount": 5})
    assert woken.run().state == "waiting"  # the signal has not come yet
    assert waits(woken) == [("both", "signal")]
    [woken] = engine.broadcast_signal("go", {"who": "ops"})
    outcome = woken.run()
    assert (outcome.state, outcome.variables) == ("completed", {"amount": 5, "who": "ops"})
    assert woken.id == instance.id
    assert [e.event for e in woken.history() if e.event.endswith(".received")] == [
        "message.received",
        "signal.received",
    ]


@pytest.mark.parametrize(
    "starts",
    [
        '<startEvent id="S"><timerEventDefinition><timeCycle>R/PT1H</timeCycle>'
        "</timerEventDefinition></startEvent>",
        '<startEvent id="S"><messageEventDefinition messageRef="paid"/></startEvent>'
        '<startEvent id="T"><timerEventDefinition><timeCycle>R/PT1H</timeCycle>'
        "</timerEventDefinition></startEvent>" + flow("T", "E", "f2"),
    ],
    ids=["timer", "message-and-timer"],
)
def test_a_process_with_a_timer_start_and_no_none_start_is_still_refused(
    bpmn: Bpmn, engine: Engine, starts: str
) -> None:
    path = bpmn(starts + '<endEvent id="E"/>' + flow("S", "E"))
    with pytest.raises(UsageError, match="no none start event"):
        engine.start(path)
    assert engine.instances() == []
